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
	return w.takeLock(ctx, fl, teammate, rel)
}

// takeLock takes fl, waiting as Lock describes.
func (w *Workspace) takeLock(ctx context.Context, fl *flock.Flock, teammate, rel string) (func(), error) {
	wait := w.LockWait
	if wait == 0 {
		wait = DefaultLockWait
	}
	after := w.lockNotice
	if after <= 0 {
		after = time.Second
	}
	notice := func(holder string) func() {
		return func() {
			if w.Notices != nil {
				fmt.Fprintf(w.Notices, "tmem: waiting for %s's lock (%s/%s), held by %s\n", teammate, DirName, rel, holder)
			}
		}
	}
	release, err := TakeLock(ctx, fl, false, wait, after, notice("another call of this process"), notice("another process"))
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("lock %s: %w: gave up %s waiting for %s/%s; "+
			"another tmem (log, remember or compact) holds it, or a stuck one does", teammate, ErrLocked, Waited(wait), DirName, rel)
	}
	return release, lockError(teammate, err)
}

// WaitLock takes fl, shared or for writing, trying again every few
// milliseconds while another process holds it: until it is free, ctx is
// done (its error), or wait has passed (ErrLocked; a negative wait never
// passes). After noticeAfter of waiting it calls notice, once, unless
// notice is nil or noticeAfter negative.
func WaitLock(ctx context.Context, fl *flock.Flock, shared bool, wait, noticeAfter time.Duration, notice func()) error {
	try := fl.TryLock
	if shared {
		try = fl.TryRLock
	}
	if ok, err := try(); err != nil || ok {
		return err
	}
	var expired <-chan time.Time
	if wait >= 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	var noticed <-chan time.Time
	if notice != nil && noticeAfter >= 0 {
		t := time.NewTimer(noticeAfter)
		defer t.Stop()
		noticed = t.C
	}
	poll := time.NewTicker(lockPoll)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-expired:
			return ErrLocked
		case <-noticed:
			notice()
		case <-poll.C:
			if ok, err := try(); err != nil || ok {
				return err
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
