package layout

import (
	"bytes"

	"github.com/yuin/goldmark/ast"

	"github.com/tmemhq/tmem/internal/lazyregexp"
)

// missedHeading is a line that would be an ATX heading of level 2 to 6
// but for the space Markdown needs after the #s ("##Heading"). One # is
// left out: a line starting "#decision" or "#123" is a tag or a
// reference far more often than a title.
var missedHeading = lazyregexp.New(`^ {0,3}#{2,6}[^#\s]`)

// headingSlipFindings warns about each line of d's body that reads as a
// paragraph although it starts like a heading ("##Heading"): CommonMark
// is right to read it so, but a person almost surely meant a heading, and
// tmem splits entries at headings only. Lines inside code blocks and HTML
// blocks are not paragraphs, so they are never named. A deeply nested
// body (see DeeplyNested) is not checked.
func headingSlipFindings(path string, d *Doc) []Finding {
	if !hasMissedHeading(d.Body) || DeeplyNested(d.Body) {
		return nil
	}
	starts := lineStarts(d.Body)
	seen := map[int]bool{}
	var out []Finding
	_ = ast.Walk(ParseBlocks(d.Body, false), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != ast.KindParagraph {
			return ast.WalkContinue, nil
		}
		for i := 0; i < n.Lines().Len(); i++ {
			ln := searchLine(starts, n.Lines().At(i).Start)
			if seen[ln] || !missedHeading().Match(rawLine(d.Body, starts, ln)) {
				continue
			}
			seen[ln] = true
			out = append(out, Finding{Path: path, Line: d.BodyLine + ln - 1, Severity: SevWarning,
				Message: "this line is not a heading: Markdown needs a space after the #s, so it is read as text of the entry it sits in; " +
					"if a heading is meant, put a space after the #s (\"## Title\")"})
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}

// hasMissedHeading reports whether some line of body looks like a missed
// heading, before anything is parsed.
func hasMissedHeading(body []byte) bool { return anyLine(body, missedHeading().Match) }

// rawLine is the 1-based line ln of body, without its line break.
func rawLine(body []byte, starts []int, ln int) []byte {
	line := body[starts[ln-1]:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return line
}
