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

// shareCase is a stack whose one memory under test, of a filler of n
// bytes, must fit one share of the budget.
type shareCase struct {
	name string
	// build builds the stack with tok and returns the memory's decision,
	// the tokens its section used and the tokens that section may use.
	build func(t *testing.T, n int, tok Tokenizer) (r *Result, decision, why string, used, limit int)
}

// shareCases are a daily entry under the daily share and a recalled
// memory under what the daily logs leave.
func shareCases() []shareCase {
	soul := "# Solo\n\n## Identity\n\nTests things.\n"
	return []shareCase{
		{
			name: "yesterday's entry fills the daily share",
			build: func(t *testing.T, n int, tok Tokenizer) (*Result, string, string, int, int) {
				ws := writeFiles(t, map[string]string{"solo/SOUL.md": soul,
					"solo/memory/2026-11-19.md": "# 2026-11-19\n\n## Notes\n\n" + strings.Repeat("x", n) + "\n"})
				r := buildSmall(t, ws, nil, tok)
				if len(r.Manifest.Dailies) != 1 {
					t.Fatalf("dailies %+v, want one entry", r.Manifest.Dailies)
				}
				d := r.Manifest.Dailies[0]
				return r, d.Decision, d.Why, r.Manifest.Budget.DailiesUsed, r.Manifest.Budget.DailyShare
			},
		},
		{
			name: "a recalled memory fills what the daily logs leave",
			build: func(t *testing.T, n int, tok Tokenizer) (*Result, string, string, int, int) {
				ws := writeFiles(t, map[string]string{"solo/SOUL.md": soul})
				rec := &fakeRecaller{ws: ws, now: exampleNow, extra: []recall.Hit{{Teammate: "solo", Path: "solo/memory/project_x.md",
					Kind: "typed", Type: "project", Name: "X", StartLine: 5, EndLine: 9, Score: 1, Text: strings.Repeat("x", n)}}}
				r := buildSmall(t, ws, rec, tok)
				if len(r.Manifest.Recall.Items) != 1 {
					t.Fatalf("recall items %+v, want one", r.Manifest.Recall.Items)
				}
				it := r.Manifest.Recall.Items[0]
				return r, it.Decision, it.Why, r.Manifest.Budget.RecallUsed, r.Manifest.Budget.RecallGranted
			},
		},
	}
}

// exactFill returns the filler size at which c's memory, counted in
// bytes, fills its share to the last token.
func exactFill(t *testing.T, c shareCase) int {
	t.Helper()
	_, dec, why, used, limit := c.build(t, 10, byteTokens{})
	if dec != Included {
		t.Fatalf("a 10-byte memory is %s (%s)", dec, why)
	}
	return 10 + limit - used
}

// TestBudgetExactFit: a daily entry or a recalled memory that fills its
// share of the budget to the last token goes in, and the budget is not
// reported exceeded; one token more and it is left out.
func TestBudgetExactFit(t *testing.T) {
	for _, tt := range shareCases() {
		t.Run(tt.name, func(t *testing.T) {
			fill := exactFill(t, tt)

			r, dec, why, used, limit := tt.build(t, fill, byteTokens{})
			if dec != Included || used != limit {
				t.Errorf("exact fit: %s (%s), %d of %d tokens used; want included and all used", dec, why, used, limit)
			}
			b := r.Manifest.Budget
			if b.Used != b.DailiesUsed+b.RecallUsed || b.Used > b.Total || b.Exceeded || b.ExceededBy != 0 {
				t.Errorf("exact fit: budget %+v, want used within the total and not exceeded", b)
			}
			for _, n := range r.Manifest.Notes {
				if strings.Contains(n, "exceeded") || strings.Contains(n, "over the daily share") {
					t.Errorf("exact fit: note %q", n)
				}
			}

			r, dec, why, used, limit = tt.build(t, fill+1, byteTokens{})
			if dec != Dropped || !strings.HasPrefix(why, "does not fit") || used > limit {
				t.Errorf("one token over: %s (%s), %d of %d tokens used; want dropped as not fitting", dec, why, used, limit)
			}
			if b := r.Manifest.Budget; b.Exceeded {
				t.Errorf("one token over: budget %+v reported exceeded", b)
			}
		})
	}
}

// joinTax counts a byte a token, plus ten for each "##" or deeper heading
// that follows a blank line: the blocks of a section, which start with
// such a heading, can exceed their share once joined, as BPE counts can.
// Sections start with a "#" heading, so they still add up.
type joinTax struct{}

func (joinTax) Name() string { return "jointax" }
func (joinTax) Count(text string) int {
	return len(text) + 10*strings.Count(text, "\n\n##")
}

// TestBudgetRenderedCount: when a section as rendered counts more tokens
// than its blocks one by one, what was taken last is dropped until the
// rendered section fits its share, and the manifest says why.
func TestBudgetRenderedCount(t *testing.T) {
	for _, tt := range shareCases() {
		t.Run(tt.name, func(t *testing.T) {
			r, dec, why, used, limit := tt.build(t, exactFill(t, tt), joinTax{})
			if dec != Dropped || !strings.HasPrefix(why, "dropped so that the section as rendered fits") {
				t.Errorf("decision %s (%s), want dropped so that the section as rendered fits", dec, why)
			}
			if b := r.Manifest.Budget; used > limit || b.Used > b.Total || b.Exceeded {
				t.Errorf("%d of %d tokens used, budget %+v: want within the share", used, limit, b)
			}
		})
	}
}

// buildSmall builds solo's stack with a budget of 1,024 tokens.
func buildSmall(t *testing.T, ws *layout.Workspace, rec Recaller, tok Tokenizer) *Result {
	t.Helper()
	r, err := Build(context.Background(), ws, Options{Teammate: "solo", Task: "x", Budget: 1024, Tokenizer: tok,
		Now: fixedClock(exampleNow), Location: time.UTC, Recaller: rec})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, r, tok)
	return r
}

// TestRecallOverlapAtEdges: a recalled passage that shares even one line
// with an injected daily entry, or with a better memory that went in, is
// dropped; one that only touches them, or that overlaps a better memory
// that was itself left out, goes in.
func TestRecallOverlapAtEdges(t *testing.T) {
	// Entry "A" is lines 3-5, entry "B" lines 7-9; a long "B" does not
	// fit the daily share, and "A", older, is left out with it.
	small := "# 2026-11-19\n\n## A\n\nalpha\n\n## B\n\nbeta\n"
	long := "# 2026-11-19\n\n## A\n\nalpha\n\n## B\n\n" + strings.Repeat("beta ", 200) + "\n"
	const daily, typed = "solo/memory/2026-11-19.md", "solo/memory/project_x.md"
	hit := func(path string, from, to int, score float64, text string) recall.Hit {
		return recall.Hit{Teammate: "solo", Path: path, Kind: "typed", StartLine: from, EndLine: to, Score: score, Text: text}
	}
	const inDailies, repeats = "already in the stack: the recent daily logs", "repeats lines of a higher-scored memory"
	tests := []struct {
		name string
		log  string // yesterday's log; "" means small
		hits []recall.Hit
		want []string // each hit's Why when dropped, "" when included
	}{
		{"ends on an entry's heading line", "", []recall.Hit{hit(daily, 1, 3, 1, "title")}, []string{inDailies}},
		{"starts on an entry's last line", "", []recall.Hit{hit(daily, 5, 6, 1, "alpha")}, []string{inDailies}},
		{"lies between two entries", "", []recall.Hit{hit(daily, 6, 6, 1, "gap")}, []string{""}},
		{"repeats an entry left out of the daily logs", long, []recall.Hit{hit(daily, 3, 5, 1, "alpha")}, []string{""}},
		{"ends on a better memory's first line", "",
			[]recall.Hit{hit(typed, 10, 20, 1, "better"), hit(typed, 4, 10, 0.9, "worse")}, []string{"", repeats}},
		{"starts on a better memory's last line", "",
			[]recall.Hit{hit(typed, 10, 20, 1, "better"), hit(typed, 20, 24, 0.9, "worse")}, []string{"", repeats}},
		{"follows a better memory", "",
			[]recall.Hit{hit(typed, 10, 20, 1, "better"), hit(typed, 21, 24, 0.9, "worse")}, []string{"", ""}},
		{"overlaps a better memory that did not fit", "",
			[]recall.Hit{hit(typed, 10, 20, 1, strings.Repeat("too long ", 200)), hit(typed, 12, 14, 0.9, "small")},
			[]string{"does not fit", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := tt.log
			if log == "" {
				log = small
			}
			ws := writeFiles(t, map[string]string{"solo/SOUL.md": "# Solo\n\n## Identity\n\nTests things.\n", daily: log})
			r := buildSmall(t, ws, &fakeRecaller{ws: ws, now: exampleNow, extra: tt.hits}, byteTokens{})
			items := r.Manifest.Recall.Items
			if len(items) != len(tt.want) {
				t.Fatalf("recall items %+v, want %d", items, len(tt.want))
			}
			for i, want := range tt.want {
				it := items[i]
				got := ""
				if it.Decision != Included {
					got = it.Why
				}
				if want == "" && got != "" || !strings.HasPrefix(got, want) {
					t.Errorf("%s:%d-%d: %s %q, want %q", it.Path, it.StartLine, it.EndLine, it.Decision, got, want)
				}
			}
		})
	}
}
