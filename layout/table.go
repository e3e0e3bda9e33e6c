package layout

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// tableTransformer finds tables in paragraphs where goldmark's table
// extension finds them: a header row, then a delimiter row with at least
// as many columns (a shorter header is padded), then every later line of
// the paragraph as a row. tmem does not link that extension: its package
// compiles regexps when a process starts, which every tmem call would pay
// for, and tmem reads a table as a whole, never its cells.
type tableTransformer struct{}

// Transform replaces the lines of node from the header row on with an
// extension/ast Table whose lines are the table's raw lines, removing
// node when the table is all of it.
func (tableTransformer) Transform(node *ast.Paragraph, reader text.Reader, _ parser.Context) {
	lines := node.Lines()
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		delim := lines.At(i)
		alignments := delimiterRow(delim.Value(src))
		if alignments == nil {
			continue
		}
		head := lines.At(i - 1)
		if rowCells(src[head.Start:head.Stop]) > len(alignments) {
			return
		}
		table := extast.NewTable()
		table.Alignments = alignments
		table.SetPos(node.Pos())
		table.Lines().AppendAll(lines.Sliced(i-1, lines.Len()))
		lines.SetSliced(0, i-1)
		parent := node.Parent()
		parent.InsertAfter(parent, node, table)
		if lines.Len() == 0 {
			parent.RemoveChild(parent, node)
			return
		}
		last := lines.At(i - 2)
		last.Stop-- // the paragraph's last line ends before its newline
		lines.Set(i-2, last)
		return
	}
}

// delimiterRow returns the column alignments of a delimiter row such as
// "| :--- | ---: |", or nil when line is not one.
func delimiterRow(line []byte) []extast.Alignment {
	if indentedFour(line) {
		return nil
	}
	dashesOnly := true
	for _, c := range line {
		if c != '-' {
			dashesOnly = false
		}
		if !isMarkdownSpace(c) && c != '-' && c != '|' && c != ':' {
			return nil
		}
	}
	if dashesOnly {
		return nil // a thematic break or setext underline
	}
	cols := bytes.Split(line, []byte{'|'})
	if len(trimMarkdownSpace(cols[0])) == 0 {
		cols = cols[1:]
	}
	if len(cols) > 0 && len(trimMarkdownSpace(cols[len(cols)-1])) == 0 {
		cols = cols[:len(cols)-1]
	}
	var out []extast.Alignment
	for _, col := range cols {
		a, ok := cellAlignment(trimMarkdownSpace(col))
		if !ok {
			return nil
		}
		out = append(out, a)
	}
	return out
}

// cellAlignment reads one delimiter cell, ":?-+:?".
func cellAlignment(c []byte) (extast.Alignment, bool) {
	left, right := bytes.HasPrefix(c, []byte{':'}), bytes.HasSuffix(c, []byte{':'})
	dashes := bytes.TrimSuffix(bytes.TrimPrefix(c, []byte{':'}), []byte{':'})
	if len(dashes) == 0 || len(bytes.Trim(dashes, "-")) > 0 {
		return extast.AlignNone, false
	}
	switch {
	case left && right:
		return extast.AlignCenter, true
	case left:
		return extast.AlignLeft, true
	case right:
		return extast.AlignRight, true
	}
	return extast.AlignNone, true
}

// rowCells counts the cells of a table row: cells are split at each pipe
// not escaped by a backslash, and one leading and one trailing pipe are
// optional.
func rowCells(line []byte) int {
	line = trimMarkdownSpace(line)
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' {
		limit--
	}
	n := 0
	for pos < limit {
		end := pos
		for end < limit && (line[end] != '|' || end > 0 && line[end-1] == '\\') {
			end++
		}
		n++
		pos = end + 1
	}
	return n
}

// indentedFour reports a line indented by four columns or more; a tab
// in its leading white space always reaches the fourth column.
func indentedFour(line []byte) bool {
	for i, c := range line {
		switch {
		case c == '\t':
			return true
		case c != ' ':
			return false
		case i == 3:
			return true
		}
	}
	return false
}

// isMarkdownSpace reports the bytes Markdown's block syntax counts as
// white space.
func isMarkdownSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func trimMarkdownSpace(b []byte) []byte {
	for len(b) > 0 && isMarkdownSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isMarkdownSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
