package recall

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
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

func (o *openCounter) open() (Embedder, error) {
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
			ws := newWorkspace(t, "ws")
			first := Options{}
			if tt.vectors {
				first.Embedder = hashembed.Embedder{}
			}
			ix, _ := openIndex(t, ws, first)
			if _, err := ix.Sync(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
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
		l := NewLazyEmbedder("other-model", func() (Embedder, error) { return cc, nil })
		if _, err := l.Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "expected other-model") {
			t.Errorf("Embed: %v", err)
		}
		if cc.closes != 1 {
			t.Errorf("%d closes", cc.closes)
		}
	})
	t.Run("close closes an opened model only", func(t *testing.T) {
		cc := &closeCounter{}
		l := NewLazyEmbedder(id, func() (Embedder, error) { return cc, nil })
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

func TestSearchTrace(t *testing.T) {
	ws := newWorkspace(t, "ws")
	var events []string
	trace := func(phase string) func() {
		events = append(events, phase)
		return func() { events = append(events, "/"+phase) }
	}
	ix, _ := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}, Trace: trace})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	runSearch(t, ix, Query{Text: "bulk lookup", Teammates: []string{"beacon"}})
	if got, want := strings.Join(events, ","), "index,/index,embed,/embed,search,/search"; got != want {
		t.Errorf("phases %s, want %s", got, want)
	}
}

// embedCounter is a hashembed model that counts the texts it embeds.
type embedCounter struct {
	hashembed.Embedder
	texts atomic.Int32
}

func (c *embedCounter) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts.Add(int32(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

func TestLazyEmbedderPrefetch(t *testing.T) {
	id := hashembed.Embedder{}.Identity()
	ctx := context.Background()
	want, _ := hashembed.Embedder{}.Embed(ctx, []string{"bulk lookup", "other"})
	tests := []struct {
		name      string
		run       func(t *testing.T, l *LazyEmbedder)
		wantTexts int32 // texts the model embedded
	}{
		{"the same texts come from the prefetch", func(t *testing.T, l *LazyEmbedder) {
			l.Prefetch([]string{"bulk lookup"})
			checkVectors(t, l, []string{"bulk lookup"}, want[:1])
		}, 1},
		{"other texts are embedded anew", func(t *testing.T, l *LazyEmbedder) {
			l.Prefetch([]string{"bulk lookup"})
			checkVectors(t, l, []string{"other"}, want[1:])
			checkVectors(t, l, []string{"bulk lookup"}, want[:1])
		}, 2},
		{"a prefetch is taken once", func(t *testing.T, l *LazyEmbedder) {
			l.Prefetch([]string{"bulk lookup"})
			checkVectors(t, l, []string{"bulk lookup"}, want[:1])
			checkVectors(t, l, []string{"bulk lookup"}, want[:1])
		}, 2},
		{"no prefetch once the model is open", func(t *testing.T, l *LazyEmbedder) {
			checkVectors(t, l, []string{"other"}, want[1:])
			l.Prefetch([]string{"bulk lookup"})
			checkVectors(t, l, []string{"bulk lookup"}, want[:1])
		}, 2},
		{"empty prefetch does nothing", func(t *testing.T, l *LazyEmbedder) {
			l.Prefetch(nil)
			if l.Opened() {
				t.Error("an empty prefetch opened the model")
			}
		}, 0},
		{"close waits for the prefetch and closes the model", func(t *testing.T, l *LazyEmbedder) {
			l.Prefetch([]string{"bulk lookup"})
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &embedCounter{}
			cc := &closeCounter{}
			l := NewLazyEmbedder(id, func() (Embedder, error) {
				return struct {
					Embedder
					io.Closer
				}{m, cc}, nil
			})
			tt.run(t, l)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if got := m.texts.Load(); got != tt.wantTexts {
				t.Errorf("the model embedded %d texts, want %d", got, tt.wantTexts)
			}
			if wantClosed := tt.wantTexts > 0; (cc.closes > 0) != wantClosed {
				t.Errorf("model closed %d times, want closed: %v", cc.closes, wantClosed)
			}
		})
	}
	t.Run("a failed open fails the prefetched embed", func(t *testing.T) {
		oc := &openCounter{refuse: true}
		l := NewLazyEmbedder(id, oc.open)
		l.Prefetch([]string{"x"})
		for range 2 {
			if _, err := l.Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "open embedding model: the model was opened") {
				t.Errorf("Embed: %v", err)
			}
		}
		if n := oc.opens.Load(); n != 1 {
			t.Errorf("%d opens", n)
		}
	})
}

func checkVectors(t *testing.T, l *LazyEmbedder, texts []string, want [][]float32) {
	t.Helper()
	got, err := l.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d vectors, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("vector %d of %q differs from the model's", i, texts[i])
		}
	}
}

// TestPrefetchQuery: the query a search embeds is the one PrefetchQuery
// prefetched, so the search embeds nothing more; a blank query prefetches
// nothing.
func TestPrefetchQuery(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, prefetch string
		wantTexts      int32
		wantOpened     bool
	}{
		{"search for the prefetched query", "  bulk lookup\n", 1, true},
		{"blank query", " \n", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &embedCounter{}
			lazy := NewLazyEmbedder(m.Identity(), func() (Embedder, error) { return m, nil })
			ix, _ := openIndex(t, ws, Options{Embedder: lazy})
			ix.PrefetchQuery(tt.prefetch)
			if lazy.Opened() != tt.wantOpened {
				t.Errorf("Opened() = %v after the prefetch, want %v", lazy.Opened(), tt.wantOpened)
			}
			hits := runSearch(t, ix, Query{Text: "bulk lookup", Teammates: []string{"beacon"}})
			if len(hits) == 0 || !contains(hits[0].Reason, "vector") {
				t.Errorf("hits %+v, want a vector hit first", hits)
			}
			if got := m.texts.Load(); got != tt.wantTexts {
				t.Errorf("the model embedded %d texts, want %d", got, tt.wantTexts)
			}
		})
	}
}
