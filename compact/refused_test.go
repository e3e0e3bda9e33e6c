package compact

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// TestRefusedDailyLeftAsItIs checks that a daily compaction must not
// summarise (frontmatter that does not parse, a title naming another day,
// a link to another day's log) is named with the reason and left as it
// is, while the rest of its week is compacted; once it is put right, the
// next run folds it into the week's summary as a late daily. Before, bad
// frontmatter failed the whole week on every run, and a link or a wrong
// title was summarised and archived as the day of the file's name.
func TestRefusedDailyLeftAsItIs(t *testing.T) {
	const rel, weekly = "beacon/memory/2026-11-05.md", "beacon/memory/weekly/2026-W45.md"
	const good = "# 2026-11-05\n\n## Fixed\n\nPutRight text.\n"
	tests := []struct {
		name  string
		write func(t *testing.T, ws *layout.Workspace)
		want  string
	}{
		{
			name: "bad frontmatter",
			write: func(t *testing.T, ws *layout.Workspace) {
				writeFile(t, ws, rel, "---\ntags: [deploy\n---\n# 2026-11-05\n\n## e\n\nStray text.\n", day("2026-11-05"))
			},
			want: rel + ":2: bad frontmatter: did not find expected ',' or ']'",
		},
		{
			name: "title of another day",
			write: func(t *testing.T, ws *layout.Workspace) {
				writeFile(t, ws, rel, "\n# 2026-11-02\n\n## e\n\nStray text.\n", day("2026-11-05"))
			},
			want: rel + `:2: title "2026-11-02" does not match the file name's date 2026-11-05; left as it is`,
		},
		{
			name: "link to another day",
			write: func(t *testing.T, ws *layout.Workspace) {
				check(t, os.Symlink("2026-11-02.md", ws.Abs(rel)))
			},
			want: rel + ": a link; left as it is",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
			tt.write(t, ws)
			before := snapshotFile(t, ws, rel)
			_, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "extractive") {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if got := snapshotFile(t, ws, rel); got != before {
				t.Errorf("%s was changed: %q, want %q", rel, got, before)
			}
			for _, d := range []string{"2026-11-02", "2026-11-03", "2026-11-04"} {
				if b, err := os.ReadFile(ws.Abs("beacon/memory/" + d + ".md")); err != nil || !layout.HasStub(b) {
					t.Errorf("%s is not compacted to a stub (%v): %q", d, err, b)
				}
			}
			tree := snapshot(t, ws)
			if strings.Count(tree, "Stray") > 1 || strings.Contains(tree, "2026-11-05.md sha256") || strings.Contains(tree, "2026-11-05 Thursday") {
				t.Errorf("the refused daily was summarised or archived:\n%s", tree)
			}
			check(t, os.Remove(ws.Abs(rel)))
			writeFile(t, ws, rel, good, day("2026-11-05"))
			if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")}); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(ws.Abs(weekly)); err != nil || !strings.Contains(string(b), "PutRight") {
				t.Errorf("the daily put right was not folded into the week (%v):\n%s", err, b)
			}
		})
	}
}

// snapshotFile is what a file is: its content, or where it links to.
func snapshotFile(t *testing.T, ws *layout.Workspace, rel string) string {
	t.Helper()
	st, err := os.Lstat(ws.Abs(rel))
	check(t, err)
	if st.Mode()&fs.ModeSymlink != 0 {
		to, err := os.Readlink(ws.Abs(rel))
		check(t, err)
		return "link to " + to
	}
	b, err := os.ReadFile(ws.Abs(rel))
	check(t, err)
	return string(b)
}
