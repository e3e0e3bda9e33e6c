package serve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/tmemhq/tmem/layout"
)

// barrierDir makes the folder barrier files go in, in a workspace of its
// own, and returns the workspace and the folder's absolute path.
func barrierDir(t *testing.T) (*layout.Workspace, string) {
	t.Helper()
	ws := &layout.Workspace{Root: t.TempDir()}
	dir, err := ws.Dir(".tmp/serve")
	if err != nil {
		t.Fatal(err)
	}
	return ws, dir
}

// TestBarrier checks that a barrier passes once a real watcher reports
// its file, and fails (so the search syncs) when nothing reports it.
func TestBarrier(t *testing.T) {
	ws, dir := barrierDir(t)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Skipf("no file watching here: %v", err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	b := newBarrier(ws, ".tmp/serve")
	if b.heard(filepath.Join(t.TempDir(), filepath.Base(b.file(1)))) {
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
		if names := dirNames(t, dir); len(names) != 1 || names[0] != filepath.Base(b.file(b.sent)) {
			t.Fatalf("barrier folder holds %v, want the one file %s", names, filepath.Base(b.file(b.sent)))
		}
	})
	t.Run("its file removed by someone", func(t *testing.T) {
		if err := os.Remove(ws.Abs(b.file(b.sent))); err != nil {
			t.Fatal(err)
		}
		if !b.pass() {
			t.Fatal("barrier not reported after its file was removed")
		}
	})
	w.Close()
	<-done
	b.close()
	if names := dirNames(t, dir); len(names) != 0 {
		t.Fatalf("barrier files left behind: %v", names)
	}
}

// TestBarrierTwoServers: a server never counts another's barrier files,
// whose numbers say nothing about its own events, and a new server
// clears the files of servers that were killed.
func TestBarrierTwoServers(t *testing.T) {
	ws, dir := barrierDir(t)
	if err := os.WriteFile(filepath.Join(dir, barrierPrefix+"0123456789ab-7"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := newBarrier(ws, ".tmp/serve"), newBarrier(ws, ".tmp/serve")
	if names := dirNames(t, dir); len(names) != 0 {
		t.Fatalf("a killed server's files left: %v", names)
	}
	if !b.heard(ws.Abs(a.file(5))) {
		t.Fatal("an event in the barrier folder taken for memory")
	}
	if b.seen != 0 {
		t.Fatalf("another server's barrier 5 counted: seen %d", b.seen)
	}
	if !b.heard(ws.Abs(b.file(2))) || b.seen != 2 {
		t.Fatalf("its own barrier 2 not counted: seen %d", b.seen)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestBarrierFolderLinkedOutside: when a link to a folder outside the
// workspace is swapped in for the barrier folder while the server runs,
// no barrier file is created, renamed or removed outside; the barrier
// fails, so searches sync.
func TestBarrierFolderLinkedOutside(t *testing.T) {
	ws, dir := barrierDir(t)
	b := newBarrier(ws, ".tmp/serve")
	if _, ok := b.send(); !ok {
		t.Fatal("no barrier file in the workspace")
	}
	outside := t.TempDir()
	planted := filepath.Join(outside, barrierPrefix+"0123456789ab-7")
	if err := os.WriteFile(planted, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, dir); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if _, ok := b.send(); ok {
		t.Error("a barrier file was made through a link that leads outside")
	}
	newBarrier(ws, ".tmp/serve") // a server starting clears killed servers' files
	b.close()
	if names := dirNames(t, outside); len(names) != 1 || names[0] != filepath.Base(planted) {
		t.Errorf("the folder outside holds %v, want only %s", names, filepath.Base(planted))
	}
}
