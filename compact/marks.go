package compact

import (
	"strings"
	"unicode"
)

// markPrefixes start a paragraph or list item that is kept word for word.
var markPrefixes = []string{"decision", "decided", "lesson", "learned", "fact"}

// markWords in a heading keep every paragraph under it word for word.
var markWords = map[string]bool{
	"decision": true, "decisions": true, "decided": true,
	"lesson": true, "lessons": true, "learned": true, "learnings": true,
	"fact": true, "facts": true,
}

// markedPrefixOf returns the mark a text starts with ("Decision:",
// "**Lesson**:", "fact:" in any case, after emphasis), or "".
func markedPrefixOf(s string) string {
	s = strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "*_"))
	for _, p := range markPrefixes {
		if strings.HasPrefix(s, p+":") || strings.HasPrefix(s, p+"**:") || strings.HasPrefix(s, p+"__:") || strings.HasPrefix(s, p+"*:") || strings.HasPrefix(s, p+"_:") {
			return p
		}
	}
	return ""
}

// tagOf returns "decision" or "lesson" when the text carries that tag as
// a word (#decision, #lesson), else "".
func tagOf(s string) string {
	l := strings.ToLower(s)
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
				return tag[1:]
			}
			off = end
		}
	}
	return ""
}

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// markedHeading reports whether a heading holds one of markWords.
func markedHeading(h string) bool {
	for _, w := range headingWords(h) {
		if markWords[w] {
			return true
		}
	}
	return false
}

// headingMark is the kind of typed memory a heading files its paragraphs
// as: "fact" or "lesson" when its first word says so ("Facts", "Lessons
// learned", "Lesson: …"), else "". Any other mention of a mark word keeps
// the paragraphs word for word but files nothing.
func headingMark(h string) string {
	ws := headingWords(h)
	if len(ws) == 0 {
		return ""
	}
	switch ws[0] {
	case "fact", "facts":
		return "fact"
	case "lesson", "lessons", "learned", "learnings":
		return "lesson"
	}
	return ""
}

func headingWords(h string) []string {
	return strings.FieldsFunc(strings.ToLower(h), func(r rune) bool { return !unicode.IsLetter(r) })
}
