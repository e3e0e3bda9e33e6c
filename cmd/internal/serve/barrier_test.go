package serve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// TestBarrier checks that a barrier passes once a real watcher reports
// its file, and fails (so the search syncs) when nothing reports it.
func TestBarrier(t *testing.T) {
	dir := t.TempDir()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Skipf("no file watching here: %v", err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	b := newBarrier(dir)
	if b.heard(filepath.Join(t.TempDir(), "barrier-1")) {
		t.Fatal("an event from another folder counted as a barrier")
	}

	t.Run("nothing listens", func(t *testing.T) {
		if b.pass() {
			t.Fatal("barrier passed with no watcher reading events")
		}
	})
	for len(w.Events) > 0 { // what the first pass left in the queue
		<-w.Events
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.Events {
			if ev.Has(fsnotify.Create) {
				b.heard(ev.Name)
			}
		}
	}()
	t.Run("the watcher reports it", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			if !b.pass() {
				t.Fatalf("pass %d: barrier not reported", i)
			}
		}
		ents, err := os.ReadDir(dir)
		if err != nil || len(ents) != 0 {
			t.Fatalf("barrier files left behind: %v %v", ents, err)
		}
	})
	w.Close()
	<-done
}
