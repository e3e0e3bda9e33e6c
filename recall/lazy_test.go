package recall

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
)

// openCounter opens a hashembed model and counts the opens; with refuse
// set it fails instead, as a model that must not be touched.
type openCounter struct {
	opens  atomic.Int32
	refuse bool
}

func (o *openCounter) open(context.Context) (Embedder, error) {
	o.opens.Add(1)
	if o.refuse {
		return nil, errors.New("the model was opened")
	}
	return hashembed.Embedder{}, nil
}

// TestLazyEmbedderOpensOnlyWhenNeeded runs each step on an index whose
// vectors are current and checks how often the model was opened: never
// for a sync that finds nothing changed or a BM25-only search, once for any
// number of hybrid searches and for a sync that has chunks to embed.
func TestLazyEmbedderOpensOnlyWhenNeeded(t *testing.T) {
	id := hashembed.Embedder{}.Identity()
	tests := []struct {
		name      string
		vectors   bool // the index was synced with the embedder first
		step      func(t *testing.T, ix *Index, ws string)
		wantOpens int32
	}{
		{"no-change sync", true, func(t *testing.T, ix *Index, _ string) {
			st, err := ix.Sync(context.Background(), nil)
			if err != nil || st.Unchanged != st.Files || st.Embedded != 0 {
				t.Errorf("Sync = %+v, %v; want every file unchanged", st, err)
			}
		}, 0},
		{"BM25-only search", true, func(t *testing.T, ix *Index, _ string) {
			if hits := runSearch(t, ix, Query{Text: "bulk lookup", Teammates: []string{"beacon"}, Mode: ModeBM25}); len(hits) == 0 {
				t.Error("no hits")
			}
		}, 0},
		{"hybrid search of an index without vectors", false, func(t *testing.T, ix *Index, _ string) {
			if hits := runSearch(t, ix, Query{Text: "bulk lookup", Teammates: []string{"beacon"}, NoSync: true}); len(hits) == 0 {
				t.Error("no hits")
			}
		}, 0},
		{"two hybrid searches", true, func(t *testing.T, ix *Index, _ string) {
			for range 2 {
				hits := runSearch(t, ix, Query{Text: "bulk lookup", Teammates: []string{"beacon"}})
				if len(hits) == 0 || !contains(hits[0].Reason, "vector") {
					t.Errorf("hits %+v, want a vector hit first", hits)
				}
			}
		}, 1},
		{"sync after an edit", true, func(t *testing.T, ix *Index, ws string) {
			p := ws + "/beacon/memory/project_bulk_lookup.md"
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(b, "\nThe limit rises to 1,000 in March.\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := ix.Sync(context.Background(), nil)
			if err != nil || st.Embedded == 0 {
				t.Errorf("Sync = %+v, %v; want chunks embedded", st, err)
			}
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := syncedWorkspace(t, tt.vectors)
			oc := &openCounter{refuse: tt.wantOpens == 0}
			lazy := NewLazyEmbedder(id, oc.open)
			ix, warn := openIndex(t, ws, Options{Embedder: lazy})
			tt.step(t, ix, ws.Root)
			if got := oc.opens.Load(); got != tt.wantOpens {
				t.Errorf("model opened %d times, want %d", got, tt.wantOpens)
			}
			if lazy.Opened() != (tt.wantOpens > 0) {
				t.Errorf("Opened() = %v", lazy.Opened())
			}
			if strings.Contains(warn.String(), "opened") {
				t.Errorf("warnings: %s", warn)
			}
		})
	}
}

// closeCounter is an embedder that counts Close calls.
type closeCounter struct {
	hashembed.Embedder
	closes int
}

func (c *closeCounter) Close() error { c.closes++; return nil }

func TestLazyEmbedder(t *testing.T) {
	id := hashembed.Embedder{}.Identity()
	ctx := context.Background()
	t.Run("empty input opens nothing", func(t *testing.T) {
		oc := &openCounter{refuse: true}
		l := NewLazyEmbedder(id, oc.open)
		if vs, err := l.Embed(ctx, nil); err != nil || vs != nil || l.Identity() != id || oc.opens.Load() != 0 {
			t.Errorf("Embed(nil) = %v, %v; identity %q; %d opens", vs, err, l.Identity(), oc.opens.Load())
		}
	})
	t.Run("succeeds what it was told to, without opening", func(t *testing.T) {
		oc := &openCounter{refuse: true}
		var l Successor = NewLazyEmbedder(id, oc.open).Succeeding("model-v1", func(text string) bool { return text == "x" })
		differs, ok := l.Succeeds("model-v1")
		if !ok || !differs("x") || differs("y") {
			t.Errorf("Succeeds(model-v1) = %v", ok)
		}
		if _, ok := l.Succeeds("model-v0"); ok {
			t.Error("Succeeds(model-v0) = true, want false")
		}
		if _, ok := NewLazyEmbedder(id, oc.open).Succeeds(""); ok {
			t.Error("a LazyEmbedder told nothing succeeds the empty identity")
		}
		if n := oc.opens.Load(); n != 0 {
			t.Errorf("%d opens", n)
		}
	})
	t.Run("a failed open fails every embed, opened once", func(t *testing.T) {
		oc := &openCounter{refuse: true}
		l := NewLazyEmbedder(id, oc.open)
		for range 3 {
			if _, err := l.Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "open embedding model: the model was opened") {
				t.Errorf("Embed: %v", err)
			}
		}
		if n := oc.opens.Load(); n != 1 {
			t.Errorf("%d opens", n)
		}
	})
	t.Run("a model of another identity is refused and closed", func(t *testing.T) {
		cc := &closeCounter{}
		l := NewLazyEmbedder("other-model", func(context.Context) (Embedder, error) { return cc, nil })
		if _, err := l.Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "expected other-model") {
			t.Errorf("Embed: %v", err)
		}
		if cc.closes != 1 {
			t.Errorf("%d closes", cc.closes)
		}
	})
	t.Run("close closes an opened model only", func(t *testing.T) {
		cc := &closeCounter{}
		l := NewLazyEmbedder(id, func(context.Context) (Embedder, error) { return cc, nil })
		if err := l.Close(); err != nil || cc.closes != 0 {
			t.Errorf("Close before open: %v, %d closes", err, cc.closes)
		}
		vs, err := l.Embed(ctx, []string{"bulk lookup"})
		if err != nil || len(vs) != 1 || len(vs[0]) != hashembed.Dims {
			t.Fatalf("Embed = %d vectors, %v", len(vs), err)
		}
		if err := l.Close(); err != nil || cc.closes != 1 {
			t.Errorf("Close after open: %v, %d closes", err, cc.closes)
		}
	})
}

// TestSearchTrace: a hybrid search traces its phases in order, and the
// query embedded ahead on a goroutine of its own as "background embed".
func TestSearchTrace(t *testing.T) {
	ws := newWorkspace(t, "ws")
	var mu sync.Mutex
	events := map[bool][]string{} // by whether the phase ran in the background
	trace := func(phase string) func() {
		bg := strings.HasPrefix(phase, "background ")
		mu.Lock()
		defer mu.Unlock()
		events[bg] = append(events[bg], phase)
		return func() {
			mu.Lock()
			defer mu.Unlock()
			events[bg] = append(events[bg], "/"+phase)
		}
	}
	ix, _ := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}, Trace: trace})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	runSearch(t, ix, Query{Text: "bulk lookup", Teammates: []string{"beacon"}})
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(events[false], ","), "index,/index,embed,/embed,search,/search"; got != want {
		t.Errorf("phases %s, want %s", got, want)
	}
	if got, want := strings.Join(events[true], ","), "background embed,/background embed"; got != want {
		t.Errorf("background phases %s, want %s", got, want)
	}
}
