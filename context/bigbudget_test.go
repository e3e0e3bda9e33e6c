package context

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"testing"
)

// TestDailyShareLargeBudgets: the daily share is three quarters of any
// budget, rounded down, up to the largest int (checked against exact
// arithmetic).
func TestDailyShareLargeBudgets(t *testing.T) {
	tests := []struct {
		name   string
		budget int
	}{
		{"minimum", MinBudget},
		{"default", DefaultBudget},
		{"not a multiple of four", 1003},
		{"a third of the largest int", math.MaxInt/3 + 1},
		{"half the largest int", math.MaxInt/2 + 1},
		{"the largest int", math.MaxInt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := new(big.Int).Mul(big.NewInt(int64(tt.budget)), big.NewInt(3))
			want.Quo(want, big.NewInt(4))
			if got := DailyShare(tt.budget); big.NewInt(int64(got)).Cmp(want) != 0 {
				t.Errorf("DailyShare(%d) = %d, want %s", tt.budget, got, want)
			}
		})
	}
}

// TestHugeBudgetKeepsDailies builds the example with budgets so large
// that nothing is left out: every recent daily entry goes in, as under
// a budget merely ample, and the daily share is positive.
func TestHugeBudgetKeepsDailies(t *testing.T) {
	ws := copyExample(t)
	tok := mustTokenizer(t, Chars4)
	build := func(budget int) *Result {
		r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: exampleTask, Budget: budget,
			Tokenizer: tok, Now: fixedClock(exampleNow)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	want := sectionText(t, build(1<<30), SectionDailies)
	for _, budget := range []int{math.MaxInt/3 + 1, math.MaxInt/2 + 1, math.MaxInt} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			r := build(budget)
			if got := sectionText(t, r, SectionDailies); got != want {
				t.Errorf("budget %d: daily logs differ from those under a budget of 2^30:\n%s", budget, got)
			}
			if b := r.Manifest.Budget; b.DailyShare <= 0 || b.DailyShare > b.Total {
				t.Errorf("budget %d: daily share %d", budget, b.DailyShare)
			}
		})
	}
}
