package compact

import (
	"strings"

	"github.com/tmemhq/tmem/layout"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// block is one piece of an entry that a summary may quote: a paragraph,
// or the first paragraph of a list item. Code blocks, HTML blocks and
// tables are never quoted, and never carry a mark.
type block struct {
	Text  string   // its lines trimmed and joined by single spaces, list marker removed
	Lines []string // the same lines, trimmed, one by one
	Depth int      // list nesting: 0 for a top-level paragraph or item
	Mark  string   // what marks it to keep word for word; "" when nothing does
	// Heading is set for a "###" (or deeper) sub-heading inside the entry;
	// Text is then the heading's text.
	Heading bool
}

// entryBlocks returns the quotable blocks of an entry's text in order.
// Everything under a heading that holds a mark word (the entry's own, or
// a sub-heading's until the next sub-heading) is marked.
func entryBlocks(heading, body string) []block {
	src := []byte(body)
	w := &blockWalker{src: src, under: markedHeading(heading)}
	if layout.DeeplyNested(src) {
		return w.lineBlocks()
	}
	// Tables are parsed so that one is skipped as a whole instead of
	// read as a paragraph of pipes.
	w.walk(layout.ParseBlocks(src, true), 0)
	return w.out
}

// lineBlocks reads nesting too deep to parse in reasonable time as one
// block per line, its quote and list markers kept as written.
func (w *blockWalker) lineBlocks() []block {
	for _, l := range strings.Split(string(w.src), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			w.out = append(w.out, block{Text: l, Lines: []string{l}, Mark: w.markOf(l)})
		}
	}
	return w.out
}

type blockWalker struct {
	src   []byte
	under bool // the entry heading is marked
	sub   bool // the current sub-heading is marked
	out   []block
}

func (w *blockWalker) walk(n ast.Node, depth int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			t := w.joined(c.Lines())
			w.sub = markedHeading(t)
			w.out = append(w.out, block{Text: t, Lines: []string{t}, Depth: depth, Heading: true})
		case *ast.Paragraph, *ast.TextBlock:
			w.add(c, depth)
		case *ast.List:
			w.walkList(c, depth)
		case *ast.Blockquote:
			w.walk(c, depth)
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.ThematicBreak, *extast.Table:
		default:
			w.walk(c, depth)
		}
	}
}

func (w *blockWalker) walkList(l *ast.List, depth int) {
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		first := true
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Paragraph, *ast.TextBlock:
				d := depth
				if !first {
					d++ // a later paragraph of the item reads as its detail
				}
				w.add(c, d)
			case *ast.List:
				w.walkList(c, depth+1)
			case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.ThematicBreak, *extast.Table:
			default:
				w.walk(c, depth+1)
			}
			first = false
		}
	}
}

// add records a paragraph, with the mark its text or its heading gives it.
func (w *blockWalker) add(n ast.Node, depth int) {
	lines := w.lines(n.Lines())
	if len(lines) == 0 {
		return
	}
	b := block{Text: strings.Join(lines, " "), Lines: lines, Depth: depth}
	b.Mark = w.markOf(b.Text)
	w.out = append(w.out, b)
}

// markOf says what marks a block's text to keep word for word.
func (w *blockWalker) markOf(t string) string {
	switch {
	case markedPrefixOf(t) != "":
		return markedPrefixOf(t)
	case tagOf(t) != "":
		return tagOf(t)
	case w.under || w.sub:
		return "heading"
	}
	return ""
}

func (w *blockWalker) lines(segs *text.Segments) []string {
	var out []string
	for i := 0; i < segs.Len(); i++ {
		s := segs.At(i)
		if l := strings.TrimSpace(string(s.Value(w.src))); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (w *blockWalker) joined(segs *text.Segments) string {
	return strings.Join(w.lines(segs), " ")
}
