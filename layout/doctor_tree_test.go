package layout

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCheckReportsFoldersNamedLikeMemoryFiles: a folder (or a link to one)
// where tmem reads a memory file is an error naming what it is, as
// compaction fails on it; folders tmem keeps, and names tmem does not
// read, are not reported.
func TestCheckReportsFoldersNamedLikeMemoryFiles(t *testing.T) {
	w := newWorkspace(t, "beacon")
	for _, dir := range []string{
		"beacon/memory/2026-01-22.md", "beacon/memory/weekly/2026-W03.md", "beacon/memory/archive/2026-01.md",
		"beacon/memory/archive/typed/user_x.md", "scout/SOUL.md", "beacon/notes.md", "beacon/memory/.draft.md", "beacon/memory/misc",
	} {
		if err := os.MkdirAll(w.Abs(dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const (
		what = ", not a regular file, named like a memory file: tmem cannot read it ("
		fix  = "); move it away"
	)
	want := []string{
		"beacon/memory/2026-01-22.md: error: a folder" + what + "compact fails on it every run" + fix,
		"beacon/memory/archive/2026-01.md: error: a folder" + what + "compact fails on it every run" + fix,
		"beacon/memory/archive/typed/user_x.md: error: a folder" + what + "compact fails on it every run" + fix,
		"beacon/memory/weekly/2026-W03.md: error: a folder" + what + "compact fails on it every run" + fix,
		"scout/SOUL.md: error: a folder" + what + "the teammate is listed with no role" + fix,
	}
	if err := os.Symlink(filepath.Join(w.Root, "beacon/memory/misc"), w.Abs("beacon/memory/feedback_link.md")); err == nil {
		want = append(want, "beacon/memory/feedback_link.md: error: a symlink to a folder"+what+"compact fails on it every run"+fix)
	}
	findings, err := w.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		if strings.Contains(f.Message, "not a regular file") {
			got = append(got, f.String())
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check reported\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
