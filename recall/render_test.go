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

// TestWriteHitsQuotesPaths: a path with a line break or a terminal escape
// is quoted as tmem list quotes it, so it can neither break the header
// line nor reach the terminal; a plain one is shown as it is.
func TestWriteHitsQuotesPaths(t *testing.T) {
	tests := []struct{ name, path, want string }{
		{"plain", "beacon/memory/user_a.md", "beacon/memory/user_a.md:3-4  "},
		{"a line break", "beacon/memory/user_a\nb.md", `"beacon/memory/user_a\nb.md":3-4  `},
		{"a terminal escape", "beacon/memory/user_\x1b[31mred.md", `"beacon/memory/user_\x1b[31mred.md":3-4  `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			h := Hit{Path: tt.path, StartLine: 3, EndLine: 4, Kind: "typed", Text: "text"}
			if err := WriteHits(&b, []Hit{h}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(b.String(), tt.want) || strings.Count(b.String(), "\n") != 2 {
				t.Errorf("WriteHits wrote %q, want it to start %q on its own line", b.String(), tt.want)
			}
		})
	}
}
