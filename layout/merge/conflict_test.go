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

// TestCompactionVersusAppend: one machine compacts a daily (archives and
// deletes it) while the other appends to it. The merge keeps the appended
// entry, in the daily, and says so; the archive keeps the rest.
func TestCompactionVersusAppend(t *testing.T) {
	gitEnv(t)
	origin := newOrigin(t, useDriver, func(c *clone) {
		c.log(t, day, "Old work", "done before")
	})
	a, b := newClone(t, origin, "a", useDriver), newClone(t, origin, "b", useDriver)
	archive(t, a, dailyRel, day.AddDate(0, 0, 9))
	a.commit(t, "compact")
	a.push(t)
	b.log(t, day.Add(5*time.Hour), "Late entry", "written after a compacted")
	b.commit(t, "log")
	if out, err := b.pull(t); err == nil {
		t.Fatalf("git merged a modify/delete without a conflict:\n%s", out)
	}
	notes, err := merge.Git{Dir: b.dir}.ResolveDeleted(b.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "1 entry was appended here; kept") {
		t.Errorf("notes %q, want one saying the appended entry was kept", notes)
	}
	git(t, b.dir, "commit", "--quiet", "--no-edit")
	got := entries(t, dailyRel, b.read(t, dailyRel))
	if want := "Late entry\nwritten after a compacted"; len(got) != 1 || got[0] != want {
		t.Errorf("daily entries %q, want only %q", got, want)
	}
	arch := string(b.read(t, layout.ArchivePath("beacon", "2026-03")))
	if strings.Count(arch, "done before") != 1 || strings.Contains(arch, "Late entry") {
		t.Errorf("archive:\n%s", arch)
	}
}

// archive does to a daily what compaction does to its files: a section
// in the month's archive, then the daily removed.
func archive(t *testing.T, c *clone, rel string, on time.Time) {
	t.Helper()
	src := c.read(t, rel)
	name := rel[strings.LastIndex(rel, "/")+1:]
	arel := layout.ArchivePath("beacon", name[:7])
	old, _ := c.ws.ReadFile(arel, layout.MaxArchiveSize)
	if err := c.ws.WriteFile(arel, layout.AppendArchive(old, name[:7], layout.NewArchiveSection(name, src, on))); err != nil {
		t.Fatal(err)
	}
	if err := c.ws.Remove(rel); err != nil {
		t.Fatal(err)
	}
}
