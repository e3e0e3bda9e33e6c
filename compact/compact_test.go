package compact

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// twoDays keeps Mondays and Thursdays: enough for every week to have logs
// while the golden file stays readable.
func twoDays(d time.Time) bool { return d.Weekday() == time.Monday || d.Weekday() == time.Thursday }

// markedLines returns every line of the workspace's dailies that must
// survive compaction word for word.
func markedLines(t *testing.T, ws *layout.Workspace) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range mustFiles(t, ws, "beacon") {
		if f.Kind != layout.KindDaily {
			continue
		}
		b, err := os.ReadFile(ws.Abs(f.Path))
		if err != nil {
			t.Fatal(err)
		}
		d, err := layout.Parse(f.Path, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range d.Entries {
			for _, m := range markedTexts(e) {
				out[m] = f.Path
			}
		}
	}
	return out
}

func mustFiles(t testing.TB, ws *layout.Workspace, name string) []layout.File {
	t.Helper()
	fs, err := ws.Files(name)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestEpisodicGolden compacts generated logs with a fixed now and compares
// the whole tree with a golden file: which weeks and months are made, their
// frontmatter and provenance, what is deleted and kept. Each case also
// checks that marked lines survive word for word and that a second run
// changes nothing.
func TestEpisodicGolden(t *testing.T) {
	tests := []struct {
		name, from, to, now, golden string
	}{
		// 14 months: monthlies for the weeks over 52 weeks old, weeklies
		// after, this week's and the last 7 days' dailies kept.
		{"fourteen months", "2025-09-01", "2026-11-18", "2026-11-18", "episodic.txtar"},
		// 2026 has 53 ISO weeks, so on 2027-12-08 (2027-W49) both 2026-W48
		// (monthly 2026-11) and 2026-W49, which runs from 30 November into
		// December (monthly 2026-12, by its Thursday), are over 52 weeks
		// old; 2026-W53 crosses into 2027 and stays a weekly.
		{"iso edges", "2026-11-23", "2027-01-17", "2027-12-08", "iso-edges.txtar"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := genWorkspace(t, day(tt.from), day(tt.to), 3, twoDays)
			marked := markedLines(t, ws)
			opts := Options{Episodic: true, Now: fixed(tt.now)}
			res, err := Run(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Deleted) == 0 || len(res.Written) == 0 {
				t.Fatalf("nothing compacted: %+v", res)
			}
			tree := snapshot(t, ws)
			golden(t, tt.golden, tree)
			if len(marked) == 0 {
				t.Fatal("the generated logs hold no marked lines")
			}
			for line, from := range marked {
				if !strings.Contains(tree, line) {
					t.Errorf("%s: marked line lost: %q", from, line)
				}
			}
			res, err = Run(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Plan.Units) != 0 {
				t.Errorf("second run planned %d units, first %s", len(res.Plan.Units), res.Plan.Units[0].ID)
			}
			if got := snapshot(t, ws); got != tree {
				t.Errorf("second run changed the tree:\n%s", diffLines(tree, got))
			}
		})
	}
}

// TestLateDailyMerged adds a back-filled day to a week that already has
// a weekly summary, and to a week already folded into a monthly: both are
// merged, not skipped and not duplicated.
func TestLateDailyMerged(t *testing.T) {
	ws := genWorkspace(t, day("2025-09-01"), day("2026-11-18"), 2, twoDays)
	opts := Options{Episodic: true, KeepStubDays: -1, Now: fixed("2026-11-18")}
	if _, err := Run(context.Background(), ws, opts); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, day, summary string
	}{
		{"weekly", "2026-10-06", "beacon/memory/weekly/2026-W41.md"},
		{"monthly", "2025-10-07", "beacon/memory/monthly/2025-10.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := "- Decision: back-filled on " + tt.day + " after the fact"
			writeFile(t, ws, "beacon/memory/"+tt.day+".md", "# "+tt.day+"\n\n## Late note\n\n"+line+"\n", day(tt.day))
			old, err := os.ReadFile(ws.Abs(tt.summary))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), ws, opts); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(ws.Abs(tt.summary))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), line) {
				t.Errorf("%s does not hold the late line", tt.summary)
			}
			if !strings.Contains(string(got), tt.day+".md sha256:") {
				t.Errorf("%s does not cite %s.md in its sources", tt.summary, tt.day)
			}
			oldDoc, _ := layout.Parse(tt.summary, old)
			for _, e := range oldDoc.Entries {
				for _, l := range strings.Split(e.Text, "\n") {
					if l != "" && strings.Count(string(got), l+"\n") != 1 {
						t.Errorf("line %q is in the merged summary %d times, want once", l, strings.Count(string(got), l+"\n"))
					}
				}
			}
			if _, err := os.Stat(ws.Abs("beacon/memory/" + tt.day + ".md")); !os.IsNotExist(err) {
				t.Errorf("the late daily was not deleted: %v", err)
			}
		})
	}
}

// TestWeeklyShorter checks that weeks of daily use (5 entries a day)
// become weekly summaries within their budget and smaller than the
// dailies, though every entry keeps a bullet.
func TestWeeklyShorter(t *testing.T) {
	ws := genWorkspace(t, day("2026-10-05"), day("2026-11-01"), 5, nil)
	var dailies int64
	for _, f := range mustFiles(t, ws, "beacon") {
		dailies += f.Size
	}
	if _, err := Run(context.Background(), ws, Options{Episodic: true, KeepStubDays: -1, Now: fixed("2026-11-18")}); err != nil {
		t.Fatal(err)
	}
	var weeklies int64
	for _, f := range mustFiles(t, ws, "beacon") {
		switch f.Kind {
		case layout.KindDaily:
			t.Errorf("%s was not compacted", f.Path)
		case layout.KindWeekly:
			weeklies += f.Size
			if f.Size > 4*DefaultWeeklyBudget {
				t.Errorf("%s is %d bytes, over its budget of %d tokens", f.Path, f.Size, DefaultWeeklyBudget)
			}
		}
	}
	if weeklies >= dailies {
		t.Errorf("4 weeks of dailies were %d bytes, their weeklies %d: want less", dailies, weeklies)
	}
}

// TestDryRun plans without touching anything.
func TestDryRun(t *testing.T) {
	ws := genWorkspace(t, day("2026-10-05"), day("2026-11-18"), 2, nil)
	before := snapshot(t, ws)
	res, err := Run(context.Background(), ws, Options{DryRun: true, Now: fixed("2026-11-18")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Units) == 0 || len(res.Written)+len(res.Deleted) != 0 {
		t.Fatalf("dry run: %d units planned, %d written, %d deleted", len(res.Plan.Units), len(res.Written), len(res.Deleted))
	}
	if after := snapshot(t, ws); after != before {
		t.Errorf("dry run changed the workspace:\n%s", diffLines(before, after))
	}
	if _, err := os.Stat(ws.Abs(journalPath)); !os.IsNotExist(err) {
		t.Errorf("dry run left a journal: %v", err)
	}
}

// TestDailyChangedDuringCompaction appends to a daily after the plan is
// journalled and before it is applied: its week is left as it is, with
// the next week, whose archive write follows the first's, and no failure;
// the next run summarises both, the new entry included, and archives each
// daily once.
func TestDailyChangedDuringCompaction(t *testing.T) {
	ws := genWorkspace(t, day("2026-11-02"), day("2026-11-15"), 2, nil)
	entry := "Decision: appended while compaction ran"
	opts := Options{Episodic: true, KeepStubDays: -1, Now: fixed("2026-11-25")}
	opts.afterStep = func(n int) {
		if n == 1 { // the journal is written; nothing applied yet
			if _, err := ws.AppendDaily(context.Background(), "beacon", day("2026-11-04"), "Late", entry); err != nil {
				t.Error(err)
			}
		}
	}
	res, err := Run(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 2 || res.Kept[0].Path != "beacon/memory/2026-11-04.md" || res.Kept[1].Path != "beacon/weekly/2026-W46" {
		t.Fatalf("kept %+v, want the changed daily and the week after it", res.Kept)
	}
	if got := paths(t, ws, "beacon", layout.KindDaily); len(got) != 14 || len(res.Written) != 0 {
		t.Fatalf("dailies left %q, written %q; want both weeks left whole (the second writes the archive after the first)", got, res.Written)
	}
	res, err = Run(context.Background(), ws, Options{Episodic: true, KeepStubDays: -1, Now: fixed("2026-11-25")})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(t, ws, "beacon", layout.KindDaily); len(got) != 0 {
		t.Errorf("dailies left after the second run: %q", got)
	}
	b, _ := os.ReadFile(ws.Abs("beacon/memory/weekly/2026-W45.md"))
	if !strings.Contains(string(b), entry) {
		t.Errorf("the appended entry is not in the weekly:\n%s", b)
	}
	a, _ := os.ReadFile(ws.Abs(layout.ArchivePath("beacon", "2026-11")))
	if n := strings.Count(string(a), "<!-- tmem:archive 2026-11-04.md "); n != 1 {
		t.Errorf("the changed daily is archived %d times, want once", n)
	}
}

// TestFactKeepsFrontmatter checks that adding an extracted fact to a typed
// memory keeps its comments, quoting, key order and unknown fields.
func TestFactKeepsFrontmatter(t *testing.T) {
	mem := "---\n# reviewed by ana; keep\nname: 'Pin versions'\ndescription: \"Pin tool versions in CI\"\nowner: ana   # ask her first\ntype: feedback\ntags: [ci, tools]\n---\n\nLesson: pin tool versions in CI.\n"
	ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n-- beacon/memory/feedback_pin_versions.md --\n"+mem+
		"-- beacon/memory/2026-11-02.md --\n# 2026-11-02\n\n## CI\n\n- Lesson: pin tool versions in CI, always\n")
	if _, err := Run(context.Background(), ws, Options{Episodic: true, KeepStubDays: -1, Now: fixed("2026-11-18")}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(ws.Abs("beacon/memory/feedback_pin_versions.md"))
	head := mem[:strings.Index(mem, "tags:")]
	if !strings.HasPrefix(string(b), head) || !strings.Contains(string(b), "tags: [ci, tools]\nsources:\n- 2026-11-02.md sha256:") {
		t.Errorf("the frontmatter was not kept as written:\n%s", b)
	}
	if !strings.HasSuffix(string(b), "Lesson: pin tool versions in CI.\n\nLesson: pin tool versions in CI, always\n") {
		t.Errorf("the fact was not added:\n%s", b)
	}
}

// TestNoArchive checks the spec's plain deletion: with the archive off,
// compaction deletes what it summarised and writes no archive.
func TestNoArchive(t *testing.T) {
	ws := genWorkspace(t, day("2025-09-01"), day("2026-11-18"), 2, twoDays)
	if _, err := Run(context.Background(), ws, Options{NoArchive: true, KeepStubDays: -1, Now: fixed("2026-11-18")}); err != nil {
		t.Fatal(err)
	}
	if a := paths(t, ws, "beacon", layout.KindArchive); len(a) != 0 {
		t.Errorf("archive files written with the archive off: %v", a)
	}
	if len(paths(t, ws, "beacon", layout.KindMonthly)) == 0 || len(paths(t, ws, "beacon", layout.KindDaily)) > 3 {
		t.Errorf("compaction did not run: %v", paths(t, ws, "beacon", layout.KindDaily))
	}
	w, _ := os.ReadFile(ws.Abs("beacon/memory/weekly/2026-W45.md"))
	if strings.Contains(string(w), "archive/") {
		t.Errorf("a summary cites an archive that is off:\n%s", w)
	}
}

// TestDailyStubs: a compacted daily is left as its stub, so that a git
// merge of an entry another machine appended to it runs the merge driver;
// an entry appended to the stub is folded in by the next run, which
// leaves the same stub; the stub goes once it is KeepStubDays old.
func TestDailyStubs(t *testing.T) {
	const rel = "beacon/memory/2026-11-02.md"
	ws := fromTxtar(t, "-- beacon/SOUL.md --\n"+soul+"-- beacon/memory/2026-11-02.md --\n# 2026-11-02\n\n## Moved the queue\n\nThe queue moved to the new host.\n")
	d := day("2026-11-02")
	steps := []struct {
		name, now string
		appended  string // entry appended to the stub before the run
		want      string // the daily after the run; "" for gone
	}{
		{"compaction leaves the stub", "2026-11-18", "", string(layout.DailyStub(d, true))},
		{"an entry appended to the stub is folded in", "2026-11-19", "\n## Late entry\n\nPaged on the outage.\n", string(layout.DailyStub(d, true))},
		{"a young stub stays", "2026-11-30", "", string(layout.DailyStub(d, true))},
		{"an old stub goes", "2026-12-01", "", ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.appended != "" {
				writeFile(t, ws, rel, string(layout.DailyStub(d, true))+st.appended, d)
			}
			if _, err := Run(context.Background(), ws, Options{Episodic: true, Now: fixed(st.now)}); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(ws.Abs(rel))
			if st.want == "" && !errors.Is(err, fs.ErrNotExist) || st.want != "" && string(got) != st.want {
				t.Errorf("daily after the run: %q (%v), want %q", got, err, st.want)
			}
		})
	}
	weekly, err := os.ReadFile(ws.Abs("beacon/memory/weekly/2026-W45.md"))
	if err != nil {
		t.Fatal(err)
	}
	arch, err := os.ReadFile(ws.Abs("beacon/memory/archive/2026-11.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Moved the queue", "Late entry"} {
		if strings.Count(string(weekly), "- "+s) != 1 || strings.Count(string(arch), "## "+s) != 1 {
			t.Errorf("%q: want one bullet in the weekly and one copy in the archive:\n%s\n%s", s, weekly, arch)
		}
	}
}
