package layout

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// onWrite is a notice writer that records lines and runs a func on the
// first.
type onWrite struct {
	lines []string
	first func()
}

func (o *onWrite) Write(p []byte) (int, error) {
	o.lines = append(o.lines, string(p))
	if len(o.lines) == 1 && o.first != nil {
		o.first()
	}
	return len(p), nil
}

func TestLockWaitsBoundedAndSaysSo(t *testing.T) {
	tests := []struct {
		name       string
		held       bool
		wait       time.Duration
		onNotice   string // "release" the holder or "cancel" the context
		wantErr    error
		wantNotice bool
	}{
		{name: "free", wait: time.Hour},
		{name: "held longer than the wait", held: true, wait: 300 * time.Millisecond, wantErr: ErrLocked, wantNotice: true},
		{name: "released while waiting", held: true, wait: -1, onNotice: "release", wantNotice: true},
		{name: "context done while waiting", held: true, wait: -1, onNotice: "cancel", wantErr: context.Canceled, wantNotice: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			ws.LockWait, ws.lockNotice = tt.wait, 20*time.Millisecond
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if _, err := ws.Dir(".tmp/locks"); err != nil {
				t.Fatal(err)
			}
			holder := flock.New(ws.Abs(".tmp/locks/teammate-beacon.lock"))
			if tt.held {
				if err := holder.Lock(); err != nil {
					t.Fatal(err)
				}
			}
			defer holder.Unlock()
			notices := &onWrite{first: map[string]func(){"release": func() { holder.Unlock() }, "cancel": cancel, "": nil}[tt.onNotice]}
			ws.Notices = notices
			unlock, err := ws.Lock(ctx, "beacon")
			if tt.wantErr == nil && err != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Lock: %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				unlock()
			}
			if errors.Is(err, ErrLocked) && !strings.Contains(err.Error(), ".teammates/.tmp/locks/teammate-beacon.lock") {
				t.Errorf("error does not name the lock file: %v", err)
			}
			if tt.wantNotice != (len(notices.lines) == 1) || tt.wantNotice && !strings.Contains(notices.lines[0], "waiting for beacon's lock") {
				t.Errorf("notices %q, want one: %v", notices.lines, tt.wantNotice)
			}
		})
	}
}

// TestGateServesCallsInOrder takes one lock file's lock from calls of
// this process: a call waiting to take it alone holds back a call that
// would share it after it, though the holder shares it too; the waiting
// call is told another call of this process holds it, not another
// process; and it gets the lock once the holder lets go.
func TestGateServesCallsInOrder(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	fl := func() *flock.Flock {
		f, err := LockAt(ws, ".tmp/locks/index-beacon.lock")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	ctx := context.Background()
	reader, err := TakeLock(ctx, fl(), true, time.Second, time.Second, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waiting, heard := make(chan struct{}), make(chan string, 2)
	var once sync.Once
	notice := func(holder string) func() {
		return func() { heard <- holder; once.Do(func() { close(waiting) }) }
	}
	got := make(chan error, 1)
	go func() {
		release, err := TakeLock(ctx, fl(), false, time.Minute, 0, notice("this process"), notice("another process"))
		if err == nil {
			release()
		}
		got <- err
	}()
	<-waiting
	// The notice can come before the writer is in line (its goroutine not
	// yet run): a reader then passes, and is let go at once. Once the
	// writer is in line, every reader after it is held back. The deadline
	// only keeps a broken gate from holding the test for ever.
	heldBack := false
	for deadline := time.Now().Add(30 * time.Second); !heldBack && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		release, err := TakeLock(ctx, fl(), true, 20*time.Millisecond, time.Minute, nil, nil)
		if err == nil {
			release()
		}
		heldBack = errors.Is(err, ErrLocked)
	}
	if !heldBack {
		t.Error("readers after a waiting writer were let in for 30 s")
	}
	reader()
	if err := <-got; err != nil {
		t.Errorf("the writer, once the reader let go: %v", err)
	}
	if h := <-heard; h != "this process" || len(heard) != 0 {
		t.Errorf("the writer was told of %q, then %d more", h, len(heard))
	}
}

// TestWaitLockWithoutNotice waits for a held lock with no notice to give,
// as the trust store does, and gives up without calling one.
func TestWaitLockWithoutNotice(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	holder, err := LockAt(ws, ".tmp/locks/teammate-beacon.lock")
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	fl := flock.New(holder.Path())
	if err := WaitLock(context.Background(), fl, false, 50*time.Millisecond, -1, nil); !errors.Is(err, ErrLocked) {
		t.Errorf("WaitLock of a held lock: %v, want ErrLocked", err)
	}
}
