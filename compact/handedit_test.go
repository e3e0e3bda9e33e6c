package compact

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestLateDailyKeepsHandEditedWeekly: a weekly a person edited (its title,
// a note under a day) that gains a late daily is merged again; the merge
// adds the day and keeps what the person wrote.
func TestLateDailyKeepsHandEditedWeekly(t *testing.T) {
	tests := []struct {
		name      string
		title     string // the title line the person leaves, "" for none
		wantTitle string
	}{
		{"renamed title", "# Week 2026-W45 — ingest sprint", "# Week 2026-W45 — ingest sprint\n"},
		{"title as written", "# Week 2026-W45", "# Week 2026-W45\n"},
		{"title removed", "", "# Week 2026-W45\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "")
			old := day("2026-11-01")
			writeFile(t, ws, "beacon/SOUL.md", "# Beacon\n", old)
			for _, d := range []string{"2026-11-02", "2026-11-03"} {
				writeFile(t, ws, "beacon/memory/"+d+".md", "# "+d+"\n\n## Work on "+d+"\n\nDecision: use plan "+d+".\n", old)
			}
			if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-20"), Episodic: true}); err != nil {
				t.Fatal(err)
			}
			rel := "beacon/memory/weekly/2026-W45.md"
			b, err := os.ReadFile(ws.Abs(rel))
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(b), "# Week 2026-W45\n", tt.title+"\n", 1)
			edited = strings.Replace(edited, "## 2026-11-03 Tuesday\n", "## 2026-11-03 Tuesday\n\nHand note: plan 03 was reverted.\n", 1)
			writeFile(t, ws, rel, edited, old)
			writeFile(t, ws, "beacon/memory/2026-11-05.md", "# 2026-11-05\n\n## Late entry\n\nLesson: always pad dates.\n", old)
			if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-20"), Episodic: true}); err != nil {
				t.Fatal(err)
			}
			b, err = os.ReadFile(ws.Abs(rel))
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			for _, want := range []string{"\n" + tt.wantTitle, "Hand note: plan 03 was reverted.", "Lesson: always pad dates."} {
				if !strings.Contains(got, want) {
					t.Errorf("the merged weekly lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// TestLateDailyKeepsHandWrittenLines: the lines a person wrote in a weekly
// stay byte for byte when a late daily is merged into it, trailing spaces
// (a Markdown hard line break) and leading indent included.
func TestLateDailyKeepsHandWrittenLines(t *testing.T) {
	tests := []struct {
		name  string
		after string // what follows the title line of the weekly
		keep  []string
	}{
		{"hard break ending a section of its own", "## Notes\n\nFirst line  \nlast line  \n\n",
			[]string{"## Notes\n\nFirst line  \nlast line  \n"}},
		{"hard break ending a day section", "## 2026-11-03 Tuesday\n\nHand note: reverted  \nby ops  \n\n",
			[]string{"Hand note: reverted  \nby ops  \n"}},
		{"indent and trailing spaces before the first section", "    indented note  \n\n",
			[]string{"\n    indented note  \n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "")
			old := day("2026-11-01")
			writeFile(t, ws, "beacon/SOUL.md", "# Beacon\n", old)
			writeFile(t, ws, "beacon/memory/2026-11-02.md", "# 2026-11-02\n\n## Work\n\nDecision: use plan A.\n", old)
			if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-20"), Episodic: true}); err != nil {
				t.Fatal(err)
			}
			rel := "beacon/memory/weekly/2026-W45.md"
			b, err := os.ReadFile(ws.Abs(rel))
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(b), "# Week 2026-W45\n\n", "# Week 2026-W45\n\n"+tt.after, 1)
			writeFile(t, ws, rel, edited, old)
			writeFile(t, ws, "beacon/memory/2026-11-05.md", "# 2026-11-05\n\n## Late entry\n\nLesson: always pad dates.\n", old)
			if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-20"), Episodic: true}); err != nil {
				t.Fatal(err)
			}
			b, err = os.ReadFile(ws.Abs(rel))
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			for _, want := range append(tt.keep, "Lesson: always pad dates.") {
				if !strings.Contains(got, want) {
					t.Errorf("the merged weekly lacks %q:\n%s", want, got)
				}
			}
		})
	}
}
