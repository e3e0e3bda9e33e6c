package compact

import (
	"strings"
	"unicode"
)

// Similarity scores how alike two texts are, from 0 (nothing shared) to 1
// (the same). Compaction uses it to merge near-duplicate lines, to match
// extracted facts to existing typed memories and to cluster typed memories
// into wisdom; recall's vectors can stand in for the default.
type Similarity interface {
	Similarity(a, b string) float64
}

// Shingles is the default Similarity: the Jaccard index of the two texts'
// sets of K-word shingles, over lowercased words without stop words.
type Shingles struct {
	K int // words per shingle; 0 means 1 (bags of words suit short memories)
}

var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "is": true, "are": true, "be": true, "it": true, "we": true, "with": true,
	"that": true, "this": true, "as": true, "at": true, "by": true, "not": true, "no": true,
	"was": true, "were": true, "from": true, "our": true, "i": true, "so": true, "use": true,
}

// words returns the lowercased content words of s.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !stopWords[w] {
			out = append(out, stem(w))
		}
	}
	return out
}

// stem strips a few English endings so that "mocks" meets "mock".
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

func (s Shingles) set(t string, k int) map[string]bool {
	ws := words(t)
	out := map[string]bool{}
	if len(ws) < k {
		if len(ws) > 0 {
			out[strings.Join(ws, " ")] = true
		}
		return out
	}
	for i := 0; i+k <= len(ws); i++ {
		out[strings.Join(ws[i:i+k], " ")] = true
	}
	return out
}

// Similarity implements Similarity.
func (s Shingles) Similarity(a, b string) float64 {
	k := s.K
	if k <= 0 {
		k = 1
	}
	sa, sb := s.set(a, k), s.set(b, k)
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	inter := 0
	for w := range sa {
		if sb[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}
