package context

import (
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// demote pushes every heading in md down by levels (capped at level 6),
// leaving fenced code alone, so that a file's own `#` title nests under
// the section heading the stack puts above it. Setext headings (a line
// underlined with === or ---) become ATX headings on the way, and a code
// fence or HTML block left open is closed on a line of its own at the
// end.
func demote(md string, levels int) string {
	if levels <= 0 {
		return md
	}
	lines := strings.Split(md, "\n")
	var open openBlock
	para := false // the previous line is paragraph text
	for i, line := range lines {
		trim := strings.TrimLeft(line, " ")
		indent := len(line) - len(trim)
		wasPara := para
		para = false
		if indent > 3 {
			para = wasPara
			continue
		}
		if open.skip(trim) {
			continue
		}
		if lvl := setextLevel(trim); lvl > 0 && wasPara {
			lines[i-1] = strings.Repeat("#", min(lvl+levels, 6)) + " " + strings.TrimSpace(lines[i-1])
			lines[i] = ""
			continue
		}
		n := 0
		for n < len(trim) && trim[n] == '#' {
			n++
		}
		if n == 0 || n > 6 || (n < len(trim) && trim[n] != ' ' && trim[n] != '\t') {
			para = isParagraph(trim)
			continue
		}
		add := levels
		if n+add > 6 {
			add = 6 - n
		}
		lines[i] = line[:indent] + strings.Repeat("#", add) + trim
	}
	out := strings.Join(lines, "\n")
	if c := layout.OpenBlockCloser(out); c != "" {
		// A block the text leaves open would run on to the end of the
		// stack and turn every later section into code, HTML or a
		// comment.
		out += "\n" + c
	}
	return out
}

// openBlock follows the Markdown blocks that run on until a closing line,
// however far: fenced code and HTML comments.
type openBlock struct {
	fence   string // the open fence, or ""
	comment bool   // in an HTML comment
}

// skip reports whether a line (trim, indented three spaces at most)
// opens, continues or closes such a block, following it.
func (o *openBlock) skip(trim string) bool {
	switch {
	case o.fence != "":
		n := 0
		for n < len(trim) && trim[n] == o.fence[0] {
			n++
		}
		if n >= len(o.fence) && strings.TrimSpace(trim[n:]) == "" {
			o.fence = ""
		}
		return true
	case o.comment:
		o.comment = !strings.Contains(trim, "-->")
		return true
	}
	if f := fenceOpen(trim); f != "" {
		o.fence = f
		return true
	}
	if strings.HasPrefix(trim, "<!--") {
		o.comment = !strings.Contains(trim[2:], "-->")
		return true
	}
	return false
}

// setextLevel returns 1 for a === underline, 2 for a --- one, else 0.
// Any number of signs underlines the paragraph line above (a lone "-"
// too: after a paragraph it is no empty list item); after anything else
// the caller does not ask.
func setextLevel(trim string) int {
	t := strings.TrimRight(trim, " \t")
	switch {
	case t != "" && strings.Trim(t, "=") == "":
		return 1
	case t != "" && strings.Trim(t, "-") == "":
		return 2
	}
	return 0
}

// isParagraph reports whether a line (not a heading, not code) is plain
// paragraph text that a setext underline could turn into a heading.
func isParagraph(trim string) bool {
	if strings.TrimSpace(trim) == "" {
		return false
	}
	for _, p := range []string{"- ", "* ", "+ ", ">", "|", "<"} {
		if strings.HasPrefix(trim, p) {
			return false
		}
	}
	i := 0
	for i < len(trim) && trim[i] >= '0' && trim[i] <= '9' {
		i++
	}
	return !(i > 0 && i < len(trim) && (trim[i] == '.' || trim[i] == ')'))
}

// fenceOpen returns the fence that line opens (``` or ~~~, at least three
// long), or "".
func fenceOpen(trim string) string {
	for _, c := range []string{"`", "~"} {
		n := 0
		for n < len(trim) && trim[n:n+1] == c {
			n++
		}
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
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
