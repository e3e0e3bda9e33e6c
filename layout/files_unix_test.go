//go:build !windows

package layout

import (
	"os"
	"strings"
	"syscall"
	"testing"
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
