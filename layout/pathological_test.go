package layout

import (
	"fmt"
	"strings"
	"testing"
)

// pathological returns inputs of about n bytes in the shapes that make
// Markdown parsers slow: many headings, deep nesting, long lists, many
// link reference definitions, setext headings, emphasis runs.
func pathological(n int) map[string]string {
	rep := func(unit string) string { return strings.Repeat(unit, n/len(unit)) }
	return map[string]string{
		"headings":       rep("## h\n"),
		"entries":        rep("## entry\ntext line\n\n"),
		"blockquotes":    rep(">"),
		"quote-lines":    rep("> > > > > > > > quote\n"),
		"nested-lists":   nestedList(n),
		"long-list":      rep("- item\n"),
		"link-refs":      rep("[a]: /u\n"),
		"setext":         rep("h\n=\n"),
		"emphasis":       rep("*a **b "),
		"brackets":       rep("[["),
		"backticks":      rep("`` ` "),
		"html-comments":  rep("<!-- "),
		"fence-openers":  rep("```\n"),
		"table-ish":      rep("| a | b |\n"),
		"one-long-line":  rep("word "),
		"blank-lines":    rep("\n"),
		"crlf-headings":  rep("## h\r\n"),
		"indented-lists": rep("  - a\n    - b\n"),
	}
}

func nestedList(n int) string {
	var b strings.Builder
	for d := 0; b.Len() < n; d = (d + 1) % 2000 {
		b.WriteString(strings.Repeat("  ", d) + "- x\n")
	}
	return b.String()[:n]
}

// BenchmarkParsePathological parses each shape at 1 MiB and 4 MiB (the
// size limit); the cost per MiB should not grow with size.
func BenchmarkParsePathological(b *testing.B) {
	for _, size := range []int{1 << 20, MaxFileSize - 1} {
		for name, src := range pathological(size) {
			b.Run(fmt.Sprintf("%s/%dMiB", name, (size+1)>>20), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for i := 0; i < b.N; i++ {
					if _, err := Parse("p.md", []byte(src)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
