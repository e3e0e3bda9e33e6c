package merge_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// Two machines that compacted the same week at different points: the
// merge keeps one summary with every line of both, the sources of both
// and a period covering both, the same whichever side is ours.
func TestMergeSummaries(t *testing.T) {
	weekly := func(period string, sources []string, body ...string) string {
		return "---\ntype: weekly\nweek: 2026-W10\nteammate: beacon\nperiod: " + period + "\nsources:\n- " +
			strings.Join(sources, "\n- ") + "\n---\n\n" + strings.Join(body, "\n") + "\n"
	}
	const week = "2026-03-02 to 2026-03-08"
	a, b, c := "2026-03-03.md sha256:aaaaaaaaaaaa", "2026-03-03.md sha256:bbbbbbbbbbbb", "2026-03-04.md sha256:cccccccccccc"
	day := func(date string, bullets ...string) string {
		return "## " + date + "\n\n" + strings.Join(bullets, "\n") + "\n\nLog: " + date[:10] + ".md in archive/2026-03.md"
	}
	tests := []struct {
		name               string
		base, ours, theirs string
		want               string
	}{
		{"one holds the other: the fuller is kept",
			"",
			weekly(week, []string{a}, "- Moved the queue.", "- Fixed the alias."),
			weekly(week, []string{b}, "- Moved the queue.", "- Fixed the alias.", "- Paged on the outage."),
			weekly(week, []string{a, b}, "- Moved the queue.", "- Fixed the alias.", "- Paged on the outage.")},
		{"each has a line the other lacks: both kept",
			"",
			weekly(week, []string{a}, "- Moved the queue.", "- Fixed the alias."),
			weekly(week, []string{c}, "- Moved the queue.", "- Wrote the runbook."),
			weekly(week, []string{a, c}, "- Moved the queue.", "- Fixed the alias.", "- Wrote the runbook.")},
		{"late entries of one day on each side, and another day",
			weekly(week, []string{a}, "# Week 2026-W10", "", day("2026-03-03 Tuesday", "- Moved the queue.")),
			weekly(week, []string{b}, "# Week 2026-W10", "", day("2026-03-03 Tuesday", "- Moved the queue.", "- Paged on the outage.", "  - Lesson: page earlier.")),
			weekly("2026-03-01 to 2026-03-08", []string{a, c}, "# Week 2026-W10", "", day("2026-03-03 Tuesday", "- Moved the queue.", "- Fixed the alias."), "", day("2026-03-04 Wednesday", "- Wrote the runbook.")),
			weekly("2026-03-01 to 2026-03-08", []string{a, b, c}, "# Week 2026-W10", "", day("2026-03-03 Tuesday", "- Moved the queue.", "- Fixed the alias.", "- Paged on the outage.", "  - Lesson: page earlier."), "", day("2026-03-04 Wednesday", "- Wrote the runbook."))},
		{"a line one side removed since base goes",
			weekly(week, []string{a}, "- Moved the queue.", "- Typo'd bullet."),
			weekly(week, []string{a}, "- Moved the queue.", "- Fixed the alias."),
			weekly(week, []string{a, c}, "- Moved the queue.", "- Typo'd bullet.", "- Wrote the runbook."),
			weekly(week, []string{a, c}, "- Moved the queue.", "- Fixed the alias.", "- Wrote the runbook.")},
		{"a line one side removed stays removed though the other holds all the first has",
			weekly(week, []string{a}, "- Moved the queue.", "- Decision: use plan 02."),
			weekly(week, []string{a}, "- Moved the queue."),
			weekly(week, []string{a, b}, "- Moved the queue.", "- Decision: use plan 02.", "- Paged on the outage."),
			weekly(week, []string{a, b}, "- Moved the queue.", "- Paged on the outage.")},
		{"fields each side added at one place",
			weekly(week, []string{a}, "- Moved the queue."),
			strings.Replace(weekly(week, []string{a}, "- Moved the queue."), "teammate: beacon\n", "teammate: beacon\nowner: alice\n", 1),
			strings.Replace(weekly(week, []string{a, b}, "- Moved the queue.", "- Paged on the outage."), "teammate: beacon\n", "teammate: beacon\ntags: [x]\n", 1),
			strings.Replace(weekly(week, []string{a, b}, "- Moved the queue.", "- Paged on the outage."), "teammate: beacon\n", "teammate: beacon\nowner: alice\ntags: [x]\n", 1)},
		{"a field one side added is kept where it was put",
			weekly(week, []string{a}, "- Moved the queue."),
			strings.Replace(weekly(week, []string{a}, "- Moved the queue."), "teammate: beacon\n", "teammate: beacon\nreviewed_by: alice  # checked by hand\n", 1),
			weekly(week, []string{a, b}, "- Moved the queue.", "- Paged on the outage."),
			strings.Replace(weekly(week, []string{a, b}, "- Moved the queue.", "- Paged on the outage."), "teammate: beacon\n", "teammate: beacon\nreviewed_by: alice  # checked by hand\n", 1)},
	}
	path := "beacon/memory/weekly/2026-W10.md"
	for _, tt := range tests {
		for _, swap := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, swapped %v", tt.name, swap), func(t *testing.T) {
				ours, theirs := tt.ours, tt.theirs
				if swap {
					ours, theirs = theirs, ours
				}
				res, err := merge.Merge(path, []byte(tt.base), []byte(ours), []byte(theirs))
				if err != nil {
					t.Fatal(err)
				}
				if string(res.Data) != tt.want || res.Conflicts != 0 {
					t.Errorf("got %d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, tt.want)
				}
				if len(res.Notes) != 1 {
					t.Errorf("notes %q, want one saying both sides summarised it", res.Notes)
				}
			})
		}
	}
}

// Two machines that archived one daily at different points in its life:
// the merged archive holds each entry once: the earlier copy whole, the
// later one as a part with only what the earlier lacks, or not at all.
// Which side is ours does not matter.
func TestMergeArchiveCopies(t *testing.T) {
	d1, d2 := time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC)
	entry := func(n int) string { return "## Entry " + string(rune('A'+n)) + "\n\nText " + string(rune('a'+n)) + "." }
	daily := func(ns ...int) []byte {
		out := "# 2026-03-05\n"
		for _, n := range ns {
			out += "\n" + entry(n) + "\n"
		}
		return []byte(out)
	}
	file := func(secs ...layout.ArchiveSection) []byte {
		first := layout.NewArchiveSection("2026-03-02.md", []byte("# 2026-03-02\n"), d1)
		return layout.AppendArchive(nil, "2026-03", append([]layout.ArchiveSection{first}, secs...)...)
	}
	copyOf := func(on time.Time, ns ...int) layout.ArchiveSection {
		return layout.NewArchiveSection("2026-03-05.md", daily(ns...), on)
	}
	tests := []struct {
		name        string
		early, late layout.ArchiveSection
		want        []byte
	}{
		{"the later copy keeps only the entry the earlier lacks", copyOf(d1, 0, 1), copyOf(d2, 0, 1, 2),
			file(copyOf(d1, 0, 1), copyOf(d2, 0, 1, 2).PartOf(entry(2)))},
		{"copies that each hold an entry the other lacks", copyOf(d1, 0, 1), copyOf(d2, 0, 2),
			file(copyOf(d1, 0, 1), copyOf(d2, 0, 2).PartOf(entry(2)))},
		{"a later copy the earlier holds entirely goes", copyOf(d1, 0, 1, 2), copyOf(d2, 0, 1),
			file(copyOf(d1, 0, 1, 2))},
	}
	path := "beacon/memory/archive/2026-03.md"
	for _, tt := range tests {
		for _, swap := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, swapped %v", tt.name, swap), func(t *testing.T) {
				ours, theirs := file(tt.early), file(tt.late)
				if swap {
					ours, theirs = theirs, ours
				}
				res, err := merge.Merge(path, file(), ours, theirs)
				if err != nil {
					t.Fatal(err)
				}
				if string(res.Data) != string(tt.want) || res.Conflicts != 0 {
					t.Errorf("got %d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, tt.want)
				}
				if len(res.Notes) == 0 {
					t.Error("no note says what the merge did to the copies")
				}
			})
		}
	}
}

// TestSummariesWithGit: two machines add different entries to the same
// old daily and each compacts it; the two weekly summaries hold each
// other's lines in part only. The merge keeps one summary holding both,
// with the sources of both, and both machines end with the same files,
// whose citations all name an archived copy of their day.
func TestSummariesWithGit(t *testing.T) {
	gitEnv(t)
	origin := newOrigin(t, useDriver, func(c *clone) {
		c.log(t, day, "Moved the queue", "The queue moved to the new host.")
	})
	a, b := newClone(t, origin, "a", useDriver), newClone(t, origin, "b", useDriver)
	for i, c := range []*clone{a, b} {
		c.logOn(t, "2026-03-09", day.Add(time.Duration(i+1)*time.Hour), fmt.Sprintf("Machine %d fixed a bug", i), "Fixed it.")
		compactAt(t, c, day.AddDate(0, 0, 8+i), 0)
		c.commit(t, "log and compact")
	}
	a.push(t)
	if out, err := b.pull(t); err != nil {
		t.Fatalf("merge conflicted:\n%s", out)
	}
	b.push(t)
	if out, err := a.pull(t); err != nil {
		t.Fatalf("pull back: %v\n%s", err, out)
	}
	const rel = "beacon/memory/weekly/2026-W11.md"
	if ta, tb := tree(t, a), tree(t, b); diffFiles(ta, tb) != "" {
		t.Fatalf("the machines differ:\n%s", diffFiles(ta, tb))
	}
	weekly := string(b.read(t, rel))
	for _, s := range []string{"- Moved the queue", "- Machine 0 fixed a bug", "- Machine 1 fixed a bug"} {
		if strings.Count(weekly, s) != 1 {
			t.Errorf("%q: not once in the weekly:\n%s", s, weekly)
		}
	}
	d, err := layout.Parse(rel, []byte(weekly))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(d.List("sources")); got != 2 {
		t.Errorf("%d sources, want one per version of the daily:\n%s", got, weekly)
	}
	if checkCitations(t, tree(t, b)) == 0 {
		t.Error("no summary cites a log")
	}
}

// checkCitations checks every summary's "Log: <file> in <archive>" line
// names an archive file holding a section of that file, and returns how
// many it checked.
func checkCitations(t *testing.T, files map[string]string) int {
	t.Helper()
	n := 0
	for p, s := range files {
		if !strings.Contains(p, "/weekly/") && !strings.Contains(p, "/monthly/") {
			continue
		}
		for _, l := range strings.Split(s, "\n") {
			src, arch, ok := strings.Cut(strings.TrimPrefix(l, "Log: "), " in ")
			if !strings.HasPrefix(l, "Log: ") || !ok {
				continue
			}
			n++
			if !strings.Contains(files["beacon/memory/"+arch], "<!-- tmem:archive "+src+" sha256:") {
				t.Errorf("%s: %q: %s holds no section of %s", p, l, arch, src)
			}
		}
	}
	return n
}
