package layout

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sync/semaphore"
)

// A lock file's flock keeps other processes out, but the calls of one
// process (a server answering several at once) would meet only there too:
// each waiting call polls, none is first in line, a writer can wait for
// ever behind readers that keep overlapping, and the notice blames another
// process. So the calls of a process pass the lock file's gate first, in
// the order they came, shared or alone as they take the lock, and only
// then take the flock, where they meet other processes alone.

// gates holds the gate of each lock file this process has taken, by path.
var gates sync.Map // string → *semaphore.Weighted

// gateAll is a gate's capacity: a call taking a lock alone takes all of
// it, one sharing it takes 1.
const gateAll = 1 << 30

// enterGate waits for the process's gate of the lock file at path,
// shared or alone, until it is free, ctx is done (its error) or wait has
// passed (ErrLocked; a negative wait never passes). After noticeAfter of
// waiting it calls notice, once, unless notice is nil. leave lets the
// gate go.
func enterGate(ctx context.Context, path string, shared bool, wait, noticeAfter time.Duration, notice func()) (leave func(), err error) {
	g, _ := gates.LoadOrStore(path, semaphore.NewWeighted(gateAll))
	gate := g.(*semaphore.Weighted)
	n := int64(gateAll)
	if shared {
		n = 1
	}
	if gate.TryAcquire(n) {
		return func() { gate.Release(n) }, nil
	}
	wctx := ctx
	if wait >= 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	if notice != nil && noticeAfter >= 0 {
		defer time.AfterFunc(noticeAfter, notice).Stop()
	}
	if err := gate.Acquire(wctx, n); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return func() { gate.Release(n) }, nil
}

// TakeLock takes fl, shared or alone, behind its gate in this process:
// it enters the gate (see enterGate; inProcess is its notice), then
// takes the flock (see WaitLock; otherProcess is its notice), both within
// one wait. release lets both go.
func TakeLock(ctx context.Context, fl *flock.Flock, shared bool, wait, noticeAfter time.Duration, inProcess, otherProcess func()) (release func(), err error) {
	if wait >= 0 && wait < time.Millisecond {
		inProcess, otherProcess = nil, nil // one try: no wait to tell of
	}
	start := time.Now()
	leave, err := enterGate(ctx, fl.Path(), shared, wait, noticeAfter, inProcess)
	if err != nil {
		return nil, err
	}
	spent := time.Since(start)
	if wait >= 0 {
		wait = max(wait-spent, time.Nanosecond) // what is left, tried once at least
	}
	if err := WaitLock(ctx, fl, shared, wait, max(noticeAfter-spent, 0), otherProcess); err != nil {
		leave()
		return nil, err
	}
	return func() { fl.Unlock(); leave() }, nil
}

// Waited says how long a lock was waited for before giving up: "after 5s",
// or "without waiting" for a wait of one try.
func Waited(d time.Duration) string {
	if d < time.Millisecond {
		return "without waiting"
	}
	return "after " + d.String()
}
