package serve

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/hashembed"
)

// TestBacklogBesideSearches serves a workspace whose index was never
// embedded: searches answer by BM25 at once, flagging every hit, and go
// on answering while the background worker is held in the middle of
// embedding; once it is let go, hits carry vectors.
func TestBacklogBesideSearches(t *testing.T) {
	const query = "bulk container lookup"
	task := "Why did the ETA rollover test fail on CI?"
	ctx := context.Background()
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	g := hashembed.NewGated(query, task)
	now := func() time.Time { return time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC) }
	ix, err := recall.Open(ws, recall.Options{Embedder: g, Now: now, SyncEmbed: 1, SyncLeavesBacklog: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	svc, err := New(Options{Workspace: ws, Index: ix, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	in := SearchInput{Query: query, Teammates: []string{"beacon"}}

	// No worker yet: an embedding asked for now could only be the search's.
	done := make(chan SearchOutput, 1)
	go func() {
		out, err := svc.Search(ctx, in)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	var first SearchOutput
	select {
	case first = <-done:
	case <-g.Started:
		g.Open()
		<-done
		t.Fatal("the search waited for chunk embeddings")
	}
	checkVectors(t, "before the worker", first, false)
	if text := renderSearch(first); !strings.Contains(text, "no vector yet") {
		t.Errorf("the text rendering does not say which hits have no vector:\n%s", text)
	}

	svc.EmbedInBackground()
	<-g.Started // the worker is embedding, and stays there until the gate opens
	for i := 0; i < 3; i++ {
		out, err := svc.Search(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		checkVectors(t, "while the worker embeds", out, false)
		if _, err := svc.Context(ctx, ContextInput{Teammate: "beacon", Task: task}); err != nil {
			t.Fatal(err)
		}
	}
	g.Open()
	svc.backlog.wait()

	after, err := svc.Search(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, "after the worker", after, true)
}

// checkVectors checks that the hits all have vectors, or none has.
func checkVectors(t *testing.T, when string, out SearchOutput, want bool) {
	t.Helper()
	if len(out.Hits) == 0 || out.Hits[0].Path != "beacon/memory/project_bulk_lookup.md" {
		t.Fatalf("%s: hits %+v", when, out.Hits)
	}
	for _, h := range out.Hits {
		if h.NoVector == want || (h.Vector != 0) != want {
			t.Errorf("%s: %s no_vector %v vector %.3f, want vectors %v", when, h.Ref, h.NoVector, h.Vector, want)
		}
	}
}
