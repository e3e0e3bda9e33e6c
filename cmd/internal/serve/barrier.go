package serve

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A watcher hears of a change some time after the file was written: a
// search right after another process wrote a file could otherwise skip
// the sync it needs. Before a search trusts the watcher, it writes a
// barrier file in a watched folder and waits for the watcher to report
// it. The kernel queues a watcher's events in order, so by then every
// change made before the search began has been seen.

// barrierWait bounds the wait; past it the search syncs, which is
// always correct, only slower.
const barrierWait = time.Second

type barrier struct {
	dir string // the watched folder barrier files go in; "" when there is none

	mu   sync.Mutex
	sent uint64        // last number written
	seen uint64        // last number the watcher reported
	wake chan struct{} // closed and replaced whenever seen grows
}

const barrierPrefix = "barrier-"

func newBarrier(dir string) *barrier { return &barrier{dir: dir, wake: make(chan struct{})} }

// pass creates the next numbered barrier file and waits until the
// watcher reports it; false means the search must not trust the watcher.
func (b *barrier) pass() bool {
	if b == nil || b.dir == "" {
		return false
	}
	b.mu.Lock()
	b.sent++
	n := b.sent
	b.mu.Unlock()
	name := filepath.Join(b.dir, barrierPrefix+strconv.FormatUint(n, 10))
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	defer os.Remove(name)
	timeout := time.After(barrierWait)
	for {
		b.mu.Lock()
		seen, wake := b.seen, b.wake
		b.mu.Unlock()
		if seen >= n {
			return true
		}
		select {
		case <-wake:
		case <-timeout:
			return false
		}
	}
}

// heard takes a watcher event: the creation of barrier file n means
// every change before it has been reported. It returns false for events
// about other files.
func (b *barrier) heard(name string) bool {
	if b == nil || b.dir == "" || filepath.Dir(name) != b.dir {
		return false
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(filepath.Base(name), barrierPrefix), 10, 64)
	if err != nil {
		return true // something else in the barrier folder: not memory
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.seen {
		b.seen = n
		close(b.wake)
		b.wake = make(chan struct{})
	}
	return true
}
