package context

import (
	"slices"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"
)

// FuzzDemote checks demote with a CommonMark parser: the top-level
// headings of a memory's text move down by the levels asked (capped at
// six), none is made or lost, and a heading after the demoted text is
// read as one whatever block the text left open.
func FuzzDemote(f *testing.F) {
	for _, s := range []string{
		"# T\n\n## E\n\ntext # not heading\n",
		"```sh\n# comment\n```\n# real",
		"~~~\n# a\n```\n# b\n~~~\n# c",
		"Title\n=====\n\nPart\n---\ntext",
		"- item\n---",
		"text\n```go\nfunc main() {\n",
		"<!-- TODO\n# a",
		"<pre>\n+--+",
		"<!--\n# a\n-->\n# b",
		"one\ntwo\n---",
		"> quoted\n---",
		"<!-->\n# yes",
		"   ## three spaces",
		"<pre>\n```\n</pre>\n# x",
		"<div>\n```\n\n# x",
		"- a\n\n  ```\n\n# x",
		"* \n\n  # after an empty item",
		"*\n  # in the item\n\n  # still in it",
		"<pre>\nx\n</PRE>\n# a",
		"<script>\nx\n</pre>\n# a",
		"<textarea>\n# no</style>\n# yes",
		"- <br>\nNotes\n=====\n",
		"> <div>\nNotes\n=====\n",
		"-     code sample\nNotes\n=====\n",
		"> <!-- c -->\nNotes\n=====\n",
		"-\tfoo\n\n  # h\n",
		"1.\tfoo\n\n   # h\n",
		"Title\r\n=====\r\n\r\nbody",
		"Part\r\n----\r\ntext",
	} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, text string, levels uint8) {
		n := 1 + int(levels%2)
		out := demote(text, n)
		want := topLevels(text)
		for i := range want {
			want[i] = min(want[i]+n, 6)
		}
		if got := topLevels(out); !slices.Equal(got, want) {
			t.Fatalf("demote(%q, %d) = %q: top-level headings %v, want %v", text, n, out, got, want)
		}
		after := topLevels(out + "\n\n# Zq\n")
		if len(after) == 0 || after[len(after)-1] != 1 {
			t.Fatalf("a heading after demote(%q, %d) = %q is not read as one", text, n, out)
		}
	})
}

// topLevels lists the levels of the headings the parser finds at the top
// level of s, outside lists and quotes.
func topLevels(s string) []int {
	var out []int
	doc := goldmark.DefaultParser().Parse(gmtext.NewReader([]byte(s)))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			out = append(out, h.Level)
		}
	}
	return out
}
