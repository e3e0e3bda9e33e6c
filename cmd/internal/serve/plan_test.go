package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall"
)

// interrupted leaves in ws the journal of a compaction of every teammate
// that stopped before applying anything, as a killed tmem compact does.
func interrupted(t *testing.T, ws *layout.Workspace, now func() time.Time) {
	t.Helper()
	res, err := compact.Run(context.Background(), ws, compact.Options{DryRun: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(res.Plan, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Dir(".tmp/compact"); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile(".tmp/compact/journal.json", b); err != nil {
		t.Fatal(err)
	}
}

// TestCompactPlanScope plans while an interrupted compaction's journal
// is pending: a bound session sees only its own teammate's units.
func TestCompactPlanScope(t *testing.T) {
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	now := func() time.Time { return time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC) }
	interrupted(t, ws, now)
	ix, err := recall.Open(ws, recall.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	tests := []struct {
		name     string
		teammate string
		others   bool // whether other teammates' units show
	}{
		{"bound to beacon", "beacon", false},
		{"unbound", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, err := New(Options{Workspace: ws, Index: ix, Now: now, Teammate: tt.teammate})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			out, err := svc.CompactPlan(context.Background(), CompactPlanInput{})
			if err != nil {
				t.Fatal(err)
			}
			var mine, others []string
			for _, u := range out.Units {
				if strings.HasPrefix(u.ID, "beacon/") {
					mine = append(mine, u.ID)
				} else {
					others = append(others, u.ID)
				}
			}
			if len(mine) == 0 || (len(others) > 0) != tt.others {
				t.Errorf("beacon's units %q, others %q; want others shown: %v", mine, others, tt.others)
			}
			for _, k := range out.Kept {
				if !tt.others && !strings.HasPrefix(k.Path, "beacon/") {
					t.Errorf("kept %s shown to a session bound to beacon", k.Path)
				}
			}
			if !strings.Contains(strings.Join(out.Notes, "\n"), "interrupted compaction") {
				t.Errorf("notes %q do not say an interrupted compaction is pending", out.Notes)
			}
		})
	}
}

// TestCompactPlanFailedUnit plans over a daily that is a link leading
// outside the workspace: that file fails, and the plan of everything else
// still comes back, with the failure in it, rather than a tool error.
func TestCompactPlanFailedUnit(t *testing.T) {
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	outside := filepath.Join(t.TempDir(), "2026-10-27.md")
	if err := os.WriteFile(outside, []byte("# 2026-10-27\n\n## Outside\n\nNot memory.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	daily := filepath.Join(ws.Root, "beacon", "memory", "2026-10-27.md")
	if err := os.Remove(daily); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, daily); err != nil {
		t.Fatal(err)
	}
	svc := serviceOf(t, ws, "")
	var out CompactPlanOutput
	res := callOK(t, connect(t, svc), "memory_compact_plan", map[string]any{"teammate": "beacon"}, &out)
	if len(out.Units) == 0 {
		t.Errorf("no units planned: %s", texts(res))
	}
	if len(out.Failed) == 0 || !strings.Contains(texts(res), "failed: ") {
		t.Errorf("failed %+v, text %q: want the linked daily's failure", out.Failed, texts(res))
	}
}
