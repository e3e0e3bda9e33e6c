package serve

import (
	"crypto/rand"
	"encoding/hex"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// A watcher hears of a change some time after the file was written: a
// search right after another process wrote a file could otherwise skip
// the sync it needs. Before a search trusts the watcher, it renames a
// barrier file in a watched folder to its next number and waits for the
// watcher to report the new name. The kernel queues a watcher's events in
// order, so by then every change made before the search began has been
// seen. A rename is one cheap metadata change; creating and deleting a
// file costs about twenty times as much on ext4. The files are renamed,
// created and removed through the workspace, like every other file tmem
// writes, so a link swapped in for their folder leads nowhere outside.

// barrierWait bounds the wait; past it the search syncs, which is
// always correct, only slower.
const barrierWait = time.Second

type barrier struct {
	ws     *layout.Workspace
	rel    string // the watched folder barrier files go in, in the workspace
	dir    string // the same, absolute, as the watcher names it; "" when there is none
	prefix string // "barrier-<random>-": this server's files, so that two servers never count each other's

	mu   sync.Mutex
	sent uint64        // number of the file as last renamed; its name is file(sent)
	seen uint64        // last number the watcher reported
	wake chan struct{} // closed and replaced whenever seen grows
}

const barrierPrefix = "barrier-"

// newBarrier returns a barrier whose files go in the workspace folder
// rel, removing the files servers that were killed left there.
func newBarrier(ws *layout.Workspace, rel string) *barrier {
	tag := make([]byte, 6)
	rand.Read(tag)
	b := &barrier{ws: ws, rel: rel, dir: ws.Abs(rel), prefix: barrierPrefix + hex.EncodeToString(tag) + "-", wake: make(chan struct{})}
	if ents, err := ws.ReadDir(rel); err == nil {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), barrierPrefix) {
				ws.Remove(path.Join(rel, e.Name()))
			}
		}
	}
	return b
}

// file is the workspace path of barrier file n.
func (b *barrier) file(n uint64) string {
	return path.Join(b.rel, b.prefix+strconv.FormatUint(n, 10))
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
	if err := b.ws.Rename(b.file(b.sent), b.file(n)); err != nil {
		if err := b.ws.WriteFile(b.file(n), nil); err != nil {
			return 0, false
		}
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
	b.ws.Remove(b.file(b.sent))
}
