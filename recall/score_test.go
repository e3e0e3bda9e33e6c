package recall

import (
	"math"
	"os"
	"testing"
	"time"

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
		rc := refChunk{fText: terms(a.en, c.Text), fName: terms(a.en, c.Name), fDesc: terms(a.en, c.Description), fHead: terms(a.en, headingWords(c.Heading))}
		for _, x := range []string{fText, fName, fDesc, fHead} {
			rc[fPairs] = append(rc[fPairs], pairs(rc[x])...)
		}
		rc[fIdent] = identTokens(c.Name + " " + c.Description + " " + c.Heading + " " + c.Text)
		out[c.ID] = rc
	}
	return out
}
