package layout

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		title   string
		meta    map[string]string
		entries []Entry
	}{
		{
			name:  "daily log",
			src:   "# 2026-03-14\n\n## Refactored auth middleware\n- Moved session validation\n- Decided to keep cookies\n\n## Next\n\nUpdate tests.\n",
			title: "2026-03-14",
			entries: []Entry{
				{Heading: "Refactored auth middleware", Text: "- Moved session validation\n- Decided to keep cookies", Start: 3, End: 5},
				{Heading: "Next", Text: "Update tests.", Start: 7, End: 9},
			},
		},
		{
			name:  "daily with frontmatter and text before the first entry",
			src:   "---\nmood: good\n---\n# 2026-03-14\nA preamble line.\n\n## One\nbody\n",
			title: "2026-03-14",
			meta:  map[string]string{"mood": "good"},
			entries: []Entry{
				{Text: "A preamble line.", Start: 5, End: 5},
				{Heading: "One", Text: "body", Start: 7, End: 8},
			},
		},
		{
			name:  "fenced code and deeper headings stay inside an entry",
			src:   "# d\n\n## A\n```\n## not a heading\n```\n### Sub\ntext\n## B\n",
			title: "d",
			entries: []Entry{
				{Heading: "A", Text: "```\n## not a heading\n```\n### Sub\ntext", Start: 3, End: 8},
				{Heading: "B", Start: 9, End: 9},
			},
		},
		{
			name:  "setext headings",
			src:   "Title\n=====\n\nEntry\n-----\ntext\n",
			title: "Title",
			entries: []Entry{
				{Heading: "Entry", Text: "text", Start: 4, End: 6},
			},
		},
		{
			name: "typed memory keeps unknown fields",
			src:  "---\nname: No mocks\ndescription: Real services\ntype: feedback\nowner: atlas\n---\n\nRule.\n\n**Why:** because.\n",
			meta: map[string]string{"name": "No mocks", "description": "Real services", "type": "feedback", "owner": "atlas"},
			entries: []Entry{
				{Text: "Rule.\n\n**Why:** because.", Start: 8, End: 10},
			},
		},
		{
			name:    "weekly summary",
			src:     "---\ntype: weekly\nweek: 2026-W11\nteammate: beacon\nperiod: 2026-03-09 to 2026-03-15\n---\nShipped v0.4.0.\n",
			meta:    map[string]string{"type": "weekly", "week": "2026-W11", "teammate": "beacon", "period": "2026-03-09 to 2026-03-15"},
			entries: []Entry{{Text: "Shipped v0.4.0.", Start: 7, End: 7}},
		},
		{
			name: "empty file",
			src:  "",
		},
		{
			name:    "CRLF line endings",
			src:     "# 2026-03-14\r\n\r\n## A\r\ntext\r\n",
			title:   "2026-03-14",
			entries: []Entry{{Heading: "A", Text: "text", Start: 3, End: 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("x.md", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if d.Title != tt.title {
				t.Errorf("title = %q, want %q", d.Title, tt.title)
			}
			for k, v := range tt.meta {
				if got := d.Get(k); got != v {
					t.Errorf("meta %s = %q, want %q", k, got, v)
				}
			}
			if len(d.Keys()) != len(tt.meta) {
				t.Errorf("meta has %d fields, want %d", len(d.Keys()), len(tt.meta))
			}
			if !reflect.DeepEqual(d.Entries, tt.entries) {
				t.Errorf("entries:\n got %+v\nwant %+v", d.Entries, tt.entries)
			}
			if got := string(d.Bytes()); got != tt.src {
				t.Errorf("Bytes() changed an unmodified file:\n got %q\nwant %q", got, tt.src)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"unclosed flow sequence", "---\nname: x\ntype: [feedback\n---\nbody\n", "x.md:3: bad frontmatter: did not find expected ',' or ']'"},
		{"unclosed flow sequence on the first line", "---\ntags: [deploy\nname: x\n---\nbody\n", "x.md:2: bad frontmatter: did not find expected ',' or ']'"},
		{"unclosed flow mapping on the first line", "\n---\r\ntags: {a\r\n---\r\n", "x.md:3: bad frontmatter: did not find expected ',' or '}'"},
		{"stray bracket", "---\nname: x\ntype: [a]]\n---\n", "x.md:3: bad frontmatter: did not find expected key"},
		{"unclosed frontmatter", "\n---\nname: x\nbody\n", "x.md:2: bad frontmatter: opening '---' has no closing '---'"},
		{"colon in value", "---\nname: x\ndescription: Ticket A-1: fixed\n---\n", "x.md:3: bad frontmatter: mapping values are not allowed in this context"},
		{"colon in the first value", "---\nname: Ingest: events\ntype: project\n---\n", "x.md:2: bad frontmatter: mapping values are not allowed in this context"},
		{"tab indent on the first line", "\n---\n\tname: x\n---\n", "x.md:3: bad frontmatter: found character that cannot start any token"},
		{"control character", "---\nname: x\ndescription: a\x01b\n---\n", "x.md:3: bad frontmatter: control characters are not allowed"},
		{"unknown alias", "---\nname: x\ntype: *feedback\n---\n", "x.md:3: bad frontmatter: unknown anchor 'feedback' referenced"},
		{"invalid UTF-8", "# t\n\n## a\nok \xc3\x28\n", "x.md:4: invalid UTF-8 (byte 0xc3 at offset 13)"},
		{"NUL byte", "# t\n\x00", "x.md:2: binary file: contains a NUL byte"},
		{"too large", strings.Repeat("a", MaxFileSize+1), "x.md: file is 4.0 MiB, over the 4.0 MiB limit for memory files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.md", []byte(tt.src))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %q\nwant  %q", err, tt.want)
			}
		})
	}
}

func TestSetKeepsOrderAndRewritesOnlyWhenChanged(t *testing.T) {
	src := "---\nname:   spaced   # comment\ntype: user\n---\nbody\n"
	d, err := Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(d.Bytes()) != src {
		t.Fatalf("untouched frontmatter was rewritten: %q", d.Bytes())
	}
	for _, kv := range [][2]string{{"type", "feedback"}, {"added", "yes"}} {
		if err := d.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := "---\nname:   spaced   # comment\ntype: feedback\nadded: \"yes\"\n---\nbody\n"
	if got := string(d.Bytes()); got != want {
		t.Errorf("Bytes() = %q, want %q", got, want)
	}
}

func TestParseByteOrderMark(t *testing.T) {
	src := "\ufeff---\nname: x\n---\n# 2026-03-02\n\n## A\ntext\n"
	d, err := Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if d.Get("name") != "x" || d.Title != "2026-03-02" || len(d.Entries) != 1 || d.Entries[0].Heading != "A" || d.Entries[0].Start != 6 {
		t.Errorf("a byte-order mark changed the parse: meta %q, title %q, entries %+v", d.Keys(), d.Title, d.Entries)
	}
	if string(d.Bytes()) != src {
		t.Errorf("Bytes() = %q, want the file back with its mark", d.Bytes())
	}
}
