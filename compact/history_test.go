package compact

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

// historyFiles is a WISDOM.md entry citing four typed memories, one of
// them stamped (2026-11-10) after the commits that made it.
const historyFiles = `-- beacon/SOUL.md --
# Beacon
-- beacon/WISDOM.md --
# Wisdom

## Deploys

Never deploy on Fridays.

Sources: feedback_old_commit.md, feedback_new_commit.md, feedback_edited.md, feedback_stamped.md
-- beacon/memory/feedback_old_commit.md --
---
name: Old commit
description: d
type: feedback
---

Never deploy on Fridays.
-- beacon/memory/feedback_new_commit.md --
---
name: New commit
description: d
type: feedback
---

No deploys on Friday afternoons.
-- beacon/memory/feedback_edited.md --
---
name: Edited
description: d
type: feedback
---

Fridays are for fixes, not deploys.
-- beacon/memory/feedback_stamped.md --
---
name: Stamped
description: d
type: feedback
---

<!-- tmem:at 2026-11-10T09:00:00Z -->

Deploys wait for Monday.
`

// gitRepo makes the folder holding ws a git repository, isolated from the
// user's git config, with every file committed at 2026-10-01; it skips
// the test when git is not installed.
func gitRepo(t *testing.T, ws *layout.Workspace) (commit func(date string, files ...string)) {
	t.Helper()
	layouttest.IsolatedGit(t)
	dir := filepath.Dir(ws.Root)
	commit = func(date string, files ...string) {
		t.Helper()
		for _, args := range [][]string{append([]string{"add", "--"}, files...), {"commit", "-q", "-m", "memories of " + date}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date+"T00:00:00Z", "GIT_COMMITTER_DATE="+date+"T00:00:00Z")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	commit("2026-10-01", ".")
	return commit
}

// touch sets the modification time of workspace files.
func touch(t *testing.T, ws *layout.Workspace, at time.Time, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		if err := os.Chtimes(ws.Abs(rel), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// runSettled compacts ws on 2026-11-18 and returns the typed memories
// left evolving, by file name.
func runSettled(t *testing.T, ws *layout.Workspace) []string {
	t.Helper()
	res, err := Run(context.Background(), ws, Options{Semantic: true, Now: fixed("2026-11-18")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Failed) > 0 || len(res.Failed) > 0 {
		t.Fatalf("failures: %+v %+v", res.Plan.Failed, res.Failed)
	}
	return paths(t, ws, "beacon", layout.KindTyped)
}

// TestEvolvingByCommit checks that in a git work tree a typed memory git
// holds unchanged is evolving by the time of its last commit, not its
// modification time (a clone's is when it ran); an uncommitted edit goes
// by its modification time; a recent stamp keeps a memory evolving.
func TestEvolvingByCommit(t *testing.T) {
	ws := fromTxtar(t, historyFiles)
	commit := gitRepo(t, ws)
	mem := func(f string) string { return "beacon/memory/" + f }
	p := ws.Abs(mem("feedback_new_commit.md"))
	appendTo(t, p, "\nNor on the day before a holiday.\n")
	commit("2026-11-15", ".")
	appendTo(t, ws.Abs(mem("feedback_edited.md")), "\nRollbacks are fine.\n")
	now, old := day("2026-11-18"), day("2026-06-01")
	touch(t, ws, now, mem("feedback_old_commit.md"), mem("feedback_edited.md"))
	touch(t, ws, old, mem("feedback_new_commit.md"), mem("feedback_stamped.md"))

	got := runSettled(t, ws)
	want := []string{"feedback_edited.md", "feedback_new_commit.md", "feedback_stamped.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("typed memories left %q, want %q (the one last committed on 2026-10-01 absorbed)", got, want)
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	if !strings.Contains(string(w), "archive/typed/feedback_old_commit.md sha256:") {
		t.Errorf("the absorbed memory is not cited in the archive:\n%s", w)
	}
}

// TestEvolvingWithoutGit checks that a workspace whose git is missing or
// fails goes by modification times, quietly: a committed memory changed
// long ago but touched now stays evolving.
func TestEvolvingWithoutGit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the failing git is a shell script")
	}
	for name, script := range map[string]string{
		"not installed": "",
		"failing":       "#!/bin/sh\necho 'fatal: something broke' >&2\nexit 128\n",
		"garbled":       "#!/bin/sh\nprintf 'soon\\000feedback_edited.md\\000'\n",
	} {
		t.Run(name, func(t *testing.T) {
			ws := fromTxtar(t, historyFiles)
			gitRepo(t, ws)
			bin := t.TempDir()
			if script != "" {
				if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			mem := func(f string) string { return "beacon/memory/" + f }
			touch(t, ws, day("2026-11-18"), mem("feedback_old_commit.md"))
			touch(t, ws, day("2026-06-01"), mem("feedback_new_commit.md"), mem("feedback_edited.md"), mem("feedback_stamped.md"))
			got := runSettled(t, ws)
			if want := []string{"feedback_old_commit.md", "feedback_stamped.md"}; !reflect.DeepEqual(got, want) {
				t.Errorf("typed memories left %q, want %q (by modification time and stamp)", got, want)
			}
		})
	}
}

func appendTo(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestEvolvingRunsNoHook: the git calls that date memories run no
// program the repository's config names (core.fsmonitor, which git
// status would run).
func TestEvolvingRunsNoHook(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the hook is a shell script")
	}
	ws := fromTxtar(t, historyFiles)
	gitRepo(t, ws)
	dir := filepath.Dir(ws.Root)
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "core.fsmonitor", hook)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config: %v\n%s", err, out)
	}
	touch(t, ws, day("2026-11-18"), "beacon/memory/feedback_old_commit.md")
	runSettled(t, ws)
	if _, err := os.Stat(marker); err == nil {
		t.Error("compaction ran the repository's fsmonitor hook")
	}
}
