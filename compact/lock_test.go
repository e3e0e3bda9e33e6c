package compact

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

// gatedSimilarity holds the first planning call until it is let go, so
// that a run can be caught in the middle of its plan.
type gatedSimilarity struct {
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func newGatedSimilarity() *gatedSimilarity {
	return &gatedSimilarity{entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gatedSimilarity) Similarity(a, b string) float64 {
	g.once.Do(func() {
		close(g.entered)
		<-g.release
	})
	return Shingles{}.Similarity(a, b)
}

// signalWriter closes seen on the first write that holds want.
type signalWriter struct {
	want string
	once sync.Once
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// heldRun starts a run on ws held in the middle of its plan and returns
// the func that lets it go and returns its error.
func heldRun(t *testing.T, ws *layout.Workspace, dryRun bool) (finish func() error) {
	t.Helper()
	g := newGatedSimilarity()
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-20"), DryRun: dryRun, Similarity: g})
		done <- err
	}()
	select {
	case <-g.entered:
	case err := <-done:
		t.Fatalf("the held run ended before planning: %v", err)
	}
	return func() error {
		close(g.release)
		return <-done
	}
}

func exampleWorkspace(t *testing.T) *layout.Workspace {
	t.Helper()
	return layouttest.Copy(t, filepath.Join("..", "testdata", "example", layout.DirName))
}

// TestLockedRuns checks which runs may overlap: dry runs with each other,
// and a compaction with the dry runs under way, which it waits for; a
// dry run or a second compaction during a compaction fails at once.
func TestLockedRuns(t *testing.T) {
	tests := []struct {
		name           string
		held, next     bool // DryRun of the run under way and of the next one
		wantLocked     bool
		waitsForTheRun bool
	}{
		{name: "dry run beside a dry run", held: true, next: true},
		{name: "compaction after a dry run", held: true, next: false, waitsForTheRun: true},
		{name: "dry run during a compaction", held: false, next: true, wantLocked: true},
		{name: "compaction during a compaction", held: false, next: false, wantLocked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := exampleWorkspace(t)
			finish := heldRun(t, ws, tt.held)
			log := &signalWriter{want: "waiting for the dry runs", seen: make(chan struct{})}
			done := make(chan error, 1)
			go func() {
				res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-20"), DryRun: tt.next, Log: log})
				if err == nil && len(res.Plan.Units) == 0 {
					err = errors.New("nothing planned")
				}
				done <- err
			}()
			var err error
			if tt.waitsForTheRun {
				select {
				case err = <-done:
					t.Fatalf("the compaction did not wait for the dry run: %v", err)
				case <-log.seen:
				}
			}
			if !tt.waitsForTheRun {
				err = <-done
			}
			if ferr := finish(); ferr != nil {
				t.Errorf("the run under way: %v", ferr)
			}
			if tt.waitsForTheRun {
				err = <-done
			}
			if got := errors.Is(err, ErrLocked); got != tt.wantLocked || (!tt.wantLocked && err != nil) {
				t.Errorf("next run: %v, want locked: %v", err, tt.wantLocked)
			}
		})
	}
}

// TestLockedCompactionGivesUp checks that a compaction waiting for a
// dry run stops when its context is done.
func TestLockedCompactionGivesUp(t *testing.T) {
	ws := exampleWorkspace(t)
	finish := heldRun(t, ws, true)
	defer finish()
	ctx, cancel := context.WithCancel(context.Background())
	log := &signalWriter{want: "waiting for the dry runs", seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, ws, Options{Now: fixed("2026-11-20"), Log: log})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the compaction did not wait: %v", err)
	case <-log.seen:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
