package compact

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// conflict is what an unresolved git merge leaves in a file.
const conflict = "<<<<<<< HEAD\nDecision: keep the OURSIDE schedule.\n=======\nDecision: keep the THEIRSIDE schedule.\n>>>>>>> origin/main\n"

// similarMemories are typed memories old enough to be absorbed into
// WISDOM.md, and alike enough to make one entry.
var similarMemories = map[string]string{
	"feedback_no_mocks.md":   "Integration tests must hit a real database, not mocks.",
	"feedback_real_api.md":   "Integration tests must call the real API, not mocks of it.",
	"project_staging_env.md": "Staging runs real services so integration tests avoid mocks.",
}

func typedMemory(file, body string) string {
	typ, _, _ := strings.Cut(file, "_")
	return "---\nname: " + strings.TrimSuffix(file, ".md") + "\ndescription: test memory\ntype: " + typ + "\n---\n\n" + body + "\n"
}

// TestConflictMarkersLeftAsTheyAre: a memory file with merge conflict
// markers is never summarised, rewritten, archived or deleted. It is
// named with the marker's line, the run exits with an error after
// compacting the rest, and no summary holds either side. Before, a daily
// in conflict was summarised with both sides as decisions and replaced
// by its stub, so the conflict vanished from the working tree unresolved.
func TestConflictMarkersLeftAsTheyAre(t *testing.T) {
	tests := []struct {
		name string
		rel  string // the file in conflict
		now  string
		// setup writes the workspace; the file at rel gets the conflict.
		setup func(t *testing.T, ws *layout.Workspace)
		// rest is a file the run still writes.
		rest string
	}{
		{
			name: "daily", rel: "beacon/memory/2026-11-03.md", now: "2026-11-18",
			setup: func(t *testing.T, ws *layout.Workspace) {},
			rest:  "beacon/memory/weekly/2026-W45.md",
		},
		{
			name: "weekly folded into a monthly", rel: "beacon/memory/weekly/2026-W45.md", now: "2027-12-01",
			setup: func(t *testing.T, ws *layout.Workspace) {
				if _, err := Run(context.Background(), ws, Options{Episodic: true, Now: fixed("2026-11-18")}); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "typed memory", rel: "beacon/memory/feedback_no_mocks.md", now: "2026-11-18",
			setup: writeSimilar,
			rest:  "beacon/WISDOM.md",
		},
		{
			name: "WISDOM.md", rel: "beacon/WISDOM.md", now: "2026-11-18",
			setup: func(t *testing.T, ws *layout.Workspace) {
				writeSimilar(t, ws)
				writeFile(t, ws, "beacon/WISDOM.md", "# Wisdom\n\n", day("2026-06-01"))
			},
			rest: "beacon/memory/weekly/2026-W46.md",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := genWorkspace(t, day("2026-11-02"), day("2026-11-15"), 2, nil)
			tt.setup(t, ws)
			old, err := os.ReadFile(ws.Abs(tt.rel))
			if err != nil {
				t.Fatal(err)
			}
			want := string(old) + conflict
			line := strings.Count(string(old), "\n") + 1
			writeFile(t, ws, tt.rel, want, day("2026-06-01"))
			_, err = Run(context.Background(), ws, Options{Now: fixed(tt.now)})
			if at := fmt.Sprintf("%s:%d: merge conflict marker", tt.rel, line); err == nil || !strings.Contains(err.Error(), at) {
				t.Fatalf("err = %v, want %q", err, at)
			}
			if got, err := os.ReadFile(ws.Abs(tt.rel)); err != nil || string(got) != want {
				t.Errorf("%s was changed (%v):\n%s", tt.rel, err, got)
			}
			tree := snapshot(t, ws)
			if n := strings.Count(tree, "THEIRSIDE"); n != 1 {
				t.Errorf("a side of the conflict is in %d places, want only its file:\n%s", n, tree)
			}
			if tt.rest != "" {
				if _, err := os.Stat(ws.Abs(tt.rest)); err != nil {
					t.Errorf("the rest was not compacted: %v", err)
				}
			}
		})
	}
}

// writeSimilar writes similarMemories, last changed long ago.
func writeSimilar(t *testing.T, ws *layout.Workspace) {
	t.Helper()
	for file, body := range similarMemories {
		writeFile(t, ws, "beacon/memory/"+file, typedMemory(file, body), day("2026-06-01"))
	}
}
