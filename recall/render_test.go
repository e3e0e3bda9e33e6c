package recall

import (
	"strings"
	"testing"
)

// TestWriteHitsHeader: a hit's header names its memory and its entry,
// since the text below starts under the entry's heading.
func TestWriteHitsHeader(t *testing.T) {
	base := Hit{Path: "beacon/memory/project_alias.md", StartLine: 8, EndLine: 9, Kind: "typed", Score: 1.1, Reason: []string{"bm25"}, Text: "Readers query the alias."}
	tests := []struct {
		name, memory, heading, want string
	}{
		{"name and heading", "Search alias cutover", "Alias > Why", "  Search alias cutover — Alias > Why\n"},
		{"heading alone", "", "2026-03-03 > Ops", "  2026-03-03 > Ops\n"},
		{"name alone", "Search alias cutover", "", "  Search alias cutover\n"},
		{"a heading that is the name", "Search alias cutover", "Search alias cutover", "  Search alias cutover\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := base
			h.Name, h.Heading = tt.memory, tt.heading
			var b strings.Builder
			if err := WriteHits(&b, []Hit{h}); err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(b.String(), "\n")
			if want := "beacon/memory/project_alias.md:8-9  [typed 1.100 bm25]" + tt.want; head+"\n" != want {
				t.Errorf("header %q, want %q", head, want)
			}
		})
	}
}
