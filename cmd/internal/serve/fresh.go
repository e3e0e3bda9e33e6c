package serve

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// freshness tracks whether the recall index can be searched without a
// sync: a watcher bumps a generation on every file change (and the
// service on its own writes), and a set of teammates synced at the
// current generation, on the same day, needs no sync. Without a watcher
// every search syncs.
type freshness struct {
	mu       sync.Mutex
	watching bool
	gen      uint64
	done     map[string]uint64 // key → generation + 1 it was synced at
}

func newFreshness() *freshness { return &freshness{done: map[string]uint64{}} }

// check returns the key of a search over teammates, the generation it
// would sync at, and whether it may skip the sync. The day is part of the
// key: a daily leaving the recent window is indexed on the first search of
// a new day.
func (f *freshness) check(teammates []string, now time.Time) (key string, gen uint64, clean bool) {
	names := append([]string(nil), teammates...)
	sort.Strings(names)
	key = now.Format(layout.DateLayout) + "|" + strings.Join(names, ",")
	f.mu.Lock()
	defer f.mu.Unlock()
	return key, f.gen, f.watching && f.done[key] == f.gen+1
}

// synced records that a sync of key started at generation gen succeeded:
// changes after gen still count.
func (f *freshness) synced(key string, gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done[key] = gen + 1
}

// changed marks every index stale.
func (f *freshness) changed() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
}

// setWatching says whether a watcher reports changes; turning it off
// makes every search sync.
func (f *freshness) setWatching(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watching = on
	f.gen++
}
