package context

import (
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// demote pushes every heading in md down by levels (capped at level 6),
// leaving code, HTML blocks, list items and quotes alone, so that a
// file's own `#` title nests under the section heading the stack puts
// above it. Which lines are outside those blocks is read as appends read
// it (layout.TopLevel). Setext headings (a line underlined with ===
// or ---) become ATX headings on the way, and a code fence or HTML block
// left open is closed on a line of its own at the end.
func demote(md string, levels int) string {
	if levels <= 0 {
		return md
	}
	lines := strings.Split(md, "\n")
	top, closer := layout.TopLevel(md)
	para := false       // the previous line is paragraph text
	start, from := 0, 0 // the first line of that paragraph and where it starts in md
	at := 0             // where the next line starts in md
	for i, line := range lines {
		here := at
		at += len(line) + 1
		trim := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trim)
		wasPara := para
		para = false
		if !top[i] {
			continue
		}
		if indent > 3 || strings.Contains(line[:indent], "\t") {
			// Four columns in, which a tab reaches: text going on.
			para = wasPara
			continue
		}
		if lvl := setextLevel(trim); lvl > 0 && wasPara {
			if refs := refLines(md[from : here-1]); start+refs < i {
				atxFromSetext(lines[start+refs:i+1], min(lvl+levels, 6))
				continue
			}
			// The paragraph is all link reference definitions, which
			// the parser takes out of it, and reads the line afresh:
			// "===" and "--" as paragraph text, "---" as a thematic
			// break, "-" as an empty list item.
			if para = lvl == 1 || strings.TrimRight(trim, " \t\r") == "--"; para {
				start, from = i, here
			}
			continue
		}
		n := 0
		for n < len(trim) && trim[n] == '#' {
			n++
		}
		if n == 0 || n > 6 || (n < len(trim) && trim[n] != ' ' && trim[n] != '\t' && trim[n] != '\r') {
			if para = isParagraph(trim); para && !wasPara {
				start, from = i, here
			}
			continue
		}
		add := levels
		if n+add > 6 {
			add = 6 - n
		}
		lines[i] = line[:indent] + strings.Repeat("#", add) + trim
	}
	out := strings.Join(lines, "\n")
	if closer != "" {
		// A block the text leaves open would run on to the end of the
		// stack and turn every later section into code, HTML or a
		// comment. Demoting changes no block that is open at the end:
		// it rewrites only top-level headings.
		out += "\n" + closer
	}
	return out
}

// setextLevel returns 1 for a === underline, 2 for a --- one, else 0.
// Any number of signs underlines the paragraph line above (a lone "-"
// too: after a paragraph it is no empty list item); after anything else
// the caller does not ask.
func setextLevel(trim string) int {
	t := strings.TrimRight(trim, " \t\r")
	switch {
	case t != "" && strings.Trim(t, "=") == "":
		return 1
	case t != "" && strings.Trim(t, "-") == "":
		return 2
	}
	return 0
}

// atxFromSetext rewrites a setext heading, its paragraph lines and their
// underline, as an ATX heading of the given level on the first line, its
// text the lines joined, and blank lines for the rest.
func atxFromSetext(lines []string, level int) {
	text := make([]string, 0, len(lines)-1)
	for _, l := range lines[:len(lines)-1] {
		text = append(text, strings.TrimSpace(l))
	}
	for i := range lines {
		lines[i] = ""
	}
	lines[0] = strings.Repeat("#", level) + " " + strings.Join(text, " ")
}

// isParagraph reports whether a top-level line (not a heading, code,
// HTML, list item or quote: see layout.TopLevel) is paragraph text
// that a setext underline could turn into a heading: any but a blank
// line or a thematic break ("***", "- - -").
func isParagraph(trim string) bool {
	n := 0 // the signs that are not white space
	var mark byte
	for i := 0; i < len(trim); i++ {
		c := trim[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case n == 0:
			mark = c
		case c != mark:
			return true
		}
		n++
	}
	return n > 0 && (n < 3 || mark != '-' && mark != '*' && mark != '_')
}

// block is one piece of a section's text with its token count.
type block struct {
	text   string
	tokens int
}

// joinBlocks concatenates block texts.
func joinBlocks(bs []block) string {
	var b strings.Builder
	for _, x := range bs {
		b.WriteString(x.text)
	}
	return b.String()
}
