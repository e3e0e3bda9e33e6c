package compact

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// sourceFiles returns the content of every file compaction may remove:
// dailies, weeklies and typed memories, by workspace-relative path.
func sourceFiles(t testing.TB, ws *layout.Workspace, name string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range mustFiles(t, ws, name) {
		switch f.Kind {
		case layout.KindDaily, layout.KindWeekly, layout.KindTyped:
			b, err := os.ReadFile(ws.Abs(f.Path))
			if err != nil {
				t.Fatal(err)
			}
			out[f.Path] = b
		}
	}
	return out
}

// summaryText is every weekly and monthly summary of the teammate, with
// runs of white space made single spaces.
func summaryText(t testing.TB, ws *layout.Workspace, name string) string {
	t.Helper()
	var b strings.Builder
	for _, f := range mustFiles(t, ws, name) {
		if f.Kind == layout.KindWeekly || f.Kind == layout.KindMonthly {
			c, err := os.ReadFile(ws.Abs(f.Path))
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(strings.Join(strings.Fields(string(c)), " ") + "\n")
		}
	}
	return b.String()
}

// checkArchived checks that every source that is no longer in memory/ is
// in the archive: a section (or typed copy) that restores it byte for
// byte, and each of its non-blank lines verbatim in the archive file.
func checkArchived(t testing.TB, ws *layout.Workspace, name string, sources map[string][]byte) {
	t.Helper()
	for rel, want := range sources {
		if layout.HasStub(want) && !strings.Contains(string(want), "\n## ") {
			continue // a compacted daily's stub holds nothing to keep
		}
		if b, err := os.ReadFile(ws.Abs(rel)); err == nil && !layout.HasStub(b) {
			continue // still there (a summary or memory compaction updated, perhaps)
		} else if err == nil && bytes.Equal(b, want) {
			continue
		}
		arel, text := archiveCopy(t, ws, name, rel, want)
		if arel == "" {
			t.Errorf("%s left memory/ without a copy in the archive that restores it", rel)
			continue
		}
		for i, l := range strings.Split(strings.TrimPrefix(string(want), "\ufeff"), "\n") {
			l = strings.TrimSuffix(l, "\r")
			if strings.TrimSpace(l) != "" && !strings.Contains(text, l) {
				t.Errorf("%s:%d: line not verbatim in %s: %q", rel, i+1, arel, l)
			}
		}
	}
	if temps, err := ws.TempFiles(name); err != nil || len(temps) > 0 {
		t.Errorf("temp files left: %v %v", temps, err)
	}
}

// archiveCopy finds the archive file holding an exact copy of rel and
// returns its path and content.
func archiveCopy(t testing.TB, ws *layout.Workspace, name, rel string, want []byte) (string, string) {
	t.Helper()
	sha := sum(want)
	for _, f := range mustFiles(t, ws, name) {
		if f.Kind != layout.KindArchive {
			continue
		}
		b, err := os.ReadFile(ws.Abs(f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if f.Month == "" {
			if sum(b) == sha {
				return f.Path, string(b)
			}
			continue
		}
		secs, err := layout.ParseArchive(f.Path, b)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if _, ok := findSection(secs, strings.TrimPrefix(rel, name+"/memory/"), sha); ok {
			return f.Path, string(b)
		}
	}
	return "", ""
}

// genMessyDay writes a daily of random, messy, hand-written-looking
// entries: wrapped paragraphs, nested lists, code with "## " inside,
// tables, HTML comments, marks in headings and bodies, CJK and emoji, and
// now and then a byte-order mark or CRLF line endings.
func genMessyDay(r *rand.Rand, d time.Time) string {
	var b strings.Builder
	b.WriteString("# " + d.Format(layout.DateLayout) + "\n")
	for i := 0; i < 1+r.Intn(4); i++ {
		b.WriteString("\n" + messyEntry(r, i) + "\n")
	}
	s := b.String()
	if r.Intn(6) == 0 {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	if r.Intn(8) == 0 {
		s = "\ufeff" + s
	}
	return s
}

func messyEntry(r *rand.Rand, i int) string {
	words := []string{"index", "parser", "deploy", "chunk", "vector", "release", "auth", "cache", "部署", "🚀", "budget", "token"}
	w := func() string { return words[r.Intn(len(words))] }
	heads := []string{"Worked on " + w(), "Decision: use " + w(), "Lesson: test the " + w(), "Facts about " + w(), "Notes " + w()}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s %d\n\n", heads[r.Intn(len(heads))], i)
	for k := 0; k < 1+r.Intn(3); k++ {
		switch r.Intn(7) {
		case 0:
			fmt.Fprintf(&b, "Looked at the %s and the %s, which\nwas slow. Then fixed the %s.\n\n", w(), w(), w())
		case 1:
			fmt.Fprintf(&b, "- item about %s\n  - nested Fact: the %s limit is %d\n- Decision: keep the %s\n\n", w(), w(), r.Intn(100), w())
		case 2:
			fmt.Fprintf(&b, "```\n## not a heading %s\nDecision: not one\n```\n\n", w())
		case 3:
			fmt.Fprintf(&b, "| a | b |\n|---|---|\n| %s | %d |\n\n", w(), r.Intn(9))
		case 4:
			fmt.Fprintf(&b, "<!-- Fact: a comment about %s -->\n\n", w())
		case 5:
			fmt.Fprintf(&b, "Lesson: always check the %s first. It saved a day.\n\n", w())
		default:
			fmt.Fprintf(&b, "1. Step on **%s**. Then `%s.x` done.\n2. #decision ship %s\n\n", w(), w(), w())
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// TestArchiveProperty compacts generated messy workspaces at random
// moments, interrupting each run at a random journal step and letting the
// next run finish it, and checks that every source that left memory/ is
// in the archive byte for byte (each non-blank line verbatim), that every
// marked paragraph is in a summary word for word, and that no temp file
// is left.
func TestArchiveProperty(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 3
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(seed)))
			ws := fromTxtar(t, "-- beacon/SOUL.md --\n"+soul)
			start := day("2025-01-06").AddDate(0, 0, r.Intn(30))
			for d := start; d.Before(start.AddDate(0, 4, 0)); d = d.AddDate(0, 0, 1+r.Intn(3)) {
				writeFile(t, ws, layout.DailyPath("beacon", d), genMessyDay(r, d), d)
			}
			marked := markedLines(t, ws)
			now := start
			for run := 0; run < 3; run++ {
				now = now.AddDate(0, 0, 10+r.Intn(300))
				sources := sourceFiles(t, ws, "beacon")
				interrupted(t, ws, now, r.Intn(40))
				if _, err := Run(context.Background(), ws, Options{Now: fixedAt(now)}); err != nil {
					t.Fatalf("run %d at %s: %v", run, now.Format(layout.DateLayout), err)
				}
				checkArchived(t, ws, "beacon", sources)
			}
			summaries := summaryText(t, ws, "beacon")
			left := markedLines(t, ws) // dailies still in memory/
			for m, from := range marked {
				if _, ok := left[m]; !ok && !strings.Contains(summaries, m) {
					t.Errorf("%s: marked text in no summary: %q", from, m)
				}
			}
		})
	}
}

// interrupted runs a compaction that stops dead after journal step n, as
// a killed process would: its goroutine exits there, leaving the files as
// they are (the workspace lock is released, as the kernel releases a dead
// process's locks).
func interrupted(t testing.TB, ws *layout.Workspace, now time.Time, n int) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		_, err = Run(context.Background(), ws, Options{Now: fixedAt(now), afterStep: func(step int) {
			if step == n {
				runtime.Goexit()
			}
		}})
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func fixedAt(d time.Time) func() time.Time {
	t := layout.Day(d).Add(12 * time.Hour)
	return func() time.Time { return t }
}
