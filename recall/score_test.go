package recall

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/internal/textcorpus"
	"github.com/tmemhq/tmem/layout"
)

// refChunk is a chunk as the reference scorer sees it: its terms per
// field, taken from the chunk's own text.
type refChunk map[string][]string

// refScore is BM25F written out from the formula, over whole token lists
// rather than bleve's postings, norms and the manifest's statistics.
func refScore(t *testing.T, corpus map[string]refChunk, query string) map[string]float64 {
	t.Helper()
	groups, err := queryGroups(query, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	avg := map[string]float64{}
	for _, f := range lenFields {
		sum, has := 0, 0
		for _, c := range corpus {
			if n := len(c[f]); n > 0 {
				sum += n
				has++
			}
		}
		if has > 0 {
			avg[f] = float64(sum) / float64(has)
		}
	}
	n := float64(len(corpus))
	out := map[string]float64{}
	for _, g := range groups {
		for _, term := range g.terms {
			tf := map[string]float64{}
			for id, c := range corpus {
				for fi, f := range g.fields {
					k := 0
					for _, x := range c[f] {
						if x == term {
							k++
						}
					}
					if k > 0 {
						tf[id] += g.weights[fi] * float64(k) / (1 - 0.75 + 0.75*float64(len(c[f]))/avg[f])
					}
				}
			}
			df := float64(len(tf))
			w := math.Log(1 + (n-df+0.5)/(df+0.5))
			for id, x := range tf {
				out[id] += g.boost * w * x * 2.2 / (x + 1.2)
			}
		}
	}
	return out
}

// TestBM25MatchesReference checks the scores of a BM25-only search
// against refScore on a fixed corpus.
func TestBM25MatchesReference(t *testing.T) {
	files := map[string]string{
		"2025-06-12.md":        "# 2025-06-12\n\n## Load test of audit-log\n\nError rate for ERR_REPLICA_LAG on audit-log is 0.07% in us-east-1; threshold is 0.5%.\n",
		"2025-06-13.md":        "# 2025-06-13\n\n## Retry queue\n\nThe retry queue drained by noon. The audit log was quiet and the error rate stayed low all day long.\n",
		"2025-06-16.md":        "# 2025-06-16\n\n## Pinned bleve\n\nPinned bleve at v1.7; error error error in the load test of v1.9.\n",
		"project_audit_log.md": "---\nname: Audit log load testing\ndescription: Error rate and threshold for the audit log\ntype: project\n---\nRun the load test after each release.\n",
		"feedback_short.md":    "---\nname: Short answers\ndescription: Keep replies short\ntype: feedback\n---\nAnswer first, details after.\n",
	}
	ws := exactWorkspace(t, files)
	ix, _ := openIndex(t, ws, Options{})
	corpus := refCorpus(t, ws)
	for _, q := range []string{
		"error rate of the audit log",
		"ERR_REPLICA_LAG us-east-1 0.07%",
		"load test v1.7",
		"short answers first",
	} {
		t.Run(q, func(t *testing.T) {
			want := refScore(t, corpus, q)
			hits := runSearch(t, ix, Query{Text: q, Mode: ModeBM25, RecencyDepth: -1, K: 20})
			if len(hits) != len(want) {
				t.Errorf("%d hits, the reference scores %d chunks", len(hits), len(want))
			}
			for _, h := range hits {
				id := h.Path + "#0"
				if math.Abs(h.BM25-want[id]) > 1e-6 {
					t.Errorf("%s: BM25 %.9f, reference %.9f", id, h.BM25, want[id])
				}
			}
		})
	}
}

// refCorpus is every chunk of beacon's memory, each file one chunk,
// tokenised per field.
func refCorpus(t *testing.T, ws *layout.Workspace) map[string]refChunk {
	t.Helper()
	fs, err := ws.Files("beacon")
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyzers()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]refChunk{}
	for _, f := range fs {
		if f.Kind == layout.KindSoul {
			continue
		}
		src, err := os.ReadFile(ws.Abs(f.Path))
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := ChunkFile(f, src, DefaultChunkOptions)
		if err != nil || len(chunks) != 1 {
			t.Fatalf("%s: %d chunks, %v; the corpus wants one each", f.Path, len(chunks), err)
		}
		c := chunks[0]
		rc := refChunk{}
		for x, text := range map[string]string{fText: c.Text, fName: c.Name, fDesc: c.Description, fHead: headingWords(c.Heading)} {
			var ps []string
			rc[x], ps = wordsAndPairs(a.en, text)
			rc[fPairs] = append(rc[fPairs], ps...)
		}
		rc[fIdent] = identTokens(c.Name + " " + c.Description + " " + c.Heading + " " + c.Text)
		out[c.ID] = rc
	}
	return out
}

// TestQueryGroupsBounded checks that each term group of a query holds its
// first maxGroupTerms distinct terms, in the order the query gives them:
// all of them for a question, the question's and then the first of the
// log's for a question with a log pasted after it.
func TestQueryGroupsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2026))
	question := "Why did the ETA rollover test fail on CI for DX-8047 in us-east-1 on 2026-11-19?"
	tests := []struct {
		name    string
		text    string
		bounded bool // some group has more distinct terms than it may hold
	}{
		{"question", question, false},
		{"names, compounds and repeats", "Melanie had icecream, ice cream and an e-mail; Melanie e-mailed the icecream vendor twice, twice.", false},
		{"a log pasted", question + "\n\n" + textcorpus.Log(rng, 2_800_000), true},
		{"random words", strings.Join(textcorpus.Random(rng, 20_000, 12, []string{"abcdefghijklmnopqrstuvwxyz"}), " "), true},
	}
	a, err := analyzers()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := queryText(tt.text)
			groups, err := queryGroups(text, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			ws, ps := wordsAndPairs(a.en, text)
			joined, split := refCompounds(a, text)
			want := map[string][]string{fText: distinct(append(ws, joined...)), fPairs: distinct(append(ps, split...)), fIdent: distinct(identTokens(text))}
			over := false
			for _, g := range groups {
				over = over || len(want[g.fields[0]]) > maxGroupTerms
				if len(g.terms) > maxGroupTerms {
					t.Errorf("the %s group holds %d terms", g.fields[0], len(g.terms))
				}
				if w, ok := want[g.fields[0]]; ok && !slices.Equal(g.terms, w[:min(len(w), maxGroupTerms)]) {
					t.Errorf("the %s group holds %d terms, not the first %d of %d", g.fields[0], len(g.terms), maxGroupTerms, len(w))
				}
			}
			if over != tt.bounded {
				t.Errorf("over the bound: %v, want %v", over, tt.bounded)
			}
		})
	}
}

// refCompounds is compounds without its limit, written out: every
// occurrence of every word joined and split.
func refCompounds(a *analyzerSet, text string) (joined, split []string) {
	folded := []byte(text)
	for _, f := range a.unstemmed.CharFilters {
		folded = f.Filter(folded)
	}
	ts := a.unstemmed.Analyze([]byte(text))
	for i, t := range ts {
		w := string(t.Term)
		if !isLetters(w) {
			continue
		}
		if i > 0 && ts[i-1].Position == t.Position-1 && isLetters(string(ts[i-1].Term)) && !phraseBreak(folded, ts[i-1].End, t.Start) {
			joined = append(joined, a.stemOf(string(ts[i-1].Term)+w))
		}
		if t.Start < len(folded) && folded[t.Start] >= 'A' && folded[t.Start] <= 'Z' || len(w) > maxCompound {
			continue
		}
		for j := 1; len(w) >= minCompound && j <= len(w)-3; j++ {
			split = append(split, a.stemOf(w[:j])+"\x1f"+a.stemOf(w[j:]))
		}
	}
	return joined, split
}
