package recall

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
)

// TestConcurrentSearches shares one Index between goroutines that search
// (synced and not), sync and edit files at once; under -race it checks
// that the Index holds no unguarded state, and each answer must be the
// one a lone search gives.
func TestConcurrentSearches(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"bm25 only", Options{}},
		{"with vectors", Options{Embedder: hashembed.Embedder{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			q := Query{Text: "bulk container lookup", Teammates: []string{"beacon", "quill"}, RecencyDepth: -1}
			first, _ := openIndex(t, ws, tt.opts)
			want := runSearch(t, first, q)
			ix, warn := openIndex(t, ws, tt.opts) // fresh: its notices not yet given
			if len(want) == 0 {
				t.Fatal("no hits to compare with")
			}
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for g := 0; g < 6; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 8; i++ {
						q := q
						q.NoSync = (g+i)%2 == 0
						hits, err := ix.Search(context.Background(), q)
						if err != nil {
							errs <- err
							return
						}
						if len(hits) == 0 || hits[0].Path != want[0].Path {
							errs <- fmt.Errorf("goroutine %d search %d: top hit %v, want %s", g, i, paths(hits), want[0].Path)
							return
						}
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 4; i++ {
					writeFile(t, ws, fmt.Sprintf("quill/memory/user_note_%d.md", i),
						fmt.Sprintf("---\nname: note %d\ndescription: d\ntype: user\n---\n\nunrelated words %d\n", i, i))
					if _, err := ix.Sync(context.Background(), []string{"quill"}); err != nil {
						errs <- err
						return
					}
				}
			}()
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if tt.opts.Embedder == nil {
				if n := strings.Count(warn.String(), "BM25 only"); n != 1 {
					t.Errorf("BM25-only notice given %d times, want once", n)
				}
			}
		})
	}
}
