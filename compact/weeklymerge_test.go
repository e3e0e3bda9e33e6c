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
// and the merged one. budget is the weekly budget, 0 for the default.
func mergeLate(t *testing.T, edit func(t *testing.T, body string) string, budget int) (edited, merged string) {
	t.Helper()
	ws := fromTxtar(t, "")
	old := day("2026-11-01")
	writeFile(t, ws, "beacon/SOUL.md", "# Beacon\n", old)
	for _, d := range []string{"2026-11-02", "2026-11-06"} {
		writeFile(t, ws, "beacon/memory/"+d+".md", "# "+d+"\n\n## Work on "+d+"\n\nDecision: use plan "+d+".\n", old)
	}
	compactAt(t, ws, "2026-11-20", budget)
	rel := "beacon/memory/weekly/2026-W45.md"
	meta, body := weeklyParts(t, ws, rel)
	edited = edit(t, body)
	writeFile(t, ws, rel, meta+edited, old)
	writeFile(t, ws, "beacon/memory/2026-11-05.md", "# 2026-11-05\n\n## Late entry\n\nChecked the ranking again. Nothing moved.\n", old)
	compactAt(t, ws, "2026-11-20", budget)
	_, merged = weeklyParts(t, ws, rel)
	return edited, merged
}

func compactAt(t *testing.T, ws *layout.Workspace, now string, budget int) {
	t.Helper()
	if _, err := Run(context.Background(), ws, Options{Now: fixed(now), Episodic: true, WeeklyBudget: budget}); err != nil {
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

// replaced is b with its first old replaced by new; old must be there.
func replaced(t *testing.T, b, old, new string) string {
	t.Helper()
	if !strings.Contains(b, old) {
		t.Fatalf("no %q in the body:\n%s", old, b)
	}
	return strings.Replace(b, old, new, 1)
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
		edit   func(*testing.T, string) string
		before string // the line the new day goes before; "" for the end
	}{
		{"unedited", func(t *testing.T, b string) string { return b }, "## 2026-11-06 Friday"},
		{"notes at the end", func(t *testing.T, b string) string { return b + "\n" + notes }, "## 2026-11-06 Friday"},
		{"notes at the top", func(t *testing.T, b string) string {
			return replaced(t, b, "# Week 2026-W45\n\n", "# Week 2026-W45\n\n"+notes+"\n")
		}, "## 2026-11-06 Friday"},
		{"notes after the first day", func(t *testing.T, b string) string {
			return replaced(t, b, "\n## 2026-11-06 Friday\n", "\n"+notes+"\n## 2026-11-06 Friday\n")
		}, "## 2026-11-06 Friday"},
		{"notes after the last day and before the new one", func(t *testing.T, b string) string {
			b = replaced(t, b, "## 2026-11-06 Friday", "## 2026-11-04 Wednesday")
			return b + "\n" + notes
		}, "## Notes"},
		{"a day's heading led by its weekday", func(t *testing.T, b string) string {
			return replaced(t, b, "## 2026-11-06 Friday\n", "## Fri 2026-11-06\n")
		}, "## Fri 2026-11-06"},
		{"a day's heading led by its weekday in full", func(t *testing.T, b string) string {
			return replaced(t, b, "## 2026-11-06 Friday\n", "## Friday, 2026-11-06\n")
		}, "## Friday, 2026-11-06"},
		{"notes at the top and the end", func(t *testing.T, b string) string {
			b = replaced(t, b, "# Week 2026-W45\n\n", "# Week 2026-W45\n\n"+notes+"\n")
			return b + "\n" + notes
		}, "## 2026-11-06 Friday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited, merged := mergeLate(t, tt.edit, 0)
			if want := withSection(t, edited, lateDay, tt.before); merged != want {
				t.Errorf("merged weekly:\n%s\nwant:\n%s", merged, want)
			}
		})
	}
}

// TestLateDailyKeepsHeadingsAsWritten: the sections a late daily does not
// change keep their lines byte for byte when it is merged into a weekly,
// headings included (closing hashes, setext underlines, indent, trailing
// spaces, blank lines), and so does the title; over the budget only the
// new day says less.
func TestLateDailyKeepsHeadingsAsWritten(t *testing.T) {
	const trimmed = "## 2026-11-05 Thursday\n\n- 1 more entry; see the log.\n\nLog: 2026-11-05.md in archive/2026-11.md"
	replace := func(old, new string) func(*testing.T, string) string {
		return func(t *testing.T, b string) string { return replaced(t, b, old, new) }
	}
	tests := []struct {
		name   string
		edit   func(*testing.T, string) string
		before string // the line the new day goes before; "" for the end
		budget int
		sec    string // the new day's section
	}{
		{"closing hashes on a day", replace("## 2026-11-02 Monday\n", "## 2026-11-02 Monday ##\n"), "## 2026-11-06 Friday", 0, lateDay},
		{"setext day heading", replace("## 2026-11-06 Friday\n", "2026-11-06 Friday\n-----------------\n"), "2026-11-06 Friday", 0, lateDay},
		{"indented day heading with trailing spaces", replace("## 2026-11-06 Friday\n", "  ## 2026-11-06 Friday  \n"), "  ## 2026-11-06 Friday  ", 0, lateDay},
		{"blank lines under a day heading", replace("## 2026-11-02 Monday\n\n", "## 2026-11-02 Monday\n\n\n"), "## 2026-11-06 Friday", 0, lateDay},
		{"setext notes at the end", func(t *testing.T, b string) string { return b + "\nNotes\n-----\n\nAsk quill before release.\n" }, "## 2026-11-06 Friday", 0, lateDay},
		{"closing hashes on notes", func(t *testing.T, b string) string { return b + "\n## Notes ###\n\nAsk quill before release.\n" }, "## 2026-11-06 Friday", 0, lateDay},
		{"title with closing hashes", replace("# Week 2026-W45\n", "# Week 2026-W45 #\n"), "## 2026-11-06 Friday", 0, lateDay},
		{"setext title", replace("# Week 2026-W45\n", "Week 2026-W45\n=============\n"), "## 2026-11-06 Friday", 0, lateDay},
		{"over the budget", func(t *testing.T, b string) string {
			b = replaced(t, b, "## 2026-11-06 Friday\n", "2026-11-06 Friday\n-----------------\n")
			return b + "\n## Notes ##\n\nAsk quill before release.\n"
		}, "2026-11-06 Friday", 40, trimmed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited, merged := mergeLate(t, tt.edit, tt.budget)
			if want := withSection(t, edited, tt.sec, tt.before); merged != want {
				t.Errorf("merged weekly:\n%s\nwant:\n%s", merged, want)
			}
		})
	}
}

// TestLateEntryUnderWeekdayHeading: a day section whose heading a person
// rewrote to lead with the weekday ("## Fri 2026-11-06") is still that
// day's section, so an entry logged late on that day updates it in place
// instead of adding a second section for the same day.
func TestLateEntryUnderWeekdayHeading(t *testing.T) {
	for _, heading := range []string{"## Fri 2026-11-06", "## Friday, 2026-11-06", "## fri. 2026-11-06"} {
		t.Run(heading, func(t *testing.T) {
			ws := fromTxtar(t, "")
			old := day("2026-11-01")
			writeFile(t, ws, "beacon/SOUL.md", "# Beacon\n", old)
			for _, d := range []string{"2026-11-02", "2026-11-06"} {
				writeFile(t, ws, "beacon/memory/"+d+".md", "# "+d+"\n\n## Work on "+d+"\n\nDecision: use plan "+d+".\n", old)
			}
			compactAt(t, ws, "2026-11-20", 0)
			rel := "beacon/memory/weekly/2026-W45.md"
			meta, body := weeklyParts(t, ws, rel)
			writeFile(t, ws, rel, meta+replaced(t, body, "## 2026-11-06 Friday\n", heading+"\n"), old)
			if _, err := ws.AppendDaily(context.Background(), "beacon", day("2026-11-06"), "Late", "Checked the ranking again."); err != nil {
				t.Fatal(err)
			}
			compactAt(t, ws, "2026-11-20", 0)
			_, merged := weeklyParts(t, ws, rel)
			heads := 0
			for _, line := range strings.Split(merged, "\n") {
				if strings.HasPrefix(line, "## ") && strings.Contains(line, "2026-11-06") {
					heads++
				}
			}
			if heads != 1 || !strings.Contains(merged, "\n"+heading+"\n") {
				t.Errorf("want one section for the day, under the heading as written (%d):\n%s", heads, merged)
			}
			if !strings.Contains(merged, "Checked the ranking again") {
				t.Errorf("the late entry is not in the weekly:\n%s", merged)
			}
		})
	}
}
