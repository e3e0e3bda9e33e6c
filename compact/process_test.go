//go:build !windows

package compact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

// The test binary doubles as the subprocesses of the kill and concurrency
// tests: with TMEM_COMPACT_HELPER set, TestMain runs the helper and exits.
func TestMain(m *testing.M) {
	switch os.Getenv("TMEM_COMPACT_HELPER") {
	case "":
		os.Exit(m.Run())
	case "compact":
		os.Exit(helperCompact())
	case "append":
		os.Exit(helperAppend())
	default:
		fmt.Fprintln(os.Stderr, "unknown helper")
		os.Exit(2)
	}
}

const helperNow = "2026-11-18"

// helperCompact compacts TMEM_DIR and SIGKILLs itself after journal step
// TMEM_KILL_AFTER.
func helperCompact() int {
	ws, err := layout.Open(os.Getenv("TMEM_DIR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	killAt, _ := strconv.Atoi(os.Getenv("TMEM_KILL_AFTER"))
	opts := Options{Now: fixed(helperNow), afterStep: func(n int) {
		if n == killAt {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}}
	if os.Getenv("TMEM_NONCE") != "" {
		opts.Summarizer = nonceSummarizer{os.Getenv("TMEM_NONCE")}
	}
	if _, err := Run(context.Background(), ws, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// nonceSummarizer stands for a model: every answer carries its nonce, so
// two runs never summarise alike.
type nonceSummarizer struct{ nonce string }

func (s nonceSummarizer) Summarize(_ context.Context, req Request) (string, error) {
	if req.Kind == KindWisdom {
		return "## Integration tests " + s.nonce + "\n\nIntegration tests run against real services, not mocks.", nil
	}
	return "# " + req.Unit + "\n\nLooked into the behaviour reported (summary by " + s.nonce + ").\n", nil
}

// helperAppend appends TMEM_COUNT entries as TMEM_ID to past days, the way
// `tmem log --now DAY` does.
func helperAppend() int {
	ws, err := layout.Open(os.Getenv("TMEM_DIR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	n, _ := strconv.Atoi(os.Getenv("TMEM_COUNT"))
	id := os.Getenv("TMEM_ID")
	for i := 0; i < n; i++ {
		d := day("2026-10-05").AddDate(0, 0, (i*5+len(id))%42)
		text := fmt.Sprintf("Decision: concurrent entry %s-%d stays", id, i)
		if _, err := ws.AppendDaily(context.Background(), "beacon", d, "Concurrent "+id, text); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Millisecond)
	}
	return 0
}

// killFixture is a workspace with work for every kind of unit: aged weeks
// for a monthly, completed weeks for weeklies, an existing weekly that
// gained a day, and similar old typed memories for WISDOM.md.
func killFixture(t *testing.T) *layout.Workspace {
	t.Helper()
	ws := genWorkspace(t, day("2025-10-06"), day("2025-10-19"), 3, nil)
	for d := day("2026-10-12"); !d.After(day("2026-11-18")); d = d.AddDate(0, 0, 1) {
		writeFile(t, ws, layout.DailyPath("beacon", d), genDay(d, 3), d)
	}
	old := day("2026-06-01")
	for _, m := range []struct{ file, body string }{
		{"feedback_no_mocks.md", "Integration tests must hit a real database, not mocks.\n\n**Why:** mocked tests passed but the migration failed.\n\n**How to apply:** run integration tests against staging."},
		{"feedback_real_api.md", "Integration tests must call the real API, not mocks of it.\n\n**Why:** the mock drifted from the real API."},
		{"project_staging_env.md", "Staging runs real services so integration tests avoid mocks.\n\n**How to apply:** point integration tests at staging."},
		{"reference_dashboards.md", "Grafana dashboards live at the ops wiki."},
	} {
		typ, _, _ := strings.Cut(m.file, "_")
		writeFile(t, ws, "beacon/memory/"+m.file, "---\nname: "+strings.TrimSuffix(m.file, ".md")+"\ndescription: test memory\ntype: "+typ+"\n---\n\n"+m.body+"\n", old)
	}
	return ws
}

// copyTree copies the workspace, keeping modification times.
func copyTree(t *testing.T, ws *layout.Workspace) *layout.Workspace {
	t.Helper()
	return layouttest.Copy(t, ws.Root)
}

func helper(t *testing.T, mode string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"TMEM_COMPACT_HELPER=" + mode}, env...)...)
	return cmd
}

// TestKillAnyStep SIGKILLs a compaction after each journal step in turn,
// reruns it, and checks the workspace equals an uninterrupted run's.
func TestKillAnyStep(t *testing.T) {
	base := killFixture(t)
	sources := sourceFiles(t, base, "beacon")
	ref := copyTree(t, base)
	steps := 0
	opts := Options{Now: fixed(helperNow), afterStep: func(n int) { steps = n }}
	if _, err := Run(context.Background(), ref, opts); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, ref)
	if steps < 20 {
		t.Fatalf("only %d steps: the fixture is too small", steps)
	}
	if !strings.Contains(want, "beacon/memory/monthly/2025-10.md") || !strings.Contains(want, "## ") || !strings.Contains(want, "Sources: archive/typed/feedback_no_mocks.md") {
		t.Fatalf("the fixture does not exercise monthly and wisdom units:\n%s", want[:2000])
	}
	stride := 1
	if testing.Short() {
		stride = 7
	}
	for n := 1; n <= steps; n += stride {
		t.Run(fmt.Sprintf("after step %d", n), func(t *testing.T) {
			ws := copyTree(t, base)
			cmd := helper(t, "compact", "TMEM_DIR="+ws.Root, fmt.Sprintf("TMEM_KILL_AFTER=%d", n))
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("helper was not killed: %v\n%s", err, out)
			}
			// What a write killed before its rename leaves behind.
			writeFile(t, ws, "beacon/memory/.2026-11-02.md.tmp-4242", "half a file", day("2026-11-18"))
			res, err := Run(context.Background(), ws, Options{Now: fixed(helperNow)})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Resumed {
				t.Error("the rerun did not resume the journal")
			}
			if got := snapshot(t, ws); got != want {
				t.Errorf("after a kill at step %d and a rerun the tree differs from an uninterrupted run:\n%s", n, diffLines(want, got))
			}
			if len(res.Cleaned) != 1 {
				t.Errorf("cleaned %q, want the killed write's temp file", res.Cleaned)
			}
			checkArchived(t, ws, "beacon", sources)
		})
	}
}

// TestConcurrentAppends runs compaction while three processes append
// entries to the very days being compacted: every entry survives, in a
// summary or in a daily.
func TestConcurrentAppends(t *testing.T) {
	ws := genWorkspace(t, day("2026-10-05"), day("2026-11-15"), 3, nil)
	const procs, count = 3, 40
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := 0; p < procs; p++ {
		cmd := helper(t, "append", "TMEM_DIR="+ws.Root, fmt.Sprintf("TMEM_ID=p%d", p), fmt.Sprintf("TMEM_COUNT=%d", count))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				errs <- err
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	runs := 0
	for loop := true; loop; runs++ {
		select {
		case <-done:
			loop = false
		default:
		}
		if _, err := Run(context.Background(), ws, Options{Episodic: true, Now: fixed(helperNow)}); err != nil {
			t.Fatal(err)
		}
	}
	close(errs)
	for err := range errs {
		t.Fatalf("appender failed: %v", err)
	}
	all := snapshot(t, ws)
	for p := 0; p < procs; p++ {
		for i := 0; i < count; i++ {
			e := fmt.Sprintf("Decision: concurrent entry p%d-%d stays", p, i)
			if !strings.Contains(all, e) {
				t.Errorf("entry lost: %q", e)
			}
		}
	}
	t.Logf("%d compaction runs overlapped the appends", runs)
}

// TestKillWithModel kills a compaction whose summarizer never answers the
// same way twice, after its journal is written, and reruns it with
// another: the journal, not a second call to the model, finishes the
// interrupted units, so every summary holds the first run's answer, every
// marked line survives and a third run has nothing to do.
func TestKillWithModel(t *testing.T) {
	base := killFixture(t)
	marked := markedLines(t, base)
	for _, n := range []int{1, 3, 9, 20, 40} {
		t.Run(fmt.Sprintf("after step %d", n), func(t *testing.T) {
			ws := copyTree(t, base)
			cmd := helper(t, "compact", "TMEM_DIR="+ws.Root, fmt.Sprintf("TMEM_KILL_AFTER=%d", n), "TMEM_NONCE=first")
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Fatalf("helper was not killed:\n%s", out)
			}
			opts := Options{Now: fixed(helperNow), Summarizer: nonceSummarizer{"second"}}
			if _, err := Run(context.Background(), ws, opts); err != nil {
				t.Fatal(err)
			}
			tree := snapshot(t, ws)
			for line, from := range marked {
				if !strings.Contains(tree, line) {
					t.Errorf("%s: marked line lost: %q", from, line)
				}
			}
			for _, f := range mustFiles(t, ws, "beacon") {
				if f.Kind != layout.KindWeekly && f.Kind != layout.KindMonthly {
					continue
				}
				b, _ := os.ReadFile(ws.Abs(f.Path))
				if c := strings.Count(string(b), "summary by "); c != 1 || !strings.Contains(string(b), "summary by first)") {
					t.Errorf("%s holds %d model answers, want the journalled one only:\n%s", f.Path, c, b)
				}
			}
			res, err := Run(context.Background(), ws, Options{Now: fixed(helperNow), Summarizer: nonceSummarizer{"third"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Plan.Units) != 0 {
				t.Errorf("a third run planned %d units", len(res.Plan.Units))
			}
		})
	}
}
