package compact

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// lateDay is the section the late daily of mergeLate renders to.
const lateDay = "## 2026-11-05 Thursday\n\n- Late entry — Checked the ranking again.\n\nLog: 2026-11-05.md in archive/2026-11.md"

// mergeLate compacts a week of two dailies (2026-11-02 and 2026-11-06)
// into its weekly, lets edit change the weekly's body as a person would,
// merges a late daily for 2026-11-05 into it and returns the edited body
// and the merged one.
func mergeLate(t *testing.T, edit func(body string) string) (edited, merged string) {
	t.Helper()
	ws := fromTxtar(t, "")
	old := day("2026-11-01")
	writeFile(t, ws, "beacon/SOUL.md", "# Beacon\n", old)
	for _, d := range []string{"2026-11-02", "2026-11-06"} {
		writeFile(t, ws, "beacon/memory/"+d+".md", "# "+d+"\n\n## Work on "+d+"\n\nDecision: use plan "+d+".\n", old)
	}
	compactAt(t, ws, "2026-11-20")
	rel := "beacon/memory/weekly/2026-W45.md"
	meta, body := weeklyParts(t, ws, rel)
	edited = edit(body)
	writeFile(t, ws, rel, meta+edited, old)
	writeFile(t, ws, "beacon/memory/2026-11-05.md", "# 2026-11-05\n\n## Late entry\n\nChecked the ranking again. Nothing moved.\n", old)
	compactAt(t, ws, "2026-11-20")
	_, merged = weeklyParts(t, ws, rel)
	return edited, merged
}

func compactAt(t *testing.T, ws *layout.Workspace, now string) {
	t.Helper()
	if _, err := Run(context.Background(), ws, Options{Now: fixed(now), Episodic: true}); err != nil {
		t.Fatal(err)
	}
}

// weeklyParts reads a summary and splits it into its frontmatter and its
// body.
func weeklyParts(t *testing.T, ws *layout.Workspace, rel string) (meta, body string) {
	t.Helper()
	b, err := os.ReadFile(ws.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	d, err := layout.Parse(rel, b)
	if err != nil {
		t.Fatal(err)
	}
	body = string(d.Body)
	return strings.TrimSuffix(string(b), body), body
}

// withSection adds the section sec to a summary body before the section
// that starts with the line before, or at the end when before is "".
func withSection(t *testing.T, body, sec, before string) string {
	t.Helper()
	if before == "" {
		return body + "\n" + sec + "\n"
	}
	if !strings.Contains(body, "\n"+before+"\n") {
		t.Fatalf("no line %q in the body:\n%s", before, body)
	}
	return strings.Replace(body, "\n"+before+"\n", "\n"+sec+"\n\n"+before+"\n", 1)
}

// TestLateDailyKeepsSectionOrder: a late daily merged into a weekly adds
// its day among the dated sections and moves nothing else, so the diff of
// the weekly's body is the new section alone. A section without a date
// keeps its place: at the top or the end of the weekly, or after the day
// it follows.
func TestLateDailyKeepsSectionOrder(t *testing.T) {
	const notes = "## Notes\n\nAsk quill before release.\n"
	tests := []struct {
		name   string
		edit   func(string) string
		before string // the line the new day goes before; "" for the end
	}{
		{"unedited", func(b string) string { return b }, "## 2026-11-06 Friday"},
		{"notes at the end", func(b string) string { return b + "\n" + notes }, "## 2026-11-06 Friday"},
		{"notes at the top", func(b string) string {
			return strings.Replace(b, "# Week 2026-W45\n\n", "# Week 2026-W45\n\n"+notes+"\n", 1)
		}, "## 2026-11-06 Friday"},
		{"notes after the first day", func(b string) string {
			return strings.Replace(b, "\n## 2026-11-06 Friday\n", "\n"+notes+"\n## 2026-11-06 Friday\n", 1)
		}, "## 2026-11-06 Friday"},
		{"notes after the last day and before the new one", func(b string) string {
			b = strings.Replace(b, "## 2026-11-06 Friday", "## 2026-11-04 Wednesday", 1)
			return b + "\n" + notes
		}, "## Notes"},
		{"notes at the top and the end", func(b string) string {
			b = strings.Replace(b, "# Week 2026-W45\n\n", "# Week 2026-W45\n\n"+notes+"\n", 1)
			return b + "\n" + notes
		}, "## 2026-11-06 Friday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited, merged := mergeLate(t, tt.edit)
			if want := withSection(t, edited, lateDay, tt.before); merged != want {
				t.Errorf("merged weekly:\n%s\nwant:\n%s", merged, want)
			}
		})
	}
}
