package recall

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNotIndexedNamedOnEverySync: a memory file that does not parse is
// left out of the index and named in the errors of every sync, not only
// the one that first read it: when nothing changed, and when only its
// times did (a checkout, a touch). Before, later syncs returned no errors
// (and the touched one no notice either), so `tmem index` and its --json
// reported a workspace recall could not fully search as clean.
func TestNotIndexedNamedOnEverySync(t *testing.T) {
	ws := newWorkspace(t, "ws")
	const rel = "beacon/memory/project_broken.md"
	const want = rel + ":6: invalid UTF-8 (byte 0xff at offset 55)"
	if err := os.WriteFile(ws.Abs(rel), []byte("---\nname: Broken\ndescription: d\ntype: project\n---\nBody \xff\xfe.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ix, warn := openIndex(t, ws, Options{})
	tests := []struct {
		name  string
		setup func(t *testing.T)
	}{
		{"first sync", func(t *testing.T) { chtimes(t, ws.Abs(rel), old) }},
		{"nothing changed", func(t *testing.T) {}},
		{"times changed", func(t *testing.T) { chtimes(t, ws.Abs(rel), old.Add(time.Hour)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup(t)
			warn.Reset()
			st, err := ix.Sync(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(st.Errors, want) {
				t.Errorf("errors %q, want %q", st.Errors, want)
			}
			if n := strings.Count(warn.String(), "not indexed: "+want); n != 1 {
				t.Errorf("named %d times in the notices, want once:\n%s", n, warn.String())
			}
		})
	}
}

func chtimes(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestSearchSaysWhatIsNotIndexed: a typed memory whose frontmatter does
// not close is left out of the index; every search of its teammate says
// so through Query.NotIndexed, a search that reads only the manifest's
// header too, until the file is mended.
func TestSearchSaysWhatIsNotIndexed(t *testing.T) {
	ws := newWorkspace(t, "ws")
	const rel = "beacon/memory/feedback_heron.md"
	writeFile(t, ws, rel, "---\nname: Heron\ndescription: d\ntype: feedback\n\nHerons must be fed at dawn.\n")
	ix, _ := openIndex(t, ws, Options{})
	search := func(noSync bool) []string {
		var got []string
		q := Query{Text: "heron", Teammates: []string{"beacon"}, NoSync: noSync, NotIndexed: func(why []string) { got = why }}
		runSearch(t, ix, q)
		return got
	}
	for _, noSync := range []bool{false, true} {
		got := search(noSync)
		if len(got) != 1 || !strings.HasPrefix(got[0], rel+":1: ") || !strings.Contains(got[0], "frontmatter") {
			t.Errorf("no-sync %v: not indexed %q, want %s:1 and why", noSync, got, rel)
		}
	}
	if notes := NotIndexedNotes([]string{"a.md:1: x"}); len(notes) != 1 || !strings.Contains(notes[0], "a.md:1: x") {
		t.Errorf("notes %q", notes)
	}
	writeFile(t, ws, rel, "---\nname: Heron\ndescription: d\ntype: feedback\n---\n\nHerons must be fed at dawn.\n")
	if got := search(false); len(got) != 0 {
		t.Errorf("mended: not indexed %q, want none", got)
	}
}
