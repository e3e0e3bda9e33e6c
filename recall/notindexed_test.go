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
