package compact

import "testing"

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
