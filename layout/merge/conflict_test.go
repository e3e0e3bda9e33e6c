package merge_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// TestConflictOnlyAroundEntry: both machines edit the same entry; the
// merge stops with markers around that entry and nothing else.
func TestConflictOnlyAroundEntry(t *testing.T) {
	gitEnv(t)
	origin := newOrigin(t, useDriver, func(c *clone) {
		c.log(t, day, "First", "one")
		c.log(t, day.Add(time.Hour), "Second", "two")
		c.log(t, day.Add(2*time.Hour), "Third", "three")
	})
	a, b := newClone(t, origin, "a", useDriver), newClone(t, origin, "b", useDriver)
	for i, c := range []*clone{a, b} {
		src := strings.Replace(string(c.read(t, dailyRel)), "two", []string{"two, said a", "two, said b"}[i], 1)
		if err := c.ws.WriteFile(dailyRel, []byte(src)); err != nil {
			t.Fatal(err)
		}
	}
	b.log(t, day.Add(3*time.Hour), "Fourth", "four")
	a.commit(t, "edit")
	b.commit(t, "edit and log")
	a.push(t)
	if out, err := b.pull(t); err == nil {
		t.Fatalf("merge did not conflict:\n%s", out)
	}
	src := b.read(t, dailyRel)
	lines := strings.Split(string(src), "\n")
	var inside []string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "<<<<<<<"):
			in = true
		case strings.HasPrefix(l, ">>>>>>>"):
			in = false
		case in:
			inside = append(inside, l)
		}
	}
	got := strings.Join(inside, "\n")
	if want := "## Second\n<!-- tmem:at 2026-03-09T10:00:00Z -->\n\ntwo, said b\n=======\n## Second\n<!-- tmem:at 2026-03-09T10:00:00Z -->\n\ntwo, said a"; got != want {
		t.Errorf("inside the markers:\n%s\nwant:\n%s\nfile:\n%s", got, want, src)
	}
	if n := len(layout.ConflictMarkers(src)); n != 3 {
		t.Errorf("%d marker lines, want 3:\n%s", n, src)
	}
	d, err := layout.Parse(dailyRel, src)
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, e := range d.Entries {
		heads = append(heads, e.Heading)
	}
	if got, want := strings.Join(heads, ","), "First,Second,Second,Third,Fourth"; got != want {
		t.Errorf("parsed headings %s, want %s (both sides read, the markers skipped)", got, want)
	}
}

// TestCompactionVersusAppend: one machine compacts a daily while the
// other appends to it. With the stub compaction leaves, git runs the
// driver, which keeps the appended entry in the daily and says so; with
// stubs off (or once the stub is gone) git stops on a modify/delete
// conflict and ResolveDeleted (tmem doctor --fix) settles it the same
// way. Either way the archive keeps the rest, and the next compaction
// folds the entry into the week's summary.
func TestCompactionVersusAppend(t *testing.T) {
	tests := []struct {
		name     string
		stubDays int
		driver   bool // the merge goes through without a manual step
	}{
		{"stub left by compaction", 0, true},
		{"no stubs", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gitEnv(t)
			origin := newOrigin(t, useDriver, func(c *clone) {
				c.log(t, day, "Old work", "done before")
			})
			a, b := newClone(t, origin, "a", useDriver), newClone(t, origin, "b", useDriver)
			compactAt(t, a, day.AddDate(0, 0, 9), tt.stubDays)
			a.commit(t, "compact")
			a.push(t)
			b.log(t, day.Add(5*time.Hour), "Late entry", "written after a compacted")
			b.commit(t, "log")
			out, err := b.pull(t)
			var notes []string
			switch {
			case tt.driver && err != nil:
				t.Fatalf("merge stopped:\n%s", out)
			case tt.driver:
				notes = driverNotes(out)
			case err == nil:
				t.Fatalf("git merged a modify/delete without a conflict:\n%s", out)
			default:
				if notes, err = (merge.Git{Dir: b.dir}).ResolveDeleted(b.ws); err != nil {
					t.Fatal(err)
				}
				git(t, b.dir, "commit", "--quiet", "--no-edit")
			}
			if len(notes) != 1 || !strings.Contains(notes[0], "1 entry was appended") || !strings.Contains(notes[0], "kept them in the daily") {
				t.Errorf("notes %q, want one saying the appended entry was kept", notes)
			}
			src := b.read(t, dailyRel)
			if !layout.HasStub(src) {
				t.Errorf("the daily lost its stub line, so the next compaction would replace the day's summary:\n%s", src)
			}
			var got []string
			for _, e := range entries(t, dailyRel, src) {
				if !strings.HasPrefix(e, "\n") {
					got = append(got, e)
				}
			}
			if want := "Late entry\nwritten after a compacted"; len(got) != 1 || got[0] != want {
				t.Errorf("daily entries %q, want only %q", got, want)
			}
			arch := string(b.read(t, layout.ArchivePath("beacon", "2026-03")))
			if strings.Count(arch, "done before") != 1 || strings.Contains(arch, "Late entry") {
				t.Errorf("archive:\n%s", arch)
			}
			compactAt(t, b, day.AddDate(0, 0, 10), tt.stubDays)
			weekly := string(b.read(t, "beacon/memory/weekly/2026-W11.md"))
			for _, e := range []string{"Old work", "Late entry"} {
				if strings.Count(weekly, "- "+e) != 1 {
					t.Errorf("the weekly does not hold %q once:\n%s", e, weekly)
				}
			}
		})
	}
}

// driverNotes picks the driver's notes about compacted dailies out of
// git's output.
func driverNotes(out string) []string {
	var notes []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "compaction summarised it") {
			notes = append(notes, l)
		}
	}
	return notes
}
