package wordpiece

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenizer maps text to token ids. It is safe for concurrent use.
type Tokenizer struct {
	vocab  vocabulary
	prefix string // marks a piece that continues a word, "##"
	// maxRunes is the longest word split into pieces; a longer one is
	// unknown as a whole.
	maxRunes int
	// maxKey is the longest vocabulary entry in bytes: no longer piece
	// can match, so none is looked up.
	maxKey        int
	unk, cls, sep int64
	norm          normalizer
}

// normalizer holds BertNormalizer's switches.
type normalizer struct {
	clean, chinese, lower, strip bool
}

// Encode returns the ids of text: [CLS], the ids of its word pieces and
// [SEP], at most max in all (max ≥ 3): the pieces past max-2 are dropped.
//
// Special tokens written in text ("[SEP]") are not recognised: Parse
// accepts only special tokens with upper-case letters, and text must be
// lower-cased (the embedder lower-cases it before it gets here).
func (t *Tokenizer) Encode(text string, max int) []int64 {
	limit := max - 2
	ids := make([]int64, 1, min(limit, len(text)/2+2)+2)
	ids[0] = t.cls
	words(t.norm.apply(text), func(w string) bool {
		ids = t.appendWord(ids, w)
		return len(ids)-1 < limit
	})
	if len(ids)-1 > limit {
		ids = ids[:1+limit]
	}
	return append(ids, t.sep)
}

// appendWord appends the ids of w's word pieces, longest match first, or
// the unknown token's alone when some part of w matches no piece.
func (t *Tokenizer) appendWord(ids []int64, w string) []int64 {
	if utf8.RuneCountInString(w) > t.maxRunes {
		return append(ids, t.unk)
	}
	first := len(ids)
	var buf [64]byte
	key := buf[:0]
	for start := 0; start < len(w); {
		room := t.maxKey
		if start > 0 {
			room -= len(t.prefix)
		}
		end := len(w)
		if end-start > room {
			end = max(start, start+room)
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		found := false
		for end > start {
			key = key[:0]
			if start > 0 {
				key = append(key, t.prefix...)
			}
			var id int32
			if id, found = t.vocab.id(append(key, w[start:end]...)); found {
				ids = append(ids, int64(id))
				break
			}
			_, size := utf8.DecodeLastRuneInString(w[start:end])
			end -= size
		}
		if !found {
			return append(ids[:first], t.unk)
		}
		start = end
	}
	return ids
}

// apply normalises s as BertNormalizer does, in its order: drop NULs,
// replacement characters (and so invalid UTF-8) and control and format
// characters other than tab, line feed and carriage return; put spaces
// around CJK ideographs; lower-case; drop non-spacing marks. The result is
// valid UTF-8.
func (n normalizer) apply(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for _, r := range s {
		switch {
		case n.clean && (r == utf8.RuneError || isControl(r)):
		case n.chinese && isChinese(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if n.lower {
		out = strings.ToLower(out)
	}
	if n.strip {
		out = strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Mn, r) {
				return -1
			}
			return r
		}, out)
	}
	return out
}

// words calls f with each word of s, in order, until f returns false: the
// runs of text between white space, with every punctuation character a
// word of its own.
func words(s string, f func(string) bool) {
	start := -1
	for i, r := range s {
		space, punct := isSpace(r), isPunct(r)
		if (space || punct) && start >= 0 {
			if !f(s[start:i]) {
				return
			}
			start = -1
		}
		switch {
		case punct:
			if !f(s[i : i+utf8.RuneLen(r)]) {
				return
			}
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 {
		f(s[start:])
	}
}

// isSpace is the reference's white space: the regular expression \s of
// Go's regexp package, ASCII only.
func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// isPunct is BERT's punctuation: the ASCII symbols and Unicode's P
// categories.
func isPunct(r rune) bool {
	if r < 0x80 {
		return (r >= 0x21 && r <= 0x2f) || (r >= 0x3a && r <= 0x40) ||
			(r >= 0x5b && r <= 0x60) || (r >= 0x7b && r <= 0x7e)
	}
	return unicode.Is(unicode.P, r)
}

// isControl is BERT's control character: Unicode's Cc and Cf, but for tab,
// line feed and carriage return.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf)
}

// isChinese is BERT's CJK ideograph ranges.
func isChinese(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}
