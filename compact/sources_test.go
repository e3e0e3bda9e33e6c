package compact

import (
	"slices"
	"strings"
	"testing"
)

// TestSourceRefRoundTrip reads sources items and writes them back as
// they were: a file, its hash and where it is now, or fewer of them, as a
// person may leave an item (no space added at its end).
func TestSourceRefRoundTrip(t *testing.T) {
	for _, s := range []string{
		"2026-03-09.md sha256:0123456789ab archive/2026-03.md",
		"2026-03-09.md sha256:0123456789ab",
		"9999-99-99.md",
	} {
		if got := parseSourceRef(s).String(); got != s {
			t.Errorf("%q read and written is %q", s, got)
		}
	}
}

// TestFailureLines: the units a failed one held back (a full disk fails
// every later unit of its teammate) are counted in one line after it, not
// named one a line; other failures are named each.
func TestFailureLines(t *testing.T) {
	res := &Result{
		Plan: &Plan{Failed: []Failure{{Unit: "beacon/memory/feedback_x.md", Error: "beacon/memory/feedback_x.md:2: bad frontmatter"}}},
		Failed: []Failure{
			{Unit: "beacon/weekly/2026-W10", Error: "write: no space left on device"},
			{Unit: "beacon/weekly/2026-W11", Error: "not applied after beacon/weekly/2026-W10 failed", after: "beacon/weekly/2026-W10"},
			{Unit: "beacon/monthly/2026-03", Error: "not applied after beacon/weekly/2026-W10 failed", after: "beacon/weekly/2026-W10"},
			{Unit: "quill/weekly/2026-W10", Error: "write: no space left on device"},
		},
	}
	want := []string{
		"beacon/memory/feedback_x.md:2: bad frontmatter",
		"beacon/weekly/2026-W10: write: no space left on device",
		"beacon/weekly/2026-W10: and 2 more unit(s) of its teammate, not applied after it; the next run plans them again",
		"quill/weekly/2026-W10: write: no space left on device",
	}
	if got := res.FailureLines(); !slices.Equal(got, want) {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
