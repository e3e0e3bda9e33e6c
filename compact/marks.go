package compact

import (
	"strings"
	"unicode"
)

// markPrefixes start a line that is kept word for word.
var markPrefixes = []string{"decision:", "decided:", "lesson:", "learned:", "fact:"}

// markWords in a heading make every line under it kept word for word.
var markWords = map[string]bool{
	"decision": true, "decisions": true, "decided": true,
	"lesson": true, "lessons": true, "learned": true, "learnings": true,
	"fact": true, "facts": true,
}

// stripListMarker removes a leading list marker ("- ", "* ", "+ ", "1. ",
// "- [ ] ") and surrounding emphasis from a trimmed line.
func stripListMarker(s string) string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"- [ ] ", "- [x] ", "- ", "* ", "+ "} {
		if strings.HasPrefix(s, p) {
			return strings.TrimSpace(s[len(p):])
		}
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return strings.TrimSpace(s[i+2:])
	}
	return s
}

// markedPrefix reports whether the line starts with one of markPrefixes,
// after any list marker and bold markers, in any case.
func markedPrefix(line string) (string, bool) {
	s := strings.ToLower(strings.TrimLeft(stripListMarker(line), "*_"))
	for _, p := range markPrefixes {
		if strings.HasPrefix(s, p) || strings.HasPrefix(s, strings.TrimSuffix(p, ":")+"**:") {
			return strings.TrimSuffix(p, ":"), true
		}
	}
	return "", false
}

// hasTag reports whether line carries #decision or #lesson as a word.
func hasTag(line string) (string, bool) {
	l := strings.ToLower(line)
	for _, tag := range []string{"#decision", "#lesson"} {
		for off := 0; ; {
			i := strings.Index(l[off:], tag)
			if i < 0 {
				break
			}
			i += off
			end := i + len(tag)
			before := i == 0 || !isWordByte(l[i-1])
			after := end == len(l) || !isWordByte(l[end])
			if before && after {
				return tag[1:], true
			}
			off = end
		}
	}
	return "", false
}

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// markedHeading reports whether a heading holds one of markWords.
func markedHeading(h string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(h), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if markWords[w] {
			return true
		}
	}
	return false
}

// Line is one non-blank line of an entry, with whether it must be kept.
type markedLine struct {
	Text   string // trimmed line
	Marked bool
	Mark   string // decision, decided, lesson, learned, fact, or the heading/tag that marked it
}

// scanLines splits an entry under heading into its non-blank lines and
// marks the ones kept word for word. A "###" sub-heading inside the entry
// marks the lines under it when it holds a mark word.
func scanLines(heading, text string) []markedLine {
	under := markedHeading(heading)
	sub := false
	var out []markedLine
	inFence := false
	for _, raw := range strings.Split(text, "\n") {
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(t, "#") && strings.HasPrefix(strings.TrimLeft(t, "#"), " ") {
			sub = markedHeading(t)
			out = append(out, markedLine{Text: t})
			continue
		}
		ml := markedLine{Text: t}
		if p, ok := markedPrefix(t); ok {
			ml.Marked, ml.Mark = true, p
		} else if tag, ok := hasTag(t); ok {
			ml.Marked, ml.Mark = true, tag
		} else if under || sub {
			ml.Marked, ml.Mark = true, "heading"
		}
		out = append(out, ml)
	}
	return out
}
