//go:build unix

package layout

import (
	"context"
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestWritesKeepModes: a memory file a person made private (0600) or
// group-writable (0664) keeps its mode through a rewrite and an append; a
// new file and folder take the umask (002: group-writable, for a
// workspace a group shares), and so does a lock file, which another
// member must be able to open.
func TestWritesKeepModes(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	w := newWorkspace(t, "beacon")
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	daily, err := w.AppendDaily(ctx, "beacon", now, "First", "one")
	if err != nil {
		t.Fatal(err)
	}
	mode := func(rel string) fs.FileMode {
		t.Helper()
		st, err := os.Stat(w.Abs(rel))
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	if m := mode(daily); m != 0o664 {
		t.Errorf("new daily %s: mode %o, want 664 under umask 002", daily, m)
	}
	if m := mode("beacon/memory"); m != 0o775 {
		t.Errorf("memory folder: mode %o, want 775", m)
	}
	if m := mode(".tmp/locks/teammate-beacon.lock"); m != 0o664 {
		t.Errorf("lock file: mode %o, want 664", m)
	}
	for _, want := range []fs.FileMode{0o600, 0o640, 0o664} {
		if err := os.Chmod(w.Abs(daily), want); err != nil {
			t.Fatal(err)
		}
		if _, err := w.AppendDaily(ctx, "beacon", now.Add(time.Minute), "More", "two"); err != nil {
			t.Fatal(err)
		}
		if m := mode(daily); m != want {
			t.Errorf("after an append to a %o daily: mode %o", want, m)
		}
		if err := w.WriteFile(daily, []byte("# 2026-11-20\n")); err != nil {
			t.Fatal(err)
		}
		if m := mode(daily); m != want {
			t.Errorf("after a rewrite of a %o daily: mode %o", want, m)
		}
	}
}
