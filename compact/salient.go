package compact

import (
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// extraEvery sets how much more than its first sentence a long entry
// keeps: one more sentence for every extraEvery it has after the first.
// An entry of up to four sentences is summed up by its first, as the
// lead of a log entry usually says what it is about; a long one (a
// meeting's notes, a conversation) also keeps the sentences that say
// most of what the rest says.
const extraEvery = 4

// maxExtras bounds the sentences an entry keeps besides its first, and
// the work of choosing them: a pasted log of thousands of sentences is
// not summed up by hundreds.
const maxExtras = 20

// minSalientWords is the fewest content words an extra sentence holds: a
// greeting or a thank-you says nothing a summary needs.
const minSalientWords = 5

// candidate is a sentence an entry may keep besides its first.
type candidate struct {
	pos   int
	text  string
	words []string // distinct content words
}

// salientSentences picks, from the sentences of an entry's unmarked
// paragraphs and items (texts, in order) after the first, those a summary
// keeps besides the first, most salient first. They are chosen greedily
// by the SumBasic rule (Nenkova and Vanderwende, 2005): a sentence is
// worth the summed probability of its content words in the entry, over
// the square root of their number. SumBasic then counts each word chosen
// for its square, which on a long entry soon prefers a one-off remark to
// the entry's subject; here a word said counts half, so the next choice
// says something more about the subject, or something else. Sentences
// too long to quote, that would leave Markdown open or that the lead
// quoted already are not candidates.
func salientSentences(texts []string, lead string) []candidate {
	all := splitSentences(texts)
	k := min((len(all)-1)/extraEvery, maxExtras)
	if k <= 0 {
		return nil
	}
	words := make([][]string, len(all))
	for i, s := range all {
		words[i] = contentWords(s)
	}
	prob := wordProbabilities(words)
	var cands []candidate
	for i, s := range all[1:] {
		ws := distinct(words[i+1])
		if len(ws) >= minSalientWords && utf8.RuneCountInString(s) <= maxSentence && balanced(s) && !strings.Contains(lead, s) {
			cands = append(cands, candidate{pos: i, text: s, words: ws})
		}
	}
	var picked []candidate
	for len(picked) < k && len(cands) > 0 {
		best := bestCandidate(cands, prob)
		c := cands[best]
		picked = append(picked, c)
		cands = append(cands[:best], cands[best+1:]...)
		for _, w := range c.words {
			prob[w] /= 2
		}
	}
	return picked
}

// inOrder is the text of the first n of picked (most salient first), in
// the entry's order.
func inOrder(picked []candidate, n int) []string {
	cs := append([]candidate(nil), picked[:min(n, len(picked))]...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].pos < cs[j].pos })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.text
	}
	return out
}

// bestCandidate is the index of the candidate worth most; the earlier
// one on a tie.
func bestCandidate(cands []candidate, prob map[string]float64) int {
	best, bestScore := 0, -1.0
	for i, c := range cands {
		sum := 0.0
		for _, w := range c.words {
			sum += prob[w]
		}
		if score := sum / math.Sqrt(float64(len(c.words))); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// wordProbabilities is each content word's share of all the content
// words of the sentences (words, a list per sentence).
func wordProbabilities(words [][]string) map[string]float64 {
	counts := map[string]float64{}
	total := 0.0
	for _, ws := range words {
		for _, w := range ws {
			counts[w]++
			total++
		}
	}
	for w := range counts {
		counts[w] /= total
	}
	return counts
}

// splitSentences is every sentence of texts, in order (see sentenceEnd).
func splitSentences(texts []string) []string {
	var out []string
	for _, t := range texts {
		t = strings.TrimSpace(t)
		for t != "" {
			end := sentenceEnd(t)
			if end <= 0 {
				end = len(t)
			}
			if s := strings.TrimSpace(t[:end]); s != "" {
				out = append(out, s)
			}
			t = strings.TrimSpace(t[end:])
		}
	}
	return out
}

// contentWords is the content words of s, in order.
func contentWords(s string) []string {
	var out []string
	for _, w := range wordsOf(s) {
		if contentWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// distinct is ws without repeats, in order.
func distinct(ws []string) []string {
	seen := make(map[string]bool, len(ws))
	out := ws[:0:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// wordsOf is s's words, lower-cased: runs of letters and digits, with
// the apostrophes inside them.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	})
}

// contentWord is false for English stop words, contractions and words of
// fewer than three letters.
func contentWord(w string) bool {
	w = strings.Trim(w, "'’")
	if utf8.RuneCountInString(w) < 3 || strings.ContainsAny(w, "'’") {
		return false
	}
	return !englishStopWords()[w]
}

var englishStopWords = sync.OnceValue(func() analysis.TokenMap {
	m := analysis.NewTokenMap()
	_ = m.LoadBytes(en.EnglishStopWords) // a list built into the library; it only reads lines
	return m
})
