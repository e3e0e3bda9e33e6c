package layout

import (
	"os"
	"testing"
)

// TestCheckSkipsFilesGoneSinceListed: a daily and an archive month listed
// by doctor and then removed (a compaction running beside it deletes
// compacted dailies) give no finding, where a file that cannot be read
// for another reason still does.
func TestCheckSkipsFilesGoneSinceListed(t *testing.T) {
	w := newWorkspace(t, "beacon")
	for _, rel := range []string{"beacon/memory/2026-11-02.md", "beacon/memory/archive/2026-10.md"} {
		if err := w.WriteFile(rel, []byte("# x\n")); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Files("beacon")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if f.Path != "beacon/memory/2026-11-02.md" && f.Path != "beacon/memory/archive/2026-10.md" {
			continue
		}
		if err := os.Remove(w.Abs(f.Path)); err != nil {
			t.Fatal(err)
		}
		if got := w.checkFile(f); len(got) != 0 {
			t.Errorf("%s, gone since listed: %v", f.Path, got)
		}
		checked++
	}
	if checked != 2 {
		t.Fatalf("checked %d files, want 2", checked)
	}
	f := File{Path: "beacon/memory/2026-11-03.md", Kind: KindDaily}
	if err := os.Mkdir(w.Abs(f.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := w.checkFile(f); len(got) != 1 {
		t.Errorf("a folder where a daily was listed: %v, want one finding", got)
	}
}
