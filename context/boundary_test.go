package context

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

// byteTokens counts one token per byte, so that a test can make a
// section exactly as large as its share of the budget.
type byteTokens struct{}

func (byteTokens) Name() string          { return "bytes" }
func (byteTokens) Count(text string) int { return len(text) }

// TestBudgetExactFit: a daily entry or a recalled memory that fills its
// share of the budget to the last token goes in, and the budget is not
// reported exceeded; one token more and it is left out.
func TestBudgetExactFit(t *testing.T) {
	const budget = 1024
	soul := "# Solo\n\n## Identity\n\nTests things.\n"
	tests := []struct {
		name string
		// build builds the stack with a filler of n bytes in the memory
		// under test and returns its decision, the tokens its section
		// used and the tokens that section may use.
		build func(t *testing.T, n int) (r *Result, decision, why string, used, limit int)
	}{
		{
			name: "yesterday's entry fills the daily share",
			build: func(t *testing.T, n int) (*Result, string, string, int, int) {
				ws := writeFiles(t, map[string]string{"solo/SOUL.md": soul,
					"solo/memory/2026-11-19.md": "# 2026-11-19\n\n## Notes\n\n" + strings.Repeat("x", n) + "\n"})
				r := buildBytes(t, ws, nil)
				if len(r.Manifest.Dailies) != 1 {
					t.Fatalf("dailies %+v, want one entry", r.Manifest.Dailies)
				}
				d := r.Manifest.Dailies[0]
				return r, d.Decision, d.Why, r.Manifest.Budget.DailiesUsed, r.Manifest.Budget.DailyShare
			},
		},
		{
			name: "a recalled memory fills what the daily logs leave",
			build: func(t *testing.T, n int) (*Result, string, string, int, int) {
				ws := writeFiles(t, map[string]string{"solo/SOUL.md": soul})
				rec := &fakeRecaller{ws: ws, now: exampleNow, extra: []recall.Hit{{Teammate: "solo", Path: "solo/memory/project_x.md",
					Kind: "typed", Type: "project", Name: "X", StartLine: 5, EndLine: 9, Score: 1, Text: strings.Repeat("x", n)}}}
				r := buildBytes(t, ws, rec)
				if len(r.Manifest.Recall.Items) != 1 {
					t.Fatalf("recall items %+v, want one", r.Manifest.Recall.Items)
				}
				it := r.Manifest.Recall.Items[0]
				return r, it.Decision, it.Why, r.Manifest.Budget.RecallUsed, r.Manifest.Budget.RecallGranted
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, dec, why, used, limit := tt.build(t, 10)
			if dec != Included {
				t.Fatalf("a 10-byte memory is %s (%s)", dec, why)
			}
			fill := 10 + limit - used

			r, dec, why, used, limit := tt.build(t, fill)
			if dec != Included || used != limit {
				t.Errorf("exact fit: %s (%s), %d of %d tokens used; want included and all used", dec, why, used, limit)
			}
			b := r.Manifest.Budget
			if b.Used != b.DailiesUsed+b.RecallUsed || b.Used > budget || b.Exceeded || b.ExceededBy != 0 {
				t.Errorf("exact fit: budget %+v, want used within %d and not exceeded", b, budget)
			}
			for _, n := range r.Manifest.Notes {
				if strings.Contains(n, "exceeded") || strings.Contains(n, "over the daily share") {
					t.Errorf("exact fit: note %q", n)
				}
			}

			r, dec, why, used, limit = tt.build(t, fill+1)
			if dec != Dropped || !strings.HasPrefix(why, "does not fit") || used > limit {
				t.Errorf("one token over: %s (%s), %d of %d tokens used; want dropped as not fitting", dec, why, used, limit)
			}
			if b := r.Manifest.Budget; b.Exceeded {
				t.Errorf("one token over: budget %+v reported exceeded", b)
			}
		})
	}
}

// buildBytes builds solo's stack with a budget of 1,024 byte-tokens.
func buildBytes(t *testing.T, ws *layout.Workspace, rec Recaller) *Result {
	t.Helper()
	r, err := Build(context.Background(), ws, Options{Teammate: "solo", Task: "x", Budget: 1024, Tokenizer: byteTokens{},
		Now: fixedClock(exampleNow), Location: time.UTC, Recaller: rec})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, r, byteTokens{})
	return r
}
