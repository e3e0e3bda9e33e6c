package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

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

// TestLockWaitIsBounded: an index another process holds (a stopped tmem
// index, say) makes a search wait, say so, and give up with ErrLocked
// after the lock timeout; once the holder lets go, searches work again.
func TestLockWaitIsBounded(t *testing.T) {
	ws := syncedWorkspace(t, false)
	holder := flock.New(ws.Abs(".tmp/locks/index-beacon.lock"))
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	ix, warn := openIndex(t, ws, Options{LockTimeout: 300 * time.Millisecond})
	for _, noSync := range []bool{false, true} {
		_, err := ix.Search(context.Background(), Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, NoSync: noSync})
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "lock index of beacon") {
			t.Errorf("search (no sync %v) of a held index: %v, want ErrLocked", noSync, err)
		}
	}
	if !strings.Contains(warn.String(), "waiting for the index of beacon") {
		t.Errorf("no notice of the wait: %q", warn.String())
	}
	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	if hits := runSearch(t, ix, Query{Text: "bulk container lookup", Teammates: []string{"beacon"}}); len(hits) == 0 {
		t.Error("no hits once the lock was let go")
	}
}

// TestLockWaitSharedByScopes takes a scope's lock when the search's wait
// is already spent on the scopes before it: one try, no notice, and the
// error names the search's whole wait.
func TestLockWaitSharedByScopes(t *testing.T) {
	ws := syncedWorkspace(t, false)
	holder := flock.New(ws.Abs(".tmp/locks/index-beacon.lock"))
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	ix, warn := openIndex(t, ws, Options{LockTimeout: 30 * time.Second})
	spent := lockWait{by: time.Now().Add(-time.Second), of: 300 * time.Millisecond}
	_, err := ix.lockScope(context.Background(), "beacon", false, spent)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "gave up after 300ms") {
		t.Errorf("lock with the wait spent: %v, want ErrLocked after the search's 300ms", err)
	}
	if strings.Contains(warn.String(), "waiting for") {
		t.Errorf("a single try told of a wait: %q", warn.String())
	}
	_, err = ix.Search(context.Background(), Query{Text: "bulk", Teammates: []string{"beacon"}, LockWait: time.Nanosecond})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "gave up without waiting") || strings.Contains(warn.String(), "waiting for") {
		t.Errorf("a search of one try: %v, notices %q", err, warn.String())
	}
}
