//go:build !windows

package layout

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FilesChecked names each Markdown entry of a memory folder that Files
// leaves out, and why, without opening it (a named pipe would block).
func TestFilesCheckedNamesWhatItLeavesOut(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	if err := ws.WriteFile("beacon/memory/2026-03-12.md", []byte("# 2026-03-12\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws.Abs("beacon/memory/2026-03-11.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(ws.Abs("beacon/memory/2026-03-13.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Dir("beacon/memory/weekly"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nowhere/at/all.md", ws.Abs("beacon/memory/weekly/2026-W11.md")); err != nil {
		t.Fatal(err)
	}
	files, unusable, err := ws.FilesChecked("beacon")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range unusable {
		got = append(got, e.Error())
	}
	want := []string{
		"beacon/memory/2026-03-11.md: not a regular file (a folder)",
		"beacon/memory/2026-03-13.md: not a regular file (a named pipe (FIFO))",
		"beacon/memory/weekly/2026-W11.md: ",
	}
	if len(got) != len(want) {
		t.Fatalf("unusable = %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("unusable[%d] = %q, want it to start %q", i, got[i], want[i])
		}
	}
	for _, f := range files {
		if f.Kind == KindDaily && f.Path != "beacon/memory/2026-03-12.md" || f.Kind == KindWeekly {
			t.Errorf("Files lists %s", f.Path)
		}
	}
}

// TestFilesWithAMemoryFolderThatIsNoFolder: a named pipe or a file where a
// memory folder belongs is never opened for listing (a pipe would block),
// leaves the teammate's other files listed and every other teammate
// working, and doctor names it.
func TestFilesWithAMemoryFolderThatIsNoFolder(t *testing.T) {
	tests := []struct {
		name, rel, want string
		fifo            bool
	}{
		{"memory is a named pipe", "quill/memory", "quill/memory: error: a named pipe (FIFO), not a regular file", true},
		{"weekly is a named pipe", "quill/memory/weekly", "quill/memory/weekly: error: a named pipe (FIFO), not a regular file", true},
		{"memory is a file", "quill/memory", "quill/memory: error: a file where tmem keeps a folder: move it away", false},
		{"the scratch folder is a file", ".tmp", ".tmp: error: a file where tmem keeps a folder: move it away", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon", "quill")
			p := ws.Abs(tt.rel)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.fifo {
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				write(t, p, "not a folder\n")
			}
			findings := withTimeout(t, func() ([]Finding, error) {
				if _, err := ws.List("", ""); err != nil {
					return nil, err
				}
				files, err := ws.Files("quill")
				if err == nil && (len(files) != 3 || files[0].Path != "quill/GOALS.md") {
					t.Errorf("Files(quill) = %v, want its GOALS, SOUL and WISDOM", files)
				}
				if err != nil {
					return nil, err
				}
				return ws.Check()
			})
			found := false
			for _, f := range findings {
				found = found || strings.HasPrefix(f.String(), tt.want)
			}
			if !found {
				t.Errorf("no finding %q in:\n%s", tt.want, findingLines(findings))
			}
		})
	}
}

// withTimeout runs fn, failing the test when it errs or has not returned
// within a minute.
func withTimeout(t *testing.T, fn func() ([]Finding, error)) []Finding {
	t.Helper()
	type result struct {
		findings []Finding
		err      error
	}
	done := make(chan result, 1)
	go func() {
		f, err := fn()
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.findings
	case <-time.After(time.Minute):
		t.Fatal("still blocked after a minute")
		return nil
	}
}
