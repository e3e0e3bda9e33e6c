package layout

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// tmem reads Markdown by its block structure only: headings, lists,
// quotes, code and tables, each by its raw lines. Inline syntax (links,
// emphasis, code spans) and link reference definitions are never parsed,
// which keeps parsing linear on inputs such as long runs of brackets,
// emphasis markers or reference definitions. Nesting is the one thing a
// CommonMark parser cannot do in linear time, so inputs nested deeper
// than any hand-written file are read by a plain line scan instead.

// Nesting limits past which a file counts as deeply nested.
const (
	maxQuoteDepth = 32  // ">" markers opening one line
	maxIndent     = 256 // columns of leading white space
)

// The parsers are built on first use, not when a process starts.
var (
	blockParser = sync.OnceValue(func() parser.Parser {
		return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
	})
	tableParser = sync.OnceValue(func() parser.Parser {
		return parser.NewParser(
			parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithParagraphTransformers(util.Prioritized(tableTransformer{}, 200)),
		)
	})
)

// ParseBlocks parses the block structure of src. With tables set, a table
// becomes an extension/ast Table node holding its raw lines (its cells
// are not parsed); without, it reads as a paragraph. Callers should check
// DeeplyNested first: parsing deeply nested input takes time that grows
// faster than its size.
func ParseBlocks(src []byte, tables bool) ast.Node {
	if tables {
		return tableParser().Parse(text.NewReader(src))
	}
	return blockParser().Parse(text.NewReader(src))
}

// DeeplyNested reports whether some line of src opens more block quotes
// or is indented further than hand-written Markdown ever is. It reads
// src once.
func DeeplyNested(src []byte) bool { return anyLine(src, lineNesting) }

// anyLine reports whether some line of src (without its line break)
// satisfies f, reading src once and stopping at the first.
func anyLine(src []byte, f func(line []byte) bool) bool {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if f(line) {
			return true
		}
	}
	return false
}

// lineNesting reports a line whose leading quote markers or indentation
// pass the limits; lists nest by indentation, so it covers them too.
func lineNesting(line []byte) bool {
	quotes, cols := 0, 0
	for _, c := range line {
		switch c {
		case '>':
			quotes++
		case ' ':
			cols++
		case '\t':
			cols += 4
		default:
			return quotes > maxQuoteDepth || cols > maxIndent
		}
		if quotes > maxQuoteDepth || cols > maxIndent {
			return true
		}
	}
	return false
}
