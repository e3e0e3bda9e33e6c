package compact

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// twoDays keeps Mondays and Thursdays: enough for every week to have logs
// while the golden file stays readable.
func twoDays(d time.Time) bool { return d.Weekday() == time.Monday || d.Weekday() == time.Thursday }

// markedLines returns every line of the workspace's dailies that must
// survive compaction word for word.
func markedLines(t *testing.T, ws *layout.Workspace) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range mustFiles(t, ws, "beacon") {
		if f.Kind != layout.KindDaily {
			continue
		}
		b, err := os.ReadFile(ws.Abs(f.Path))
		if err != nil {
			t.Fatal(err)
		}
		d, err := layout.Parse(f.Path, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range d.Entries {
			for _, l := range scanLines(e.Heading, e.Text) {
				if l.Marked {
					out[l.Text] = f.Path
				}
			}
		}
	}
	return out
}

func mustFiles(t *testing.T, ws *layout.Workspace, name string) []layout.File {
	t.Helper()
	fs, err := ws.Files(name)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestEpisodicGolden compacts 14 months of logs with a fixed now and
// compares the whole tree with a golden file: which weeks and months are
// made, their frontmatter and provenance, what is deleted and kept.
func TestEpisodicGolden(t *testing.T) {
	ws := genWorkspace(t, day("2025-09-01"), day("2026-11-18"), 3, twoDays)
	marked := markedLines(t, ws)
	opts := Options{Episodic: true, Now: fixed("2026-11-18")}
	res, err := Run(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) == 0 || len(res.Written) == 0 {
		t.Fatalf("nothing compacted: %+v", res)
	}
	tree := snapshot(t, ws)
	golden(t, "episodic.txtar", tree)

	t.Run("marked lines kept word for word", func(t *testing.T) {
		if len(marked) == 0 {
			t.Fatal("the generated logs hold no marked lines")
		}
		for line, from := range marked {
			if !strings.Contains(tree, line) {
				t.Errorf("%s: marked line lost: %q", from, line)
			}
		}
	})
	t.Run("second run changes nothing", func(t *testing.T) {
		res, err := Run(context.Background(), ws, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Plan.Units) != 0 {
			t.Errorf("second run planned %d units, first %s", len(res.Plan.Units), res.Plan.Units[0].ID)
		}
		if got := snapshot(t, ws); got != tree {
			t.Errorf("second run changed the tree:\n%s", diffLines(tree, got))
		}
	})
}

// TestLateDailyMerged adds a back-filled day to a week that already has
// a weekly summary, and to a week already folded into a monthly: both are
// merged, not skipped and not duplicated.
func TestLateDailyMerged(t *testing.T) {
	ws := genWorkspace(t, day("2025-09-01"), day("2026-11-18"), 2, twoDays)
	opts := Options{Episodic: true, Now: fixed("2026-11-18")}
	if _, err := Run(context.Background(), ws, opts); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, day, summary string
	}{
		{"weekly", "2026-10-06", "beacon/memory/weekly/2026-W41.md"},
		{"monthly", "2025-10-07", "beacon/memory/monthly/2025-10.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := "- Decision: back-filled on " + tt.day + " after the fact"
			writeFile(t, ws, "beacon/memory/"+tt.day+".md", "# "+tt.day+"\n\n## Late note\n\n"+line+"\n", day(tt.day))
			old, err := os.ReadFile(ws.Abs(tt.summary))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), ws, opts); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(ws.Abs(tt.summary))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), line) {
				t.Errorf("%s does not hold the late line", tt.summary)
			}
			if !strings.Contains(string(got), tt.day+".md sha256:") {
				t.Errorf("%s does not cite %s.md in its sources", tt.summary, tt.day)
			}
			oldDoc, _ := layout.Parse(tt.summary, old)
			for _, e := range oldDoc.Entries {
				for _, l := range strings.Split(e.Text, "\n") {
					if l != "" && strings.Count(string(got), l+"\n") != 1 {
						t.Errorf("line %q is in the merged summary %d times, want once", l, strings.Count(string(got), l+"\n"))
					}
				}
			}
			if _, err := os.Stat(ws.Abs("beacon/memory/" + tt.day + ".md")); !os.IsNotExist(err) {
				t.Errorf("the late daily was not deleted: %v", err)
			}
		})
	}
}

// TestWeeklyShorter checks that a week of daily use (5 entries a day)
// becomes a weekly summary under a third of the dailies' size.
func TestWeeklyShorter(t *testing.T) {
	ws := genWorkspace(t, day("2026-10-05"), day("2026-11-01"), 5, nil)
	var before, after int64
	for _, f := range mustFiles(t, ws, "beacon") {
		before += f.Size
	}
	if _, err := Run(context.Background(), ws, Options{Episodic: true, Now: fixed("2026-11-18")}); err != nil {
		t.Fatal(err)
	}
	for _, f := range mustFiles(t, ws, "beacon") {
		if f.Kind == layout.KindDaily {
			t.Errorf("%s was not compacted", f.Path)
		}
		after += f.Size
	}
	if after*3 > before {
		t.Errorf("4 weeks of dailies were %d bytes, their weeklies %d: want under a third", before, after)
	}
}

// TestDryRun plans without touching anything.
func TestDryRun(t *testing.T) {
	ws := genWorkspace(t, day("2026-10-05"), day("2026-11-18"), 2, nil)
	before := snapshot(t, ws)
	res, err := Run(context.Background(), ws, Options{DryRun: true, Now: fixed("2026-11-18")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Units) == 0 || len(res.Written)+len(res.Deleted) != 0 {
		t.Fatalf("dry run: %d units planned, %d written, %d deleted", len(res.Plan.Units), len(res.Written), len(res.Deleted))
	}
	if after := snapshot(t, ws); after != before {
		t.Errorf("dry run changed the workspace:\n%s", diffLines(before, after))
	}
	if _, err := os.Stat(ws.Abs(journalPath)); !os.IsNotExist(err) {
		t.Errorf("dry run left a journal: %v", err)
	}
}
