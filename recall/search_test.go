package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSearchFinds(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	tests := []struct {
		name      string
		query     string
		teammates []string
		want      string // the top hit
	}{
		{"memory name matches strongly", "bulk container lookup", []string{"beacon"}, "beacon/memory/project_bulk_lookup.md"},
		{"stemming", "backfilling", []string{"beacon"}, "beacon/WISDOM.md"},
		{"cjk query finds a cjk memory", "検索インデックス", []string{"beacon"}, "beacon/memory/reference_検索.md"},
		{"accented query", "café", []string{"beacon"}, "beacon/memory/feedback_cafe_meetings.md"},
		{"unaccented query finds accented text", "cafe", []string{"beacon"}, "beacon/memory/feedback_cafe_meetings.md"},
		{"shared scope for every teammate", "release freeze", []string{"quill"}, "CROSS-TEAM.md"},
		{"several teammates", "live map vessels", []string{"beacon", "quill"}, "quill/memory/project_live_map.md"},
		{"frontmatter that is not YAML", "HRB-1377 dedupe", []string{"beacon"}, "beacon/memory/project_dedupe_ticket.md"},
		{"old daily", "dead-letter table raw payload", []string{"beacon"}, "beacon/memory/2026-10-27.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := runSearch(t, ix, Query{Text: tt.query, Teammates: tt.teammates, RecencyDepth: -1})
			if len(hits) == 0 || hits[0].Path != tt.want {
				t.Errorf("query %q: hits %v, want %s first", tt.query, paths(hits), tt.want)
			}
		})
	}
}

func TestSearchIgnoresOtherTeammates(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	hits := runSearch(t, ix, Query{Text: "live map vessels", Teammates: []string{"beacon"}, RecencyDepth: -1})
	for _, h := range hits {
		if h.Teammate == "quill" {
			t.Errorf("beacon's search returned quill's %s", h.Path)
		}
	}
}

func TestBM25OnlyNoticeOnce(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, warn := openIndex(t, ws, Options{})
	if ix.HasVectors() {
		t.Error("HasVectors() with no embedder")
	}
	for i := 0; i < 3; i++ {
		runSearch(t, ix, Query{Text: "lookup", Teammates: []string{"beacon"}})
	}
	if n := strings.Count(warn.String(), "BM25 only"); n != 1 {
		t.Errorf("BM25-only notice printed %d times, want once:\n%s", n, warn)
	}
	hits := runSearch(t, ix, Query{Text: "lookup", Teammates: []string{"beacon"}})
	for _, h := range hits {
		if contains(h.Reason, "vector") {
			t.Errorf("%s has a vector reason without an embedder", h.Path)
		}
	}
}

func TestSearchRecency(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	tests := []struct {
		name  string
		depth int
		want  []string
	}{
		{"default two", 0, []string{"beacon/memory/weekly/2026-W46.md", "beacon/memory/weekly/2026-W45.md"}},
		{"one", 1, []string{"beacon/memory/weekly/2026-W46.md"}},
		{"none", -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := runSearch(t, ix, Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, K: 3, RecencyDepth: tt.depth})
			var got []string
			for _, h := range hits {
				if contains(h.Reason, "recency") {
					got = append(got, h.Path)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("recency hits %v, want %v (all hits %v)", got, tt.want, paths(hits))
			}
			if len(hits)-len(got) > 3 {
				t.Errorf("%d hits besides recency, want at most K=3", len(hits)-len(got))
			}
			if hits[0].Path != "beacon/memory/project_bulk_lookup.md" {
				t.Errorf("recency displaced the best hit: %v", paths(hits))
			}
		})
	}
}

func TestSearchHybridWithEmbedder(t *testing.T) {
	ws := newWorkspace(t, "ws")
	emb := &countingEmbedder{}
	ix, _ := openIndex(t, ws, Options{Embedder: emb})
	if !ix.HasVectors() {
		t.Fatal("HasVectors() false with an embedder")
	}
	for _, mode := range []string{ModeHybrid, ModeVector, ModeBM25} {
		t.Run(mode, func(t *testing.T) {
			hits := runSearch(t, ix, Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, Mode: mode, RecencyDepth: -1})
			if len(hits) == 0 || hits[0].Path != "beacon/memory/project_bulk_lookup.md" {
				t.Fatalf("hits %v", paths(hits))
			}
			h := hits[0]
			if mode != ModeBM25 && (h.Vector <= 0 || !contains(h.Reason, "vector")) {
				t.Errorf("top hit has no vector part: %+v", h)
			}
			if mode != ModeVector && (h.BM25 <= 0 || !contains(h.Reason, "bm25")) {
				t.Errorf("top hit has no BM25 part: %+v", h)
			}
		})
	}
}

func TestEmbeddingCache(t *testing.T) {
	ws := newWorkspace(t, "ws")
	emb := &countingEmbedder{}
	ix, _ := openIndex(t, ws, Options{Embedder: emb})
	ctx := context.Background()
	st, err := ix.Sync(ctx, []string{"beacon"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded == 0 {
		t.Fatal("first sync embedded nothing")
	}
	emb.reset()
	const typed = "beacon/memory/project_bulk_lookup.md"
	tests := []struct {
		name      string
		edit      func()
		wantEmbed int
	}{
		{"no change", func() {}, 0},
		{"file moved", func() { mv(t, ws.Abs(typed), ws.Abs("beacon/memory/project_moved.md")) }, 0},
		{"another entry of the file changed", func() {
			writeFile(t, ws, "beacon/WISDOM.md", "# Wisdom\n\n## Expand before contract\n\nAdd nullable columns first, backfill, then make them required. Sources: 2026-W43.\n\n## A new rule\n\nAlways measure first.\n")
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.edit()
			st, err := ix.Sync(ctx, []string{"beacon"})
			if err != nil {
				t.Fatal(err)
			}
			if n := emb.reset(); n != tt.wantEmbed {
				t.Errorf("embedded %d texts, want %d (%+v)", n, tt.wantEmbed, st)
			}
		})
	}
}

func TestEmbedderArrivesLater(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ctx := context.Background()
	bm, _ := openIndex(t, ws, Options{})
	if _, err := bm.Sync(ctx, []string{"beacon"}); err != nil {
		t.Fatal(err)
	}
	emb := &countingEmbedder{}
	ix, _ := openIndex(t, ws, Options{Embedder: emb})
	st, err := ix.Sync(ctx, []string{"beacon"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded == 0 || len(st.Rebuilt) != 0 || st.Chunks != 0 {
		t.Errorf("sync with a new embedder: %+v, want vectors added without re-indexing", st)
	}
	hits := runSearch(t, ix, Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, Mode: ModeVector})
	if len(hits) == 0 || hits[0].Vector <= 0 {
		t.Errorf("vector search after the embedder arrived: %+v", hits)
	}
	t.Run("a different embedder re-embeds", func(t *testing.T) {
		other := &countingEmbedder{id: "other-model"}
		ix2, _ := openIndex(t, ws, Options{Embedder: other})
		st, err := ix2.Sync(ctx, []string{"beacon"})
		if err != nil {
			t.Fatal(err)
		}
		if st.Embedded == 0 || st.Cached != 0 {
			t.Errorf("identity change: %+v, want everything embedded afresh", st)
		}
	})
}

func TestHitJSON(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	hits := runSearch(t, ix, Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, K: 1, RecencyDepth: -1})
	for i := range hits {
		hits[i].Score, hits[i].BM25 = 0, 0 // scores move with bleve versions
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(hits); err != nil {
		t.Fatal(err)
	}
	golden(t, "hit.golden.json", hits)
}

func TestCorruptVectorsRebuild(t *testing.T) {
	ws := newWorkspace(t, "ws")
	emb := &countingEmbedder{}
	ix, warn := openIndex(t, ws, Options{Embedder: emb})
	q := Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, Mode: ModeVector, RecencyDepth: -1}
	before := paths(runSearch(t, ix, q))
	ix.Close() // drop the mapping, as a new process would start
	p := filepath.Join(ws.IndexDir("beacon"), vectorsFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	after := paths(runSearch(t, ix, q))
	if strings.Join(before, ",") != strings.Join(after, ",") {
		t.Errorf("after damaging vectors: %v, want %v", after, before)
	}
	if !strings.Contains(warn.String(), "vectors") {
		t.Errorf("warnings %q, want a notice about the vectors", warn)
	}
	// Every chunk has its vector back: a search for each file finds it
	// by vector.
	for _, want := range []string{"beacon/memory/project_bulk_lookup.md", "beacon/WISDOM.md", "beacon/memory/feedback_cafe_meetings.md"} {
		got := paths(runSearch(t, ix, Query{Text: "zzz " + want, Teammates: []string{"beacon"}, Mode: ModeVector, K: 50, RecencyDepth: -1}))
		if !contains(got, want) {
			t.Errorf("vector search does not reach %s after the repair: %v", want, got)
		}
	}
}

// flakyEmbedder fails while broken is set.
type flakyEmbedder struct {
	countingEmbedder
	broken bool
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.broken {
		return nil, errors.New("model crashed")
	}
	return f.countingEmbedder.Embed(ctx, texts)
}

func TestEmbedderFailures(t *testing.T) {
	ws := newWorkspace(t, "ws")
	emb := &flakyEmbedder{broken: true}
	ix, warn := openIndex(t, ws, Options{Embedder: emb})
	ctx := context.Background()
	q := Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, RecencyDepth: -1}

	t.Run("sync keeps BM25 when the model fails", func(t *testing.T) {
		if _, err := ix.Sync(ctx, []string{"beacon"}); err != nil {
			t.Fatalf("sync failed with the model: %v", err)
		}
		if !strings.Contains(warn.String(), "model crashed") {
			t.Errorf("warnings %q, want the embedder's error", warn)
		}
	})
	t.Run("hybrid search falls back to BM25", func(t *testing.T) {
		hits := runSearch(t, ix, q)
		if len(hits) == 0 || hits[0].Path != "beacon/memory/project_bulk_lookup.md" {
			t.Errorf("hits %v", paths(hits))
		}
	})
	t.Run("vector search reports the failure", func(t *testing.T) {
		vq := q
		vq.Mode = ModeVector
		if _, err := ix.Search(ctx, vq); err == nil {
			t.Error("vector search with a broken model succeeded")
		}
	})
	t.Run("the next sync embeds what is missing", func(t *testing.T) {
		emb.broken = false
		st, err := ix.Sync(ctx, []string{"beacon"})
		if err != nil {
			t.Fatal(err)
		}
		if st.Embedded == 0 || len(st.Rebuilt) != 0 {
			t.Errorf("sync after the model recovered: %+v", st)
		}
		vq := q
		vq.Mode = ModeVector
		if hits := runSearch(t, ix, vq); len(hits) == 0 || hits[0].Vector <= 0 {
			t.Errorf("vector hits after recovery: %+v", hits)
		}
	})
}

// TestCopiesShownOnce: a line a weekly summary copied from its daily is
// one hit; the same line on another day, and a typed memory saying it
// too, are hits of their own.
func TestCopiesShownOnce(t *testing.T) {
	const line = "- Rotated the staging database password\n"
	ws := exactWorkspace(t, map[string]string{
		"2026-03-03.md":                 "# 2026-03-03\n\n## Ops\n" + line,
		"2026-03-10.md":                 "# 2026-03-10\n\n## Ops\n" + line,
		"weekly/2026-W10.md":            "---\ntype: weekly\nweek: 2026-W10\nteammate: beacon\nperiod: 2026-03-02 to 2026-03-08\n---\n## 2026-03-03\n" + line,
		"project_staging_password.md":   "---\nname: Staging password\ndescription: rotated by hand\ntype: project\n---\n" + line,
		"2026-03-04.md":                 "# 2026-03-04\n\n## Ops\n- Rotated the production database password\n",
		"reference_rotation_runbook.md": "---\nname: Rotation runbook\ntype: reference\n---\nThe runbook for rotating passwords.\n",
	})
	ix, _ := openIndex(t, ws, Options{Now: func() time.Time { return time.Date(2026, 4, 20, 12, 0, 0, 0, time.UTC) }})
	hits := runSearch(t, ix, Query{Text: "rotated staging database password", Teammates: []string{"beacon"}, Mode: ModeBM25, RecencyDepth: -1})
	got := map[string]int{}
	for _, h := range hits {
		if strings.Contains(h.Text, strings.TrimSpace(line)) {
			got[h.Path]++
		}
	}
	copies := got["beacon/memory/2026-03-03.md"] + got["beacon/memory/weekly/2026-W10.md"]
	if copies != 1 || got["beacon/memory/2026-03-10.md"] != 1 || got["beacon/memory/project_staging_password.md"] != 1 {
		t.Errorf("hits holding the line, by file: %v; want one of the daily of 2026-03-03 and its weekly copy, "+
			"the daily of 2026-03-10 and the typed memory once each", got)
	}
}

// successorEmbedder is a countingEmbedder that took over from the embedder
// with identity prev, whose vectors are its own but for texts holding
// "tripwire".
type successorEmbedder struct {
	countingEmbedder
	prev string
}

func (s *successorEmbedder) Succeeds(prev string) (func(string) bool, bool) {
	if prev != s.prev {
		return nil, false
	}
	return func(text string) bool { return strings.Contains(text, "tripwire") }, true
}

func TestSuccessorReembedsOnlyWhatDiffers(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name      string
		prev      string // what the successor says it succeeds
		wantOnly  bool   // only the tripwire texts are embedded again
		wantTexts int    // at least this many texts embedded
	}{
		{"it succeeds the stored vectors' embedder", "model-v1", true, 1},
		{"it succeeds another embedder", "model-v0", false, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			writeFile(t, ws, "beacon/memory/2026-09-15.md", "# 2026-09-15\n\n## Alarm\n\nThe tripwire alarm fired twice on the loading dock.\n")
			v1 := &countingEmbedder{id: "model-v1"}
			ix1, _ := openIndex(t, ws, Options{Embedder: v1})
			if _, err := ix1.Sync(ctx, []string{"beacon"}); err != nil {
				t.Fatal(err)
			}
			all := v1.reset()
			ix1.Close()

			v2 := &successorEmbedder{countingEmbedder: countingEmbedder{id: "model-v2"}, prev: tt.prev}
			ix2, _ := openIndex(t, ws, Options{Embedder: v2})
			st, err := ix2.Sync(ctx, []string{"beacon"})
			if err != nil {
				t.Fatal(err)
			}
			texts := v2.texts
			if len(texts) < tt.wantTexts {
				t.Fatalf("embedded %d texts (%+v), want at least %d", len(texts), st, tt.wantTexts)
			}
			for _, text := range texts {
				if tt.wantOnly && !strings.Contains(text, "tripwire") {
					t.Errorf("embedded again a text both embed alike: %q", text)
				}
			}
			if tt.wantOnly && st.Cached+len(texts) < all {
				t.Errorf("%d cached + %d embedded of %d texts: vectors were lost (%+v)", st.Cached, len(texts), all, st)
			}
			if !tt.wantOnly && (st.Cached != 0 || len(texts) < all) {
				t.Errorf("a successor of another embedder kept %d vectors, embedded %d of %d", st.Cached, len(texts), all)
			}
			vs, err := readVectors(filepath.Join(ws.IndexDir("beacon"), vectorsFile))
			if err != nil {
				t.Fatal(err)
			}
			if vs.identity != "model-v2" {
				t.Errorf("vectors stored as %q, want model-v2", vs.identity)
			}
			hits := runSearch(t, ix2, Query{Text: "tripwire alarm loading dock", Teammates: []string{"beacon"}, Mode: ModeVector, NoSync: true})
			if len(hits) == 0 || !strings.HasSuffix(hits[0].Path, "2026-09-15.md") {
				t.Errorf("vector search after the upgrade: %+v", hits)
			}
		})
	}
}

func TestQueryTextBounded(t *testing.T) {
	words := strings.Repeat("carrier lookup ", MaxQueryBytes/10)
	for _, tt := range []struct {
		name, in string
		want     string // a prefix the result must equal, "" for the whole input trimmed
	}{
		{"short, trimmed", "  bulk container lookup \n", "bulk container lookup"},
		{"long, cut at a space", words, ""},
		{"long, one word of multi-byte characters", strings.Repeat("é", MaxQueryBytes), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := queryText(tt.in)
			switch {
			case len(got) > MaxQueryBytes || !utf8.ValidString(got):
				t.Errorf("queryText gave %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			case !strings.HasPrefix(strings.TrimSpace(tt.in), got):
				t.Errorf("queryText is not a prefix of the trimmed input")
			case tt.want != "" && got != tt.want:
				t.Errorf("queryText = %q, want %q", got, tt.want)
			case len(tt.in) > MaxQueryBytes && len(got) < MaxQueryBytes/2:
				t.Errorf("queryText kept only %d bytes", len(got))
			case strings.HasSuffix(tt.name, "at a space") && !strings.HasSuffix(got, "carrier") && !strings.HasSuffix(got, "lookup"):
				t.Errorf("queryText cut a word: ...%q", got[len(got)-10:])
			}
		})
	}
}
