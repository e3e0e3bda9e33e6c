package serve

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A watcher hears of a change some time after the file was written: a
// search right after another process wrote a file could otherwise skip
// the sync it needs. Before a search trusts the watcher, it renames a
// barrier file in a watched folder to its next number and waits for the
// watcher to report the new name. The kernel queues a watcher's events in
// order, so by then every change made before the search began has been
// seen. A rename is one cheap metadata change; creating and deleting a
// file costs about twenty times as much on ext4.

// barrierWait bounds the wait; past it the search syncs, which is
// always correct, only slower.
const barrierWait = time.Second

type barrier struct {
	dir    string // the watched folder barrier files go in; "" when there is none
	prefix string // "barrier-<random>-": this server's files, so that two servers never count each other's

	mu   sync.Mutex
	sent uint64        // number of the file as last renamed; its name is file(sent)
	seen uint64        // last number the watcher reported
	wake chan struct{} // closed and replaced whenever seen grows
}

const barrierPrefix = "barrier-"

// newBarrier returns a barrier whose files go in dir, removing the files
// servers that were killed left there.
func newBarrier(dir string) *barrier {
	tag := make([]byte, 6)
	rand.Read(tag)
	b := &barrier{dir: dir, prefix: barrierPrefix + hex.EncodeToString(tag) + "-", wake: make(chan struct{})}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), barrierPrefix) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	return b
}

func (b *barrier) file(n uint64) string {
	return filepath.Join(b.dir, b.prefix+strconv.FormatUint(n, 10))
}

// pass renames the barrier file to its next number and waits until the
// watcher reports it; false means the search must not trust the watcher.
func (b *barrier) pass() bool {
	if b == nil || b.dir == "" {
		return false
	}
	n, ok := b.send()
	if !ok {
		return false
	}
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

// send moves the barrier file to the next number (creating it when it is
// missing: the first time, or after someone removed it) and returns that
// number. Renames are made one at a time, in the order of their numbers.
func (b *barrier) send() (uint64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.sent + 1
	if err := os.Rename(b.file(b.sent), b.file(n)); err != nil {
		f, err := os.OpenFile(b.file(n), os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return 0, false
		}
		f.Close()
	}
	b.sent = n
	return n, true
}

// heard takes a watcher event for a file created or renamed into place:
// this server's barrier file n appearing means every change before it
// has been reported. It returns false for events about other files.
func (b *barrier) heard(name string) bool {
	if b == nil || b.dir == "" || filepath.Dir(name) != b.dir {
		return false
	}
	rest, ours := strings.CutPrefix(filepath.Base(name), b.prefix)
	n, err := strconv.ParseUint(rest, 10, 64)
	if !ours || err != nil {
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

// close removes the barrier file.
func (b *barrier) close() {
	if b == nil || b.dir == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	os.Remove(b.file(b.sent))
}
