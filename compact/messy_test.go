package compact

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestMessyGolden compacts a hand-written fortnight full of what people
// really write (see testdata/messy-in.txtar) into weeklies, then a year
// later into a monthly, and compares both trees with golden files: the
// summaries, the archive and WISDOM.md, as a person reviewing the git diff
// would read them. Every marked paragraph is in the summaries word for
// word, and every source is in the archive byte for byte.
func TestMessyGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/messy-in.txtar")
	if err != nil {
		t.Fatal(err)
	}
	ws := fromTxtar(t, string(b))
	old := day("2026-02-01")
	for _, f := range mustFiles(t, ws, "beacon") {
		if err := os.Chtimes(ws.Abs(f.Path), old, old); err != nil {
			t.Fatal(err)
		}
	}
	sources := sourceFiles(t, ws, "beacon")
	marked := markedLines(t, ws)
	for _, step := range []struct{ now, golden string }{
		{"2026-03-20", "messy-weeks.txtar"},
		{"2027-03-25", "messy-month.txtar"},
	} {
		if _, err := Run(context.Background(), ws, Options{Now: fixed(step.now)}); err != nil {
			t.Fatal(err)
		}
		tree := snapshot(t, ws)
		golden(t, step.golden, tree)
		summaries := summaryText(t, ws, "beacon")
		for m, from := range marked {
			if !strings.Contains(summaries, m) {
				t.Errorf("%s: %s: marked text not in the summaries word for word: %q", step.now, from, m)
			}
		}
		checkArchived(t, ws, "beacon", sources)
	}
}
