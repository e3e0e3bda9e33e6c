package compact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

// TestJournalThatCannotApply checks that an interrupted run whose journal
// holds a unit that cannot be applied fails with the unit and the reason,
// never panics, never deletes a source, and retires the journal, so that
// the next run plans afresh and compacts.
func TestJournalThatCannotApply(t *testing.T) {
	ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
	p := Plan{Units: []Unit{{ID: "beacon/weekly/2026-W45", Kind: KindWeekly, Teammate: "beacon",
		Writes:  []Write{{Path: "beacon/SOUL.md/weekly.md", After: sum([]byte("x")), Content: "x"}},
		Deletes: []Delete{{Path: "beacon/memory/2026-11-02.md", SHA: "0"}},
	}}}
	b, _ := json.Marshal(p)
	writeFile(t, ws, journalPath, string(b), day("2026-11-18"))
	res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
	if err == nil || !strings.Contains(err.Error(), "beacon/weekly/2026-W45") || !strings.Contains(err.Error(), "SOUL.md") {
		t.Fatalf("err = %v, want the unit and the reason", err)
	}
	if res == nil || res.Plan == nil {
		t.Fatal("no result to report")
	}
	if n := len(paths(t, ws, "beacon", layout.KindDaily)); n != 3 {
		t.Fatalf("%d dailies left, want all 3", n)
	}
	if _, err := ws.Lstat(journalPath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the journal is still there (%v): the next run would fail on it again", err)
	}
	if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")}); err != nil {
		t.Fatal(err)
	}
	if n := len(paths(t, ws, "beacon", layout.KindWeekly)); n != 1 {
		t.Errorf("%d weeklies after the next run, want 1", n)
	}
}

// TestFailedUnitSparesOthers checks that a unit that cannot be applied
// (here a write into a path under a file; a folder without write
// permission or a full disk fail the same way) fails its teammate's
// later units, not the other teammates': theirs are applied in the same
// run, and the failed teammate is compacted by the next run.
func TestFailedUnitSparesOthers(t *testing.T) {
	ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
	writeFile(t, ws, "quill/SOUL.md", soul, day("2026-11-02"))
	for d := day("2026-11-02"); !d.After(day("2026-11-04")); d = d.AddDate(0, 0, 1) {
		writeFile(t, ws, layout.DailyPath("quill", d), genDay(d, 2), d)
	}
	dry, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18"), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	p := *dry.Plan
	broken := -1
	for i, u := range p.Units {
		if u.Teammate == "beacon" && len(u.Writes) > 0 && broken < 0 {
			u.Writes = append([]Write{{Path: "beacon/SOUL.md/x.md", After: sum([]byte("x")), Content: "x"}}, u.Writes...)
			p.Units[i], broken = u, i
		}
	}
	if broken < 0 || p.Units[len(p.Units)-1].Teammate != "quill" {
		t.Fatalf("plan %v: want a beacon unit before quill's", unitIDs(p.Units))
	}
	b, _ := json.Marshal(p)
	writeFile(t, ws, journalPath, string(b), day("2026-11-18"))
	_, err = Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
	if err == nil || !strings.Contains(err.Error(), p.Units[broken].ID) {
		t.Fatalf("err = %v, want the failed unit %s named", err, p.Units[broken].ID)
	}
	if n := len(paths(t, ws, "quill", layout.KindWeekly)); n != 1 {
		t.Errorf("quill has %d weeklies, want 1: a beacon failure stopped quill's compaction", n)
	}
	if n := len(paths(t, ws, "beacon", layout.KindDaily)); n != 3 {
		t.Errorf("beacon has %d dailies, want all 3", n)
	}
	if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")}); err != nil {
		t.Fatalf("the next run: %v", err)
	}
	if n := len(paths(t, ws, "beacon", layout.KindWeekly)); n != 1 {
		t.Errorf("beacon has %d weeklies after the next run, want 1", n)
	}
}

func unitIDs(us []Unit) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.ID)
	}
	return out
}

func TestCorruptJournal(t *testing.T) {
	ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
	writeFile(t, ws, journalPath, "{not json", day("2026-11-18"))
	_, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
	if err == nil || !strings.Contains(err.Error(), "tmem compact --drop-journal") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnreadableDailySkipped checks that a daily that is not text is left
// where it is and reported with its path and line, while the rest of the
// workspace is compacted, in a real run and a dry run alike.
func TestUnreadableDailySkipped(t *testing.T) {
	for _, dry := range []bool{true, false} {
		ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
		writeFile(t, ws, "beacon/memory/2026-11-05.md", "# 2026-11-05\n\n## bad\n\xff\xfe\n", day("2026-11-05"))
		res, err := Run(context.Background(), ws, Options{DryRun: dry, Now: fixed("2026-11-18")})
		if err == nil || !strings.Contains(err.Error(), "beacon/memory/2026-11-05.md:4: invalid UTF-8") {
			t.Fatalf("dry %v: err = %v", dry, err)
		}
		if len(res.Plan.Units) != 1 {
			t.Errorf("dry %v: %d units planned, want the week's other days", dry, len(res.Plan.Units))
		}
		if _, err := os.Stat(ws.Abs("beacon/memory/2026-11-05.md")); err != nil {
			t.Errorf("dry %v: the bad daily was touched: %v", dry, err)
		}
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("runs as root, who reads files whatever their mode")
	}
	ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
	p := ws.Abs("beacon/memory/2026-11-03.md")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(p, 0o644)
	_, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
	if err == nil || !strings.Contains(err.Error(), "2026-11-03.md") {
		t.Fatalf("err = %v", err)
	}
}

// TestTeammatesNamedLikeLocks checks that teammates whose names are those
// of workspace locks compact like any other.
func TestTeammatesNamedLikeLocks(t *testing.T) {
	ws := fromTxtar(t, "-- compact/SOUL.md --\n# Compact\n-- index-beacon/SOUL.md --\n# Index\n-- beacon/SOUL.md --\n# Beacon\n")
	for _, name := range []string{"compact", "index-beacon", "beacon"} {
		for d := day("2026-11-02"); d.Before(day("2026-11-05")); d = d.AddDate(0, 0, 1) {
			writeFile(t, ws, layout.DailyPath(name, d), genDay(d, 2), d)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, ws, Options{Now: fixed("2026-11-18")})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("compaction did not finish: a teammate's lock is the workspace's")
	}
	for _, name := range []string{"compact", "index-beacon", "beacon"} {
		if n := len(paths(t, ws, name, layout.KindWeekly)); n != 1 {
			t.Errorf("%s: %d weeklies", name, n)
		}
	}
}

// TestTeammateLockHeld checks that a run whose teammate lock another
// process holds gives up on that teammate after the workspace's wait,
// saying what it waited for, and leaves its dailies, while the other
// teammates are compacted; the run then fails with an error wrapping
// layout.ErrLocked (exit 4) that names the lock.
func TestTeammateLockHeld(t *testing.T) {
	ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
	writeFile(t, ws, "quill/SOUL.md", soul, day("2026-11-02"))
	for d := day("2026-11-02"); !d.After(day("2026-11-04")); d = d.AddDate(0, 0, 1) {
		writeFile(t, ws, layout.DailyPath("quill", d), genDay(d, 2), d)
	}
	if _, err := ws.Dir(".tmp/locks"); err != nil {
		t.Fatal(err)
	}
	holder := flock.New(ws.Abs(".tmp/locks/teammate-beacon.lock"))
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	var notices bytes.Buffer
	ws.Notices, ws.LockWait = &notices, 2*time.Second
	res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
	if !errors.Is(err, layout.ErrLocked) || !strings.Contains(err.Error(), "teammate-beacon.lock") {
		t.Fatalf("err = %v, want layout.ErrLocked naming the lock", err)
	}
	if !strings.Contains(notices.String(), "waiting for beacon's lock") {
		t.Errorf("notices %q, want the wait named", notices.String())
	}
	if n := len(paths(t, ws, "beacon", layout.KindDaily)); n != 3 {
		t.Errorf("%d dailies of beacon left, want all 3", n)
	}
	if n := len(paths(t, ws, "quill", layout.KindWeekly)); n != 1 {
		t.Errorf("quill has %d weeklies, want 1: a teammate whose lock is free is compacted", n)
	}
	if res == nil || len(res.Failed) != 1 || res.Failed[0].Unit != "beacon" {
		t.Errorf("failed = %+v, want beacon alone", res)
	}
}

// TestUnusableDailiesNamed checks that dailies compaction cannot use (not
// regular files, names that are no real date) are each named with the
// reason, left where they are, and fail the run, while the week's other
// dailies are compacted; a named pipe is never opened.
func TestUnusableDailiesNamed(t *testing.T) {
	bad := map[string]string{
		"beacon/memory/9999-99-99.md":      "is not a real date",
		"beacon/memory/2026-02-30.md":      "is not a real date",
		"beacon/memory/0000-01-01.md":      "is not a real date",
		"beacon/memory/weekly/0000-W01.md": "there is no year 0",
		"beacon/memory/2026-11-03x.md":     "", // a typed memory's name: not a daily, no failure
		"beacon/memory/2026-03-11.md":      "not a regular file (a folder)",
		"beacon/memory/2026-03-13.md":      "not a regular file (a named pipe (FIFO))",
	}
	for _, dry := range []bool{true, false} {
		t.Run(fmt.Sprintf("dry run %v", dry), func(t *testing.T) {
			ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
			for rel := range bad {
				switch {
				case strings.HasSuffix(rel, "03-11.md"):
					check(t, os.Mkdir(ws.Abs(rel), 0o755))
				case strings.HasSuffix(rel, "03-13.md"):
					makeFIFO(t, ws.Abs(rel))
				default:
					writeFile(t, ws, rel, "# x\n\n## e\n\nDecision: keep it.\n", day("2026-11-05"))
				}
			}
			res, err := Run(context.Background(), ws, Options{DryRun: dry, Now: fixed("2026-11-18")})
			if err == nil {
				t.Fatal("the run succeeded")
			}
			failed := map[string]string{}
			for _, f := range res.Plan.Failed {
				failed[f.Unit] = f.Error
			}
			for rel, why := range bad {
				if why == "" {
					if _, ok := failed[rel]; ok {
						t.Errorf("%s failed: %s", rel, failed[rel])
					}
					continue
				}
				if !strings.Contains(failed[rel], why) {
					t.Errorf("%s: failure %q, want %q", rel, failed[rel], why)
				}
				if _, err := os.Lstat(ws.Abs(rel)); err != nil {
					t.Errorf("%s was touched: %v", rel, err)
				}
			}
			if len(res.Plan.Units) != 1 {
				t.Errorf("%d units planned, want the week of the good dailies", len(res.Plan.Units))
			}
		})
	}
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCancelStopsBetweenUnits cancels a run while it applies its plan, as
// SIGTERM from cron or systemd does: the run stops before its next unit,
// says so, leaves its journal, and the next run finishes it with the
// result of a run never stopped. Before, the apply phase never looked at
// the context and ran to the end, so tmem waited out its grace period and
// exited in the middle of a write.
func TestCancelStopsBetweenUnits(t *testing.T) {
	base := genWorkspace(t, day("2026-10-05"), day("2026-11-15"), 3, nil)
	ref := layouttest.Copy(t, base.Root)
	total := 0
	if _, err := Run(context.Background(), ref, Options{Now: fixed("2026-11-18"), afterStep: func(n int) { total = n }}); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, ref)
	tests := []struct {
		name  string
		after int
	}{
		{"after the journal is written", 1},
		{"after the first write", 2},
		{"in the middle", total / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := layouttest.Copy(t, base.Root)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			last := 0
			opts := Options{Now: fixed("2026-11-18"), afterStep: func(n int) {
				last = n
				if n == tt.after {
					cancel()
				}
			}}
			_, err := Run(ctx, ws, opts)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "left to the next run") {
				t.Fatalf("err = %v, want a stop that says units are left", err)
			}
			if last >= total {
				t.Errorf("the cancelled run took all %d steps", last)
			}
			if _, err := ws.Lstat(journalPath); err != nil {
				t.Fatalf("no journal left for the next run: %v", err)
			}
			res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Resumed {
				t.Error("the next run did not resume the journal")
			}
			if got := snapshot(t, ws); got != want {
				t.Errorf("after a stop and a rerun the tree differs from a run never stopped:\n%s", diffLines(want, got))
			}
		})
	}
}

// TestKilledJournalWriteCleaned: a run killed while it wrote its journal
// or a proposal leaves a temp file in compaction's own folder, which can
// be as large as everything the plan writes. The next run removes it and
// says so; a dry run leaves it. Before, only the teammates' folders were
// cleaned and the journal's temp file stayed for good.
func TestKilledJournalWriteCleaned(t *testing.T) {
	tests := []struct {
		name string
		rel  string
	}{
		{"journal", ".tmp/compact/.journal.json.tmp-0123456789ab"},
		{"proposal", ".tmp/compact/proposals/.beacon_weekly_2026-W45.json.tmp-0123456789ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
			writeFile(t, ws, tt.rel, `{"units": [`, day("2026-11-18"))
			if _, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18"), DryRun: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := ws.Lstat(tt.rel); err != nil {
				t.Fatalf("a dry run removed %s: %v", tt.rel, err)
			}
			res, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18")})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ws.Lstat(tt.rel); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s is still there (%v)", tt.rel, err)
			}
			if len(res.Cleaned) != 1 || res.Cleaned[0] != tt.rel {
				t.Errorf("cleaned %q, want [%s]", res.Cleaned, tt.rel)
			}
		})
	}
}
