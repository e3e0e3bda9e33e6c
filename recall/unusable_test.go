//go:build unix

package recall

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestUnusableFilesAreNamed: a CROSS-TEAM.md or WISDOM.md that is a link
// leading outside or a named pipe, a memory folder linked outside, and a
// named pipe or a file where a memory folder belongs (never opened for
// listing: a pipe would block) are left out of the index with a notice naming them; the rest is indexed.
func TestUnusableFilesAreNamed(t *testing.T) {
	ws := newWorkspace(t, "ws")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "notes.md"), []byte("# Cross-team notes\n\n## Secret\n\noutside text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	replace := func(rel string, make func(path string) error) {
		t.Helper()
		if err := os.RemoveAll(ws.Abs(rel)); err != nil {
			t.Fatal(err)
		}
		if err := make(ws.Abs(rel)); err != nil {
			t.Fatal(err)
		}
	}
	replace("CROSS-TEAM.md", func(p string) error { return os.Symlink(filepath.Join(outside, "notes.md"), p) })
	replace("beacon/WISDOM.md", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	replace("beacon/memory/weekly", func(p string) error { return os.Symlink(outside, p) })
	replace("beacon/memory/monthly", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	replace("beacon/memory/archive", func(p string) error { return os.WriteFile(p, []byte("a file\n"), 0o644) })
	ix, warn := openIndex(t, ws, Options{})
	st, err := ix.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files == 0 {
		t.Errorf("nothing indexed: %+v", st)
	}
	// The sync's stats name them too (tmem index fails on them), on a
	// second sync with nothing changed as on the first.
	again, err := ix.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"CROSS-TEAM.md: leads outside the workspace",
		"beacon/WISDOM.md: not a regular file",
		"beacon/memory/weekly: leads outside the workspace",
		"beacon/memory/monthly: not a folder (a named pipe (FIFO))",
		"beacon/memory/archive: not a folder (a file)",
	} {
		if !strings.Contains(warn.String(), "not indexed: "+want) {
			t.Errorf("no notice %q in:\n%s", want, warn.String())
		}
		for i, errs := range [][]string{st.Errors, again.Errors} {
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, want) }) {
				t.Errorf("sync %d: %q not in its errors %q", i+1, want, errs)
			}
		}
	}
	if hits := runSearch(t, ix, Query{Text: "outside text", NoSync: true}); len(hits) != 0 {
		t.Errorf("text from outside the workspace was indexed: %+v", hits)
	}
}
