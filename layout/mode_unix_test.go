//go:build unix

package layout

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// TestWriteFileFrom writes what a func writes, keeping the file's mode;
// an error from the func leaves the file as it was, and no temp file.
func TestWriteFileFrom(t *testing.T) {
	w := newWorkspace(t, "beacon")
	const rel = ".tmp/compact/journal.json"
	if err := w.WriteFileFrom(rel, func(wr io.Writer) error { _, err := io.WriteString(wr, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(w.Abs(rel), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("encoder failed")
	if err := w.WriteFileFrom(rel, func(wr io.Writer) error { io.WriteString(wr, "half"); return boom }); !errors.Is(err, boom) {
		t.Errorf("a failing write: %v, want its error", err)
	}
	if b, _ := os.ReadFile(w.Abs(rel)); string(b) != "first" {
		t.Errorf("after a failing write the file holds %q, want it as it was", b)
	}
	if err := w.WriteFileFrom(rel, func(wr io.Writer) error { _, err := io.WriteString(wr, strings.Repeat("x", 200<<10)); return err }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Abs(rel))
	if err != nil || len(b) != 200<<10 {
		t.Errorf("after a 200 KiB write: %d bytes, %v", len(b), err)
	}
	st, _ := os.Stat(w.Abs(rel))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o, want 600 kept", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(filepath.Dir(w.Abs(rel)))
	if len(ents) != 1 {
		t.Errorf("the folder holds %d entries, want the file alone", len(ents))
	}
}
