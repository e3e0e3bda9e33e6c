package compact

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
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
			got := editThenMergeLate(t, []string{"2026-11-02", "2026-11-03"}, func(b string) string {
				edited := strings.Replace(b, "# Week 2026-W45\n", tt.title+"\n", 1)
				return strings.Replace(edited, "## 2026-11-03 Tuesday\n", "## 2026-11-03 Tuesday\n\nHand note: plan 03 was reverted.\n", 1)
			})
			lacksNone(t, "the merged weekly", got, "\n"+tt.wantTitle, "Hand note: plan 03 was reverted.", "Lesson: always pad dates.")
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
			got := editThenMergeLate(t, []string{"2026-11-02"}, func(b string) string {
				return strings.Replace(b, "# Week 2026-W45\n\n", "# Week 2026-W45\n\n"+tt.after, 1)
			})
			lacksNone(t, "the merged weekly", got, append(tt.keep, "Lesson: always pad dates.")...)
		})
	}
}

// editThenMergeLate compacts week 2026-W45 of the given dailies (each with
// one entry), lets edit rewrite the weekly file as a person would, adds a
// late daily for 2026-11-05 and compacts again; it returns the weekly.
func editThenMergeLate(t *testing.T, days []string, edit func(string) string) string {
	t.Helper()
	ws, old := beaconOnly(t)
	for _, d := range days {
		writeFile(t, ws, "beacon/memory/"+d+".md", "# "+d+"\n\n## Work on "+d+"\n\nDecision: use plan "+d+".\n", old)
	}
	compactAt(t, ws, "2026-11-20", 0)
	rel := "beacon/memory/weekly/2026-W45.md"
	writeFile(t, ws, rel, edit(fileText(t, ws.Abs(rel))), old)
	writeFile(t, ws, "beacon/memory/2026-11-05.md", "# 2026-11-05\n\n## Late entry\n\nLesson: always pad dates.\n", old)
	compactAt(t, ws, "2026-11-20", 0)
	return fileText(t, ws.Abs(rel))
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRecompactedDayKeepsHandEdits: a day summarised while its daily was
// still kept, whose section a person then edited, is summarised again
// when the daily gains an entry; the section gains the entry's bullet and
// keeps the person's lines, and its "Log:" line names the daily's new
// place once.
func TestRecompactedDayKeepsHandEdits(t *testing.T) {
	ws, old := beaconOnly(t)
	daily := "beacon/memory/2026-11-06.md"
	writeFile(t, ws, daily, "# 2026-11-06\n\n## Friday work\n\nDecision: ship plan 06.\n", old)
	compactAt(t, ws, "2026-11-09", 0)
	rel := "beacon/memory/weekly/2026-W45.md"
	weekly := fileText(t, ws.Abs(rel))
	if !strings.Contains(weekly, "Log: 2026-11-06.md\n") {
		t.Fatalf("the daily was not kept and named:\n%s", weekly)
	}
	edited := strings.Replace(weekly, "- Friday work", "- Friday work (reverted by Bob)", 1) + "\nReviewer note: Alice signed off.\n"
	writeFile(t, ws, rel, edited, old)
	writeFile(t, ws, daily, fileText(t, ws.Abs(daily))+"\n## Late fix\n\nLesson: pad the dates.\n", old)
	compactAt(t, ws, "2026-11-16", 0)
	got := fileText(t, ws.Abs(rel))
	lacksNone(t, "the weekly", got, "- Friday work (reverted by Bob)\n  - Decision: ship plan 06.\n", "Reviewer note: Alice signed off.", "- Late fix\n  - Lesson: pad the dates.\n", "Log: 2026-11-06.md in archive/2026-11.md")
	if n := strings.Count(got, "Log: 2026-11-06.md"); n != 1 {
		t.Errorf("%d Log: lines for the daily, want 1:\n%s", n, got)
	}
}

// TestLateDailyAfterStubGoneKeepsDay: a day whose stub is gone gets a
// daily again (a late entry, a hand-made file); the day's section gains
// the entry and keeps the bullets it had.
func TestLateDailyAfterStubGoneKeepsDay(t *testing.T) {
	ws, old := beaconOnly(t)
	daily := "beacon/memory/2026-11-04.md"
	writeFile(t, ws, daily, "# 2026-11-04\n\n## Widget\n\nBuilt the widget. Decision: widgets are blue.\n", old)
	compactAt(t, ws, "2026-11-16", 0)
	compactAt(t, ws, "2026-12-10", 0)
	if _, err := os.Stat(ws.Abs(daily)); !os.IsNotExist(err) {
		t.Fatalf("the stub is still there (%v)", err)
	}
	writeFile(t, ws, daily, "# 2026-11-04\n\n## Late\n\nLate note.\n", old)
	compactAt(t, ws, "2026-12-11", 0)
	got := fileText(t, ws.Abs("beacon/memory/weekly/2026-W45.md"))
	lacksNone(t, "the weekly", got, "- Widget — Built the widget.", "- Late — Late note.")
}

// TestLateEntryRelocatesEveryLog: a week summarised while its last days'
// dailies were kept, one of which then gains an entry, is summarised again
// once they are archived: every day's "Log:" line names the archive, the
// version of the daily no file holds any more leaves the sources, and a
// second run with the same clock has nothing to do.
func TestLateEntryRelocatesEveryLog(t *testing.T) {
	ws, old := beaconOnly(t)
	writeFile(t, ws, "beacon/memory/2026-11-05.md", "# 2026-11-05\n\n## Thursday work\n\nThursday.\n", old)
	writeFile(t, ws, "beacon/memory/2026-11-06.md", "# 2026-11-06\n\n## Friday work\n\nFriday.\n", old)
	compactAt(t, ws, "2026-11-09", 0)
	writeFile(t, ws, "beacon/memory/2026-11-06.md", fileText(t, ws.Abs("beacon/memory/2026-11-06.md"))+"\n## Late\n\nLate.\n", old)
	compactAt(t, ws, "2026-11-16", 0)
	got := fileText(t, ws.Abs("beacon/memory/weekly/2026-W45.md"))
	for _, d := range []string{"2026-11-05", "2026-11-06"} {
		if !strings.Contains(got, "Log: "+d+".md in archive/2026-11.md\n") || strings.Contains(got, "Log: "+d+".md\n") {
			t.Errorf("the Log: line of %s does not name the archive:\n%s", d, got)
		}
		if strings.Contains(got, d+".md\n") || strings.Contains(got, " "+d+".md\n") {
			t.Errorf("the sources still list a version of %s as in memory/:\n%s", d, got)
		}
	}
	res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-16"), Episodic: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Written) > 0 || len(res.Deleted) > 0 {
		t.Errorf("a second run with the same clock wrote %v and deleted %v", res.Written, res.Deleted)
	}
}

// TestMonthlyKeepsNoteAfterItsDay: a section a person added to a weekly
// after its last day goes after that day in the monthly, not after the
// week's first day.
func TestMonthlyKeepsNoteAfterItsDay(t *testing.T) {
	weekly := "# Week 2026-W11\n\n## 2026-03-09 Monday\n\n- Moved the queue.\n\n## 2026-03-13 Friday\n\n- Shipped.\n\n## Notes by hand\n\nAlice signed off.\n"
	req := Request{Kind: KindMonthly, Teammate: "beacon", Unit: "2026-03", Period: "2026-03-02 to 2026-04-05", Sources: []Source{
		{Path: "beacon/memory/weekly/2026-W11.md", Label: "2026-W11", Text: weekly},
		{Path: "beacon/memory/weekly/2026-W12.md", Label: "2026-W12", Text: "# Week 2026-W12\n\n## 2026-03-16 Monday\n\n- Paged.\n"},
	}}
	out, err := Extractive{}.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	fri, note, next := strings.Index(out, "## 2026-03-13 Friday"), strings.Index(out, "Notes by hand"), strings.Index(out, "## 2026-03-16 Monday")
	if fri < 0 || note < fri || next < note {
		t.Errorf("the note is not between Friday and the next week:\n%s", out)
	}
}

// TestMoreOfDay: a day's section that gains a newer rendering of the day
// keeps every line it has and gains every line of the rendering it lacks,
// in place.
func TestMoreOfDay(t *testing.T) {
	day := func(lines ...string) section {
		return section{Key: "2026-11-06", Day: true, Text: "## 2026-11-06 Friday\n\n" + strings.Join(lines, "\n")}
	}
	tests := []struct {
		name       string
		old, fresh section
		where      string
		want       section
	}{
		{"an entry's text changed and gained a decision",
			day("- Friday work — Did X.", "", "Log: 2026-11-06.md"),
			day("- Friday work — Did X and Y.", "  - Decision: ship Y.", "", "Log: 2026-11-06.md in archive/2026-11.md"), "2026-11-06.md in archive/2026-11.md",
			day("- Friday work — Did X.", "- Friday work — Did X and Y.", "  - Decision: ship Y.", "", "Log: 2026-11-06.md in archive/2026-11.md")},
		{"a new entry whose heading starts another's",
			day("- Deploy to staging — Went fine. (edited by Bob)"),
			day("- Deploy to staging — Went fine.", "- Deploy", "  - Lesson: never deploy on Friday."), "",
			day("- Deploy to staging — Went fine. (edited by Bob)", "- Deploy to staging — Went fine.", "- Deploy", "  - Lesson: never deploy on Friday.")},
		{"nothing logged, then something; an empty Log: line",
			day(nothingLogged, "", "Log: "),
			day("- Work — Did it."), "",
			day("- Work — Did it.", "", "Log: ")},
		{"a person's paragraph and their note on the Log: line",
			day("We paired all day.", "", "Log: 2026-11-06.md (see the recording)"),
			day("- Work — Did it.", "", "Log: 2026-11-06.md in archive/2026-11.md"), "2026-11-06.md in archive/2026-11.md",
			day("We paired all day.", "- Work — Did it.", "", "Log: 2026-11-06.md (see the recording)", "", "Log: 2026-11-06.md in archive/2026-11.md")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fresh.where = tt.where
			got := mergeSections([]section{tt.old}, []section{tt.fresh})
			if len(got) != 1 || got[0].Text != tt.want.Text {
				t.Errorf("got\n%s\nwant\n%s", got[0].Text, tt.want.Text)
			}
		})
	}
}

// TestRecompactedDayTakesChangedEntry: a day summarised while its daily
// was kept, whose entry then changed and gained a decision, is summarised
// again with the new text and the decision.
func TestRecompactedDayTakesChangedEntry(t *testing.T) {
	ws, old := beaconOnly(t)
	daily := "beacon/memory/2026-11-06.md"
	writeFile(t, ws, daily, "# 2026-11-06\n\n## Friday work\n\nDid X.\n", old)
	compactAt(t, ws, "2026-11-09", 0)
	writeFile(t, ws, daily, "# 2026-11-06\n\n## Friday work\n\nDid X and Y.\n\nDecision: ship Y.\n", old)
	compactAt(t, ws, "2026-11-16", 0)
	got := fileText(t, ws.Abs("beacon/memory/weekly/2026-W45.md"))
	lacksNone(t, "the weekly", got, "- Friday work — Did X and Y.", "Decision: ship Y.")
}

// beaconOnly is a workspace of teammate beacon with no memory yet, and
// the time its files are dated, well before the weeks compacted.
func beaconOnly(t *testing.T) (*layout.Workspace, time.Time) {
	t.Helper()
	ws := fromTxtar(t, "")
	old := day("2026-11-01")
	writeFile(t, ws, "beacon/SOUL.md", "# Beacon\n", old)
	return ws, old
}

// lacksNone fails the test for each of wants that got, named what, lacks.
func lacksNone(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, got)
		}
	}
}
