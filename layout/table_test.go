package layout

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// goldmarkTables parses src with goldmark's own table extension, which
// tmem does not link: the reference for tableTransformer.
func goldmarkTables(src []byte) ast.Node {
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(util.Prioritized(extension.NewTableParagraphTransformer(), 200)),
	)
	return p.Parse(text.NewReader(src))
}

// blockDump prints the block tree of n: each node's kind and the spans of
// its lines, and for a table its alignments only (goldmark's holds parsed
// rows, tmem's its raw lines).
func blockDump(n ast.Node, src []byte) string {
	var b strings.Builder
	var dump func(n ast.Node, depth int)
	dump = func(n ast.Node, depth int) {
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", depth), n.Kind())
		if t, ok := n.(*extast.Table); ok {
			fmt.Fprintf(&b, " %v\n", t.Alignments)
			return
		}
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			fmt.Fprintf(&b, " %q", s.Value(src))
		}
		b.WriteString("\n")
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Type() == ast.TypeBlock || c.Type() == ast.TypeDocument {
				dump(c, depth+1)
			}
		}
	}
	dump(n, 0)
	return b.String()
}

// tableLines returns the raw lines of each table in tmem's tree of src.
func tableLines(src []byte) []string {
	var out []string
	_ = ast.Walk(ParseBlocks(src, true), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := n.(*extast.Table); ok && entering {
			var lines []string
			for i := 0; i < t.Lines().Len(); i++ {
				s := t.Lines().At(i)
				lines = append(lines, strings.TrimSpace(string(s.Value(src))))
			}
			out = append(out, strings.Join(lines, "/"))
		}
		return ast.WalkContinue, nil
	})
	return out
}

func TestParseBlocksTables(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // each table's lines, trimmed and joined by "/"
	}{
		{"table alone", "| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter.", []string{"| a | b |/|---|---|/| 1 | 2 |"}},
		{"text before the header stays a paragraph", "Intro.\n| a | b |\n| :-- | --: |\n| 1 | 2 |", []string{"| a | b |/| :-- | --: |/| 1 | 2 |"}},
		{"no outer pipes", "a | b\n--- | :---:\n1 | 2", []string{"a | b/--- | :---:/1 | 2"}},
		{"header with more cells than the delimiter", "| a | b | c |\n|---|---|\n| 1 | 2 |", nil},
		{"header with fewer cells is padded", "| a |\n|---|---|", []string{"| a |/|---|---|"}},
		{"escaped pipe joins cells", `| a \| b |` + "\n|---|", []string{`| a \| b |/|---|`}},
		{"unescaped pipe splits cells", "| a | b |\n|---|", nil},
		{"dashes only is a heading underline", "| a |\n---\ntext", nil},
		{"blank delimiter cell", "| a | b |\n|---||", nil},
		{"spaced dashes", "| a |\n| - - |", nil},
		{"a delimiter indented four is text", "| a |\n    |---|", nil},
		{"a delimiter indented three", "| a |\n   |---|", []string{"| a |/|---|"}},
		{"indented code is not a table", "    | a |\n    |---|", nil},
		{"table in a list item", "- Decision: keep it\n  | a |\n  |---|\n  | 1 |\n- next", []string{"| a |/|---|/| 1 |"}},
		{"the first delimiter row decides", "| a | b |\n|---|\n| c |\n|---|", nil},
		{"rows run to the paragraph's end", "| a |\n|---|\nplain words\nmore", []string{"| a |/|---|/plain words/more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tableLines([]byte(tt.src))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("tables of %q:\n got %q\nwant %q", tt.src, got, tt.want)
			}
			src := []byte(tt.src)
			if ours, ref := blockDump(ParseBlocks(src, true), src), blockDump(goldmarkTables(src), src); ours != ref {
				t.Errorf("tree of %q:\n%s\ngoldmark's table extension:\n%s", tt.src, ours, ref)
			}
		})
	}
}

// TestParseBlocksTablesMatchGoldmark compares the block trees of generated
// table-like Markdown with goldmark's table extension's.
func TestParseBlocksTablesMatchGoldmark(t *testing.T) {
	pieces := []string{"|", "|", "|", "-", "--", "---", ":", " ", "\t", "a", "b c", `\`, `\|`, "`", "=", "\r",
		"|---|", "| :-- | --: |", " :-: ", "a | b", "| a | b |"}
	starts := []string{"", "", "", " ", "   ", "    ", "\t", " \t", "- ", "> ", "1. ", "  - ", "# "}
	r := rand.New(rand.NewSource(1))
	line := func() string {
		var b strings.Builder
		b.WriteString(starts[r.Intn(len(starts))])
		for k := r.Intn(9); k >= 0; k-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		return b.String()
	}
	row := func(n int, cell func() string) string {
		cells := make([]string, n)
		for k := range cells {
			cells[k] = cell()
		}
		out := strings.Join(cells, "|")
		if r.Intn(2) == 0 {
			out = "|" + out + "|"
		}
		return starts[r.Intn(len(starts))] + out
	}
	headCell := []string{" a ", "b c", `x\|y`, "`c`", "", " |", "Fact: x"}
	delimCell := []string{"---", ":--", "--:", ":-:", " - ", "- -", "", " : ", "-\t"}
	tables := 0
	for i := 0; i < 10000; i++ {
		var lines []string
		for k := 1 + r.Intn(6); k > 0; k-- {
			switch r.Intn(3) {
			case 0: // a header and a delimiter row, their widths near each other
				n := 1 + r.Intn(4)
				head := row(n, func() string { return headCell[r.Intn(len(headCell))] })
				lines = append(lines, head, row(n-1+r.Intn(3), func() string { return delimCell[r.Intn(len(delimCell))] }))
			default:
				lines = append(lines, line())
			}
			if r.Intn(6) == 0 {
				lines = append(lines, "")
			}
		}
		src := []byte(strings.Join(lines, "\n"))
		ours, ref := blockDump(ParseBlocks(src, true), src), blockDump(goldmarkTables(src), src)
		if ours != ref {
			t.Fatalf("tree of %q:\n%s\ngoldmark's table extension:\n%s", src, ours, ref)
		}
		tables += len(tableLines(src))
	}
	if tables < 1000 {
		t.Fatalf("only %d tables in the generated inputs: the generator does not exercise tables", tables)
	}
}
