package merge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

var day = time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)

const (
	dailyRel  = "beacon/memory/2026-03-09.md"
	typedRel  = "beacon/memory/project_auth.md"
	wisdomRel = "beacon/WISDOM.md"
)

// twoClones: both machines append to the same daily, typed memory and
// WISDOM.md, one pushes and the other pulls. Both write one entry word for
// word the same (the same commit hook ran on each), which must land once.
func twoClones(t *testing.T, s strategy) (*clone, string) {
	t.Helper()
	gitEnv(t)
	origin := newOrigin(t, s, func(c *clone) {
		c.log(t, day, "Started auth work", "Read the old middleware.")
		c.remember(t, day, "auth", "Sessions live in cookies.")
	})
	a, b := newClone(t, origin, "a", s), newClone(t, origin, "b", s)
	for i, c := range []*clone{a, b} {
		at := day.Add(time.Duration(i+1) * time.Hour)
		c.log(t, at, fmt.Sprintf("Machine %d ran the suite", i), fmt.Sprintf("Failures on machine %d: none.\nAll green.", i))
		c.log(t, at.Add(time.Minute), "Tagged v0.4", "Release notes written.")
		c.log(t, at.Add(2*time.Minute), fmt.Sprintf("Machine %d cleaned up", i), "Removed temp files.\nAll green.")
		c.remember(t, at, "auth", fmt.Sprintf("Machine %d: tokens rotate daily.\nAll green.", i))
		w := c.read(t, wisdomRel)
		w = append(w, fmt.Sprintf("\n## Rule %d\n\nMachine %d learned a rule.\nAll green.\n", i, i)...)
		if err := c.ws.WriteFile(wisdomRel, w); err != nil {
			t.Fatal(err)
		}
	}
	// the shared entry, written the same on both machines
	for _, c := range []*clone{a, b} {
		c.log(t, day.Add(3*time.Hour), "Nightly backup", "Backup done.")
		c.commit(t, "work")
	}
	a.push(t)
	out, err := b.pull(t)
	if err != nil {
		return b, out
	}
	return b, ""
}

// wantDaily is every entry the two machines wrote, once.
func wantDaily() []string {
	var out []string
	out = append(out, "Started auth work\nRead the old middleware.", "Tagged v0.4\nRelease notes written.", "Nightly backup\nBackup done.")
	for i := 0; i < 2; i++ {
		out = append(out, fmt.Sprintf("Machine %d ran the suite\nFailures on machine %d: none.\nAll green.", i, i),
			fmt.Sprintf("Machine %d cleaned up\nRemoved temp files.\nAll green.", i))
	}
	return out
}

func TestTwoClonesWithDriver(t *testing.T) {
	b, conflict := twoClones(t, useDriver)
	if conflict != "" {
		t.Fatalf("merge conflicted:\n%s", conflict)
	}
	t.Run("daily", func(t *testing.T) {
		got := entries(t, dailyRel, b.read(t, dailyRel))
		// "Tagged v0.4" is written on both machines with different stamps: two entries
		want := append(wantDaily(), "Tagged v0.4\nRelease notes written.")
		sortStrings(want)
		if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
			t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
		}
	})
	t.Run("typed", func(t *testing.T) {
		src := string(b.read(t, typedRel))
		for _, p := range []string{"Sessions live in cookies.", "Machine 0: tokens rotate daily.\nAll green.", "Machine 1: tokens rotate daily.\nAll green.", "name: auth\n"} {
			if n := strings.Count(src, p); n != 1 {
				t.Errorf("%q appears %d times, want once:\n%s", p, n, src)
			}
		}
		if _, err := layout.Parse(typedRel, []byte(src)); err != nil {
			t.Error(err)
		}
	})
	t.Run("wisdom", func(t *testing.T) {
		got := entries(t, wisdomRel, b.read(t, wisdomRel))
		for i := 0; i < 2; i++ {
			want := fmt.Sprintf("Rule %d\nMachine %d learned a rule.\nAll green.", i, i)
			if n := count(got, want); n != 1 {
				t.Errorf("%q: %d times, want once; entries:\n%s", want, n, strings.Join(got, "\n--\n"))
			}
		}
	})
}

// TestTwoClonesWithUnion shows what git's built-in union merge does with
// the same work: no conflict, but entries repeated or cut in pieces.
func TestTwoClonesWithUnion(t *testing.T) {
	b, conflict := twoClones(t, useUnion)
	if conflict != "" {
		t.Fatalf("merge conflicted:\n%s", conflict)
	}
	got := entries(t, dailyRel, b.read(t, dailyRel))
	want := append(wantDaily(), "Tagged v0.4\nRelease notes written.")
	sortStrings(want)
	if strings.Join(got, "\n--\n") == strings.Join(want, "\n--\n") {
		t.Fatalf("union kept every entry whole and once; the driver would not be needed:\n%s", b.read(t, dailyRel))
	}
	t.Logf("merge=union daily:\n%s", b.read(t, dailyRel))
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestDriverMissingKeepsBothSides registers the driver to run a program
// git cannot find (a path with a space, not there): the merge falls back
// to git merge-file, so the daily holds both machines' entries between
// conflict markers, and git says why, rather than keeping ours alone.
func TestDriverMissingKeepsBothSides(t *testing.T) {
	b, out := twoClones(t, useMissing)
	if out == "" {
		t.Fatal("the merge succeeded without a driver to run")
	}
	daily := string(b.read(t, dailyRel))
	for _, want := range []string{"<<<<<<< ours", ">>>>>>> theirs", "Machine 0 ran the suite", "Machine 1 ran the suite", "Machine 0 cleaned up", "Machine 1 cleaned up"} {
		if !strings.Contains(daily, want) {
			t.Errorf("the daily lacks %q:\n%s", want, daily)
		}
	}
	if !strings.Contains(out, "not found; merging .teammates/"+dailyRel+" line by line") {
		t.Errorf("git's output does not say the driver was not found:\n%s", out)
	}
}

// TestDriverFallbackQuotesThePath merges, with the driver's program not
// there, a memory file whose name holds $(…), `…` and a double quote: the
// fallback names it on stderr and runs nothing the name says.
func TestDriverFallbackQuotesThePath(t *testing.T) {
	gitEnv(t)
	dir := t.TempDir()
	git(t, dir, "init", "--quiet", "-b", "main")
	if err := (merge.Git{Dir: dir}).Register(filepath.Join(t.TempDir(), "no such tmem")); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(dir, "pwned") // git runs the driver at the top of the work tree
	name := "a$(touch pwned1)`touch pwned2`\";touch pwned3;\".md"
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.md merge=tmem\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write("# a\n\nbase\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "--quiet", "-m", "base")
	git(t, dir, "checkout", "--quiet", "-b", "other")
	write("# a\n\ntheirs\n")
	git(t, dir, "commit", "--quiet", "-am", "theirs")
	git(t, dir, "checkout", "--quiet", "main")
	write("# a\n\nours\n")
	git(t, dir, "commit", "--quiet", "-am", "ours")
	out, err := gitErr(dir, "merge", "other")
	if err == nil {
		t.Fatal("the merge succeeded")
	}
	for i := 1; i <= 3; i++ {
		if _, err := os.Stat(pwned + strconv.Itoa(i)); err == nil {
			t.Errorf("the file name ran a command (pwned%d)", i)
		}
	}
	if !strings.Contains(out, "not found; merging") || !strings.Contains(out, "touch") {
		t.Errorf("git's output does not name the file:\n%s", out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, name))
	if !strings.Contains(string(b), "theirs") || !strings.Contains(string(b), "ours") {
		t.Errorf("the file lost a side:\n%s", b)
	}
}
