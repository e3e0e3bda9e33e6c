package recall

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tmemhq/tmem/recall/hashembed"
)

// TestPrepareQuery checks what a search embeds when its query was, or was
// not, embedded ahead: each query text once, never one whose search would
// not compare it with stored vectors, and the same hits as a search that
// embedded its query itself.
func TestPrepareQuery(t *testing.T) {
	const query = "bulk lookup"
	tests := []struct {
		name       string
		vectors    bool     // the index holds vectors from the embedder
		prepare    []string // texts prepared before the search
		wantAhead  int      // queries embedded ahead
		wantTexts  []string // what the embedder was given, sorted
		wantVector bool     // the first hit was found by its vector
	}{
		{"prepared, then searched", true, []string{query}, 1, []string{query}, true},
		{"searched without preparing", true, nil, 0, []string{query}, true},
		{"prepared twice", true, []string{query, " bulk lookup "}, 1, []string{query}, true},
		{"another text prepared", true, []string{"release freeze"}, 1, []string{query, "release freeze"}, true},
		{"an index without vectors", false, []string{query}, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := syncedWorkspace(t, tt.vectors)
			c := &countingEmbedder{}
			ix, _ := openIndex(t, ws, Options{Embedder: c})
			for _, p := range tt.prepare {
				ix.PrepareQuery(p, []string{"beacon"})
			}
			ix.pre.mu.Lock()
			ahead := len(ix.pre.m)
			ix.pre.mu.Unlock()
			if ahead != tt.wantAhead {
				t.Errorf("%d queries embedded ahead, want %d", ahead, tt.wantAhead)
			}
			hits := runSearch(t, ix, Query{Text: query, Teammates: []string{"beacon"}, NoSync: true})
			if len(hits) == 0 || contains(hits[0].Reason, "vector") != tt.wantVector {
				t.Fatalf("hits %+v; want a vector hit first: %v", hits, tt.wantVector)
			}
			ix.Close() // waits for what was embedded ahead
			got := slices.Clone(c.texts)
			slices.Sort(got)
			if !reflect.DeepEqual(got, tt.wantTexts) {
				t.Errorf("embedded %q, want %q", got, tt.wantTexts)
			}
			plain, _ := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}})
			if want := runSearch(t, plain, Query{Text: query, Teammates: []string{"beacon"}, NoSync: true}); fmt.Sprint(hitLines(hits)) != fmt.Sprint(hitLines(want)) {
				t.Errorf("hits %v, want those of a search that embedded its own query %v", hitLines(hits), hitLines(want))
			}
		})
	}
}

// TestPrepareQueryBounded: texts prepared and never searched for are
// bounded, and a search whose context ends while it waits for its query's
// vector returns that context's error instead of waiting on.
func TestPrepareQueryBounded(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	block := &blockingEmbedder{release: make(chan struct{})}
	ix, _ = openIndex(t, ws, Options{Embedder: block})
	for i := range 3 * maxPending {
		ix.PrepareQuery(fmt.Sprintf("question %d", i), nil)
	}
	ix.pre.mu.Lock()
	n := len(ix.pre.m)
	ix.pre.mu.Unlock()
	if n != maxPending {
		t.Errorf("%d queries pending, want at most %d", n, maxPending)
	}
	// The embedder never returns while the search waits for it: the
	// search ends with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := ix.Search(ctx, Query{Text: "question 3", NoSync: true})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Search = %v, want its context's deadline", err)
	}
	close(block.release)
	ix.Close()
}

// blockingEmbedder embeds once release is closed.
type blockingEmbedder struct {
	hashembed.Embedder
	release chan struct{}
}

func (b *blockingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	<-b.release
	return b.Embedder.Embed(ctx, texts)
}
