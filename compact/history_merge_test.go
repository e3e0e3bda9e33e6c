package compact

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mergeFiles is a WISDOM.md entry citing three typed memories that a
// branch and the branch it is merged into both change.
const mergeFiles = `-- beacon/SOUL.md --
# Beacon
-- beacon/WISDOM.md --
# Wisdom

## Deploys

Never deploy on Fridays.

Sources: feedback_resolved.md, feedback_combined.md, feedback_arrived.md
-- beacon/memory/feedback_resolved.md --
---
name: Resolved
description: d
type: feedback
---

Never deploy on Fridays.
-- beacon/memory/feedback_combined.md --
---
name: Combined
description: d
type: feedback
---

No deploys on Friday afternoons.
-- beacon/memory/feedback_arrived.md --
---
name: Arrived
description: d
type: feedback
---

Deploys wait for Monday.
`

// TestEvolvingByMergeCommit checks that a typed memory is dated by the
// merge commit that made its content: a conflict resolved in the merge,
// or both sides' changes joined by it. git log lists no files for a merge
// unless asked, which dated these by an older commit of either side. A
// memory the merge takes unchanged from the merged branch is dated by
// the commit there that changed it, not by the merge.
func TestEvolvingByMergeCommit(t *testing.T) {
	ws := fromTxtar(t, mergeFiles)
	commit := gitRepo(t, ws)
	dir := filepath.Dir(ws.Root)
	mem := func(f string) string { return ws.Abs("beacon/memory/" + f) }
	edit := func(f, old, new string) {
		t.Helper()
		b, err := os.ReadFile(mem(f))
		if err != nil || !strings.Contains(string(b), old) {
			t.Fatalf("%s: %v, or no %q in it", f, err, old)
		}
		if err := os.WriteFile(mem(f), []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, dir, "checkout", "-q", "-b", "side")
	edit("feedback_resolved.md", "Fridays.", "Fridays or Saturdays.")
	edit("feedback_combined.md", "description: d", "description: deploy days")
	edit("feedback_arrived.md", "Monday.", "Monday morning.")
	commit("2026-10-02", ".")
	gitIn(t, dir, "checkout", "-q", "-")
	edit("feedback_resolved.md", "Fridays.", "Fridays or holidays.")
	edit("feedback_combined.md", "afternoons.", "afternoons, ever.")
	commit("2026-10-03", ".")
	if out, err := exec.Command("git", "-C", dir, "merge", "-q", "side").CombinedOutput(); err == nil {
		t.Fatalf("the merge did not conflict:\n%s", out)
	}
	if err := os.WriteFile(mem("feedback_resolved.md"), []byte("---\nname: Resolved\ndescription: d\ntype: feedback\n---\n\nNever deploy on Fridays, Saturdays or holidays.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commit("2026-11-15", ".")
	touch(t, ws, day("2026-06-01"), "beacon/memory/feedback_resolved.md", "beacon/memory/feedback_combined.md", "beacon/memory/feedback_arrived.md")

	got := runSettled(t, ws)
	if want := []string{"feedback_combined.md", "feedback_resolved.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("typed memories left %q, want %q (the two the merge of 2026-11-15 changed; the one it took from 2026-10-02 absorbed)", got, want)
	}
}

// gitIn runs git with args in dir.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
