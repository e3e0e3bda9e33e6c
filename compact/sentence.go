package compact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSentence is the longest first sentence a summary quotes; a longer one
// is left to the archive rather than cut.
const maxSentence = 320

// abbreviations end in a dot without ending a sentence.
var abbreviations = map[string]bool{
	"e.g.": true, "i.e.": true, "etc.": true, "vs.": true, "cf.": true, "approx.": true,
	"mr.": true, "mrs.": true, "ms.": true, "dr.": true, "st.": true, "no.": true, "fig.": true,
}

// firstSentence returns the first full sentence of a paragraph: up to and
// including the first ".", "!", "?" or "…" that is followed by a space or
// the end, outside inline code, links and HTML, and not part of an
// abbreviation; CJK full stops end a sentence on their own. A paragraph
// with no sentence end is one sentence. The result is never cut inside a
// word or inside inline Markdown: if the cut would leave emphasis, code
// or a link open, the whole paragraph is used; "" when that is longer
// than maxSentence.
func firstSentence(p string) string {
	p = strings.TrimSpace(p)
	s := p
	if end := sentenceEnd(p); end > 0 {
		s = strings.TrimSpace(p[:end])
	}
	if !balanced(s) {
		s = p
	}
	if utf8.RuneCountInString(s) > maxSentence || !balanced(s) {
		return ""
	}
	return s
}

// sentenceEnd returns the byte offset just after the first sentence end
// in p, or 0 when there is none before the end of p.
func sentenceEnd(p string) int {
	var closer string // what ends the protected span we are in
	for i := 0; i < len(p); {
		if closer != "" {
			if strings.HasPrefix(p[i:], closer) {
				i += len(closer)
				closer = ""
				continue
			}
			i++
			continue
		}
		if c := spanCloser(p[i:]); c != "" {
			closer = c
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(p[i:])
		switch r {
		case '。', '！', '？':
			if i+n < len(p) {
				return i + n
			}
			return 0
		case '.', '!', '?', '…':
			j := i + n
			for j < len(p) && strings.ContainsRune(`.!?"')]*_`, rune(p[j])) {
				j++ // "!!", ".)", a closing quote or emphasis belong to the end
			}
			if j < len(p) && p[j] == ' ' && r == '.' && abbreviation(p[:i+1]) {
				break
			}
			if j < len(p) && p[j] == ' ' {
				return j
			}
			if j >= len(p) {
				return 0
			}
		}
		i += n
	}
	return 0
}

// spanCloser says what closes the inline span that opens at s: inline
// code, an HTML comment, an autolink or tag, a link's destination.
func spanCloser(s string) string {
	switch {
	case strings.HasPrefix(s, "<!--"):
		return "-->"
	case strings.HasPrefix(s, "`"):
		n := len(s) - len(strings.TrimLeft(s, "`"))
		return strings.Repeat("`", n)
	case strings.HasPrefix(s, "]("):
		return ")"
	case strings.HasPrefix(s, "<") && len(s) > 1 && (s[1] == '/' || unicode.IsLetter(rune(s[1]))):
		return ">"
	}
	return ""
}

// abbreviation reports whether the text ending in a dot ends with an
// abbreviation, an initial ("J.") or a number's dot ("3.").
func abbreviation(upto string) bool {
	i := strings.LastIndexAny(upto, " (\t") + 1
	w := strings.ToLower(upto[i:])
	if abbreviations[w] {
		return true
	}
	core := strings.TrimSuffix(w, ".")
	if utf8.RuneCountInString(core) == 1 {
		r, _ := utf8.DecodeRuneInString(core)
		return unicode.IsLetter(r) && unicode.IsUpper([]rune(upto[i:])[0])
	}
	return core != "" && strings.Trim(core, "0123456789") == ""
}

// balanced reports whether s leaves no inline Markdown open: code spans,
// strong and emphasis markers, strike-through, brackets and parentheses
// of links, HTML comments.
func balanced(s string) bool {
	if strings.Count(s, "`")%2 != 0 || strings.Count(s, "<!--") != strings.Count(s, "-->") {
		return false
	}
	t := stripCode(s)
	for _, m := range []string{"**", "__", "~~"} {
		if strings.Count(t, m)%2 != 0 {
			return false
		}
		t = strings.ReplaceAll(t, m, "")
	}
	if strings.Count(t, "[") != strings.Count(t, "]") || strings.Count(t, "(") < strings.Count(t, "](") {
		return false
	}
	return emphasisClosed(t, '*') && emphasisClosed(t, '_')
}

// emphasisClosed counts the single markers c that can open or close
// emphasis (next to a word, not inside one) and wants an even number.
func emphasisClosed(t string, c byte) bool {
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] != c {
			continue
		}
		before := i > 0 && inWord(t[i-1])
		after := i+1 < len(t) && inWord(t[i+1])
		if before != after {
			n++
		}
	}
	return n%2 == 0
}

// stripCode removes inline code spans, whose contents are literal.
func stripCode(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// inWord reports whether b can be part of a word: a letter, a digit or a
// byte of a non-ASCII character.
func inWord(b byte) bool {
	return b >= 0x80 || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
