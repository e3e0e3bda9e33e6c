package layout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// DefaultLockWait is how long Lock waits for a teammate's lock held by
// another process before it gives up: far longer than any append takes,
// shorter than a cron job should hang on a stuck process.
const DefaultLockWait = 30 * time.Second

// ErrLocked is wrapped by the error of a Lock that gave up waiting for a
// lock another process holds.
var ErrLocked = errors.New("locked by another process")

// lockPoll is how often a waiting Lock tries again.
const lockPoll = 10 * time.Millisecond

// Lock takes the teammate's advisory lock. Every write to the teammate's
// memory files (appends, typed memories, compaction) holds it. When
// another process holds it, Lock says so on w.Notices after a second and
// waits up to w.LockWait (or until ctx is done), then gives up with an
// error wrapping ErrLocked that names the lock file. The returned func
// releases it.
func (w *Workspace) Lock(ctx context.Context, teammate string) (func(), error) {
	if err := ValidateName(teammate); err != nil {
		return nil, err
	}
	rel := ".tmp/locks/teammate-" + teammate + ".lock"
	fl, err := LockAt(w, rel)
	if err != nil {
		return nil, err
	}
	if err := w.waitLock(ctx, fl, teammate, rel); err != nil {
		return nil, err
	}
	return func() { fl.Unlock() }, nil
}

// waitLock takes fl, waiting as Lock describes.
func (w *Workspace) waitLock(ctx context.Context, fl *flock.Flock, teammate, rel string) error {
	ok, err := fl.TryLock()
	if err != nil || ok {
		return lockError(teammate, err)
	}
	wait := w.LockWait
	if wait == 0 {
		wait = DefaultLockWait
	}
	var expired <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	after := w.lockNotice
	if after <= 0 {
		after = time.Second
	}
	notice := time.NewTimer(after)
	defer notice.Stop()
	poll := time.NewTicker(lockPoll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return lockError(teammate, ctx.Err())
		case <-expired:
			return fmt.Errorf("lock %s: %w: gave up after %s waiting for %s/%s; "+
				"another tmem (log, remember or compact) holds it, or a stuck one does", teammate, ErrLocked, wait, DirName, rel)
		case <-notice.C:
			if w.Notices != nil {
				fmt.Fprintf(w.Notices, "tmem: waiting for %s's lock (%s/%s), held by another process\n", teammate, DirName, rel)
			}
		case <-poll.C:
			if ok, err := fl.TryLock(); err != nil || ok {
				return lockError(teammate, err)
			}
		}
	}
}

func lockError(teammate string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("lock %s: %w", teammate, err)
}
