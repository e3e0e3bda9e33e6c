package recall

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall/hashembed"
)

// finishes runs f and fails the test when the embedder is asked for
// chunk vectors before f returns: f must not wait for it.
func finishes[T any](t *testing.T, g *hashembed.Gated, what string, f func() (T, error)) T {
	t.Helper()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("%s: %v", what, r.err)
		}
		return r.v
	case <-g.Started:
		g.Open() // let f finish before failing
		<-done
		t.Fatalf("%s waited for chunk embeddings", what)
	}
	var zero T
	return zero
}

// sameHits fails when two searches' hits differ in files, lines, scores
// or vector flags.
func sameHits(t *testing.T, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d hits %v, want %d %v", len(got), paths(got), len(want), paths(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Path != w.Path || g.StartLine != w.StartLine || g.NoVector != w.NoVector ||
			math.Abs(g.Score-w.Score) > 1e-9 || math.Abs(g.Vector-w.Vector) > 1e-9 {
			t.Errorf("hit %d: %s:%d score %.6f vector %.6f novec %v; want %s:%d %.6f %.6f %v",
				i, g.Path, g.StartLine, g.Score, g.Vector, g.NoVector, w.Path, w.StartLine, w.Score, w.Vector, w.NoVector)
		}
	}
}

// freshHits answers q on a copy of ws indexed from scratch with every
// chunk embedded in the sync: what a finished backlog must come to.
func freshHits(t *testing.T, ws *layout.Workspace, q Query) []Hit {
	t.Helper()
	ix, _ := openIndex(t, layouttest.Copy(t, ws.Root), Options{Embedder: hashembed.Embedder{}})
	return runSearch(t, ix, q)
}

// bigWorkspace is the fixture with every scope more than one chunk: a
// first sync with SyncEmbed 1 is a big change in each.
func bigWorkspace(t *testing.T) *layout.Workspace {
	t.Helper()
	ws := newWorkspace(t, "ws")
	writeFile(t, ws, "quill/memory/feedback_map_colours.md", "---\nname: Map colours\ndescription: colours of the vessels map\ntype: feedback\n---\n\nUse the brand palette for vessel markers.\n")
	writeFile(t, ws, "CROSS-TEAM.md", "# Cross-team notes\n\n## Release freeze\n\nThe whole team freezes releases during the Kestrel Freight demo week.\n\n## Map tiles\n\nThe vessels map reads tiles from the shared cache.\n")
	return ws
}

func TestBigChangeAnswersWithBM25(t *testing.T) {
	const query = "bulk container lookup"
	ws := bigWorkspace(t)
	g := hashembed.NewGated(query)
	ix, _ := openIndex(t, ws, Options{Embedder: g, SyncEmbed: 1, SyncLeavesBacklog: true})
	ctx := context.Background()
	q := Query{Text: query, Teammates: []string{"beacon", "quill"}}

	st := finishes(t, g, "the first sync", func() (SyncStats, error) { return ix.Sync(ctx, nil) })
	if st.Embedded != 0 || st.Backlog != st.Chunks || st.Chunks == 0 {
		t.Fatalf("first sync %+v: want every chunk indexed and left to the backlog", st)
	}
	hits := finishes(t, g, "a search", func() ([]Hit, error) { return ix.Search(ctx, q) })
	if len(hits) == 0 || hits[0].Path != "beacon/memory/project_bulk_lookup.md" {
		t.Fatalf("BM25 answer %v", paths(hits))
	}
	for _, h := range hits {
		if !h.NoVector || h.Vector != 0 {
			t.Errorf("%s: no_vector %v, vector score %f; nothing is embedded yet", h.Path, h.NoVector, h.Vector)
		}
	}

	type result struct {
		st  BacklogStats
		err error
	}
	worker := make(chan result, 1)
	go func() {
		st, err := ix.EmbedBacklog(ctx, nil, BacklogOptions{Batch: 2, Step: 8})
		worker <- result{st, err}
	}()
	<-g.Started // the worker is embedding, and will until the gate opens
	during := runSearch(t, ix, q)
	sameHits(t, during, hits)
	g.Open()
	r := <-worker
	if r.err != nil || r.st.Left != 0 || r.st.Embedded == 0 {
		t.Fatalf("EmbedBacklog: %+v, %v", r.st, r.err)
	}

	after := runSearch(t, ix, q)
	for _, h := range after {
		if h.NoVector {
			t.Errorf("%s still has no vector", h.Path)
		}
	}
	if len(after) == 0 || after[0].Vector == 0 {
		t.Errorf("the top hit has no vector score: %+v", after)
	}
	sameHits(t, after, freshHits(t, ws, q))
	if st, err := ix.Sync(ctx, nil); err != nil || st.Backlog != 0 || st.Embedded != 0 {
		t.Errorf("sync after the backlog: %+v, %v", st, err)
	}
}

// addNotes writes n typed memories about a topic into quill's memory.
func addNotes(t *testing.T, ws *layout.Workspace, topic string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		writeFile(t, ws, fmt.Sprintf("quill/memory/reference_%s_%d.md", topic, i),
			fmt.Sprintf("---\nname: %s note %d\ndescription: about %s\ntype: reference\n---\n\nThe %s gauge reads %d on the %s dial.\n", topic, i, topic, topic, i, topic))
	}
}

func TestSyncEmbedBound(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name        string
		leave       bool
		added       int
		wantInline  bool
		wantDrained int // chunks each later sync embeds
	}{
		{"small change embedded at once", false, 2, true, 0},
		{"big change drained by later syncs", false, 7, false, 3},
		{"big change left to EmbedBacklog", true, 7, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			emb := &countingEmbedder{}
			ix, _ := openIndex(t, ws, Options{Embedder: emb, SyncEmbed: 3, SyncLeavesBacklog: tt.leave})
			if _, err := ix.Sync(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.EmbedBacklog(ctx, nil, BacklogOptions{}); err != nil {
				t.Fatal(err)
			}
			emb.reset()
			addNotes(t, ws, "torque", tt.added)
			st, err := ix.Sync(ctx, []string{"quill"})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantInline {
				if st.Embedded != tt.added || st.Backlog != 0 {
					t.Fatalf("sync %+v: want the %d new chunks embedded", st, tt.added)
				}
			} else if st.Embedded != 0 || st.Backlog != tt.added {
				t.Fatalf("sync %+v: want the %d new chunks left to the backlog", st, tt.added)
			}
			q := Query{Text: "torque gauge dial", Teammates: []string{"quill"}, K: 20, RecencyDepth: -1}
			flagged := 0
			for _, h := range runSearch(t, ix, Query{Text: q.Text, Teammates: q.Teammates, K: q.K, RecencyDepth: -1, NoSync: true}) {
				if h.NoVector {
					flagged++
				}
			}
			if flagged != st.Backlog {
				t.Errorf("%d hits flagged without vector, want %d (one per new note)", flagged, st.Backlog)
			}
			left := st.Backlog
			for left > 0 && tt.wantDrained > 0 {
				st, err := ix.Sync(ctx, []string{"quill"})
				if err != nil {
					t.Fatal(err)
				}
				if want := min(left, tt.wantDrained); st.Embedded != want || st.Backlog != left-want {
					t.Fatalf("later sync %+v: want %d embedded, %d left", st, want, left-want)
				}
				left = st.Backlog
			}
			if tt.leave {
				if st, _ := ix.Sync(ctx, []string{"quill"}); st.Embedded != 0 || st.Backlog != left {
					t.Errorf("a sync that leaves the backlog embedded: %+v", st)
				}
				bs, err := ix.EmbedBacklog(ctx, []string{"quill"}, BacklogOptions{})
				if err != nil || bs.Embedded != left || bs.Left != 0 {
					t.Fatalf("EmbedBacklog %+v, %v: want %d embedded", bs, err, left)
				}
			}
			if n := chunkTexts(emb, q.Text); n != tt.added {
				t.Errorf("%d texts embedded in all, want %d: each new chunk once", n, tt.added)
			}
			sameHits(t, runSearch(t, ix, q), freshHits(t, ws, q))
		})
	}
}

// chunkTexts counts the texts the embedder was given other than the query.
func chunkTexts(c *countingEmbedder, query string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.texts {
		if t != query {
			n++
		}
	}
	return n
}

// TestBacklogSkipsChangedFiles edits a file while its backlog chunks are
// being embedded: their vectors, made from the old text, must not be
// stored for the new one.
func TestBacklogSkipsChangedFiles(t *testing.T) {
	ctx := context.Background()
	ws := bigWorkspace(t)
	full, _ := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}})
	if _, err := full.Sync(ctx, nil); err != nil { // everything embedded: only quill's new notes will wait
		t.Fatal(err)
	}
	g := hashembed.NewGated()
	ix, _ := openIndex(t, ws, Options{Embedder: g, SyncEmbed: 1, SyncLeavesBacklog: true})
	addNotes(t, ws, "valve", 3)
	finishes(t, g, "the sync of the new notes", func() (SyncStats, error) { return ix.Sync(ctx, nil) })

	worker := make(chan error, 1)
	go func() {
		_, err := ix.EmbedBacklog(ctx, nil, BacklogOptions{Step: 1 << 20})
		worker <- err
	}()
	<-g.Started
	writeFile(t, ws, "quill/memory/reference_valve_1.md",
		"---\nname: valve note 1\ndescription: about valve\ntype: reference\n---\n\n## Sluice\n\nThe valve was replaced by a sluice gate.\n\n## Gauge\n\nThe gauge moved to the dam.\n")
	// Two chunks changed, more than SyncEmbed: the sync embeds none.
	finishes(t, g, "the sync of the edit", func() (SyncStats, error) { return ix.Sync(ctx, []string{"quill"}) })
	g.Open()
	if err := <-worker; err != nil {
		t.Fatal(err)
	}
	if bs, err := ix.EmbedBacklog(ctx, nil, BacklogOptions{}); err != nil || bs.Left != 0 {
		t.Fatalf("second pass %+v, %v", bs, err)
	}
	for _, mode := range []string{ModeVector, ModeHybrid} {
		t.Run(mode, func(t *testing.T) {
			q := Query{Text: "valve replaced by a sluice gate", Teammates: []string{"quill"}, Mode: mode, RecencyDepth: -1}
			sameHits(t, runSearch(t, ix, q), freshHits(t, ws, q))
		})
	}
}

// TestBacklogBesideSearches runs EmbedBacklog while goroutines search and
// a sync indexes new files; under -race it checks the paths the backlog
// adds, and the end state must be a fresh index's.
func TestBacklogBesideSearches(t *testing.T) {
	ctx := context.Background()
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}, SyncEmbed: 2, SyncLeavesBacklog: true, EmbedBatch: 3})
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	q := Query{Text: "release freeze map", RecencyDepth: -1}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 3; i++ {
			if _, err := ix.EmbedBacklog(ctx, nil, BacklogOptions{Batch: 3, Step: 5}); err != nil {
				errs <- err
			}
		}
	}()
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 6; i++ {
				if hits, err := ix.Search(ctx, Query{Text: q.Text, NoSync: i%2 == 0, RecencyDepth: -1}); err != nil || len(hits) == 0 {
					errs <- fmt.Errorf("search: %d hits, %v", len(hits), err)
				}
			}
		}()
	}
	addNotes(t, ws, "freeze", 5)
	if _, err := ix.Sync(ctx, []string{"quill"}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if bs, err := ix.EmbedBacklog(ctx, nil, BacklogOptions{}); err != nil || bs.Left != 0 {
		t.Fatalf("final pass %+v, %v", bs, err)
	}
	sameHits(t, runSearch(t, ix, q), freshHits(t, ws, q))
}
