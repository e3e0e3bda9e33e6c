package compact

import (
	"strings"
	"testing"
)

// TestWriteDryRun checks the text tmem compact --dry-run prints: what is
// pending from earlier runs first, then the plan.
func TestWriteDryRun(t *testing.T) {
	unit := Unit{ID: "beacon/weekly/2026-W11", Kind: "weekly", Teammate: "beacon",
		Writes:  []Write{{Path: "beacon/memory/weekly/2026-W11.md"}},
		Deletes: []Delete{{Path: "beacon/memory/2026-03-09.md"}, {Path: "beacon/memory/2026-03-10.md", Stub: "x"}}}
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{
			name: "empty plan",
			res:  Result{DryRun: true, Plan: &Plan{}},
			want: "nothing to compact\n",
		},
		{
			name: "no plan",
			res:  Result{DryRun: true, Notes: []string{"the summarizer is not called in a dry run"}},
			want: "note: the summarizer is not called in a dry run\n",
		},
		{
			name: "pending run, notes and held proposals before the plan",
			res: Result{DryRun: true, Resumed: true, Notes: []string{"one", "two"},
				Pending: []Proposal{{ID: "quill/wisdom", File: ".teammates/.tmp/compact/proposals/quill-wisdom.json"}},
				Plan:    &Plan{Units: []Unit{unit}}},
			want: "an interrupted compaction is pending; the next run finishes it first:\n" +
				"note: one\n" +
				"note: two\n" +
				"pending quill/wisdom: a model's summary held for review in .teammates/.tmp/compact/proposals/quill-wisdom.json (tmem compact --apply quill/wisdom, or --discard)\n" +
				"beacon/weekly/2026-W11: create beacon/memory/weekly/2026-W11.md; leave 1 as stubs (2026-03-10.md); delete 1 (2026-03-09.md)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.res.WriteDryRun(&b); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
