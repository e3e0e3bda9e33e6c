package context

import (
	"strings"
)

// demote pushes every ATX heading in md down by levels (capped at level
// 6), leaving fenced code alone, so that a file's own `#` title nests
// under the section heading the stack puts above it.
func demote(md string, levels int) string {
	if levels <= 0 || !strings.Contains(md, "#") {
		return md
	}
	lines := strings.Split(md, "\n")
	fence := ""
	for i, line := range lines {
		trim := strings.TrimLeft(line, " ")
		indent := len(line) - len(trim)
		if indent > 3 {
			continue
		}
		if fence != "" {
			n := 0
			for n < len(trim) && trim[n] == fence[0] {
				n++
			}
			if n >= len(fence) && strings.TrimSpace(trim[n:]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(trim); f != "" {
			fence = f
			continue
		}
		n := 0
		for n < len(trim) && trim[n] == '#' {
			n++
		}
		if n == 0 || n > 6 || (n < len(trim) && trim[n] != ' ' && trim[n] != '\t') {
			continue
		}
		add := levels
		if n+add > 6 {
			add = 6 - n
		}
		lines[i] = line[:indent] + strings.Repeat("#", add) + trim
	}
	return strings.Join(lines, "\n")
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
