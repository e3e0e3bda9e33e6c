package recall

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/mapping"
)

// analyzers are the index mapping's English and CJK analyzers, built once:
// documents and queries are analysed here, outside bleve, so that the
// identifier and word-pair fields and the field lengths come from the same
// tokens bleve indexes.
var analyzers = sync.OnceValues(func() (*analyzerSet, error) {
	im, err := indexMapping()
	if err != nil {
		return nil, err
	}
	impl := im.(*mapping.IndexMappingImpl)
	en, ok := impl.AnalyzerNamed(enFolded).(*analysis.DefaultAnalyzer)
	if !ok || len(en.TokenFilters) == 0 {
		return nil, errors.New("index mapping: the English analyzer is not a filter chain")
	}
	last := len(en.TokenFilters) - 1
	unstemmed := &analysis.DefaultAnalyzer{CharFilters: en.CharFilters, Tokenizer: en.Tokenizer, TokenFilters: en.TokenFilters[:last]}
	return &analyzerSet{en: en, cjk: impl.AnalyzerNamed(cjk.AnalyzerName), unstemmed: unstemmed, stem: en.TokenFilters[last]}, nil
})

// analyzerSet holds the analyzers, and the English one in two steps: up
// to the stemmer, then the stemmer, for words joined before stemming.
type analyzerSet struct {
	en        *analysis.DefaultAnalyzer
	cjk       analysis.Analyzer
	unstemmed *analysis.DefaultAnalyzer
	stem      analysis.TokenFilter
}

func (a *analyzerSet) stemOf(w string) string {
	return string(a.stem.Filter(analysis.TokenStream{{Term: []byte(w)}})[0].Term)
}

// compounds returns what a query's words are when written the other way:
// two neighbouring words of a phrase joined ("ice cream" also asks for
// "icecream", "e-mail" for "email"; "ice, cream" asks for neither), and
// each way of splitting a longer word in two, as a word pair ("icecream"
// also asks for the pair "ice cream"). A chunk holds a pair only where it
// wrote the two words, so a split that is no compound finds nothing. Each
// list holds its first limit distinct terms, in the order the text gives
// them, and a word is split once however often it comes: in a pasted log
// most words do.
func (a *analyzerSet) compounds(text string, limit int) (joined, split []string) {
	folded, ts := analyze(a.unstemmed, text)
	js, ss := newTermList(limit), newTermList(limit)
	tried := map[string]bool{}
	for i, t := range ts {
		w := string(t.Term)
		if !isLetters(w) {
			continue
		}
		if i > 0 && ts[i-1].Position == t.Position-1 && isLetters(string(ts[i-1].Term)) && !phraseBreak(folded, ts[i-1].End, t.Start) && !js.full() {
			js.add(a.stemOf(string(ts[i-1].Term) + w))
		}
		if t.Start < len(folded) && folded[t.Start] >= 'A' && folded[t.Start] <= 'Z' {
			continue // a name, not a compound: "Melanie" is no "mel" and "anie"
		}
		if len(w) > maxCompound {
			continue // no compound of two words; splitting costs its length squared
		}
		if tried[w] || ss.full() {
			continue
		}
		tried[w] = true
		for j := 1; len(w) >= minCompound && j <= len(w)-3; j++ {
			ss.add(a.stemOf(w[:j]) + "\x1f" + a.stemOf(w[j:]))
		}
	}
	return js.terms, ss.terms
}

// minCompound is the shortest word tried as two ("email"), maxCompound
// the longest ("counterrevolutionaries" has 22 letters).
const (
	minCompound = 5
	maxCompound = 32
)

func isLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return w != ""
}

// termList gathers distinct terms in the order they come, up to a limit.
type termList struct {
	terms []string
	seen  map[string]bool
	limit int
}

func newTermList(limit int) *termList { return &termList{seen: map[string]bool{}, limit: limit} }

func (l *termList) full() bool { return len(l.terms) >= l.limit }

// add appends t unless the list holds it or is full.
func (l *termList) add(t string) {
	if !l.full() && !l.seen[t] {
		l.seen[t] = true
		l.terms = append(l.terms, t)
	}
}

// terms returns the analysed terms of s, in order.
func terms(a analysis.Analyzer, s string) []string {
	if s == "" {
		return nil
	}
	ts := a.Analyze([]byte(s))
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Term)
	}
	return out
}

// wordsAndPairs returns the analysed terms of s, in order, and its word
// pairs: each two neighbouring terms joined by a unit separator, where no
// more than stop words, spaces, hyphens and the like come between them. A
// pair rewards an exact run of words, so it does not reach past the end
// of a phrase (see phraseBreak): in "Thanks, Melanie! I painted" no pair
// "melanie paint" is written, nor in a chat line "Melanie: painted it".
func wordsAndPairs(a *analysis.DefaultAnalyzer, s string) (ws, ps []string) {
	if s == "" {
		return nil, nil
	}
	folded, ts := analyze(a, s)
	ws = make([]string, len(ts))
	for i, t := range ts {
		ws[i] = string(t.Term)
		if i > 0 && !phraseBreak(folded, ts[i-1].End, t.Start) {
			ps = append(ps, ws[i-1]+"\x1f"+ws[i])
		}
	}
	return ws, ps
}

// analyze analyses s as a does, and returns with its tokens the text
// their offsets point into: s after a's character filters, as written
// (the token filters lower-case the tokens' bytes in place, so they are
// given a copy).
func analyze(a *analysis.DefaultAnalyzer, s string) (folded []byte, ts analysis.TokenStream) {
	folded = []byte(s)
	for _, f := range a.CharFilters {
		folded = f.Filter(folded)
	}
	ts = a.Tokenizer.Tokenize(bytes.Clone(folded))
	for _, f := range a.TokenFilters {
		ts = f.Filter(ts)
	}
	return folded, ts
}

// phraseBreak reports whether text[from:to], the gap between two words,
// ends a phrase: it holds a mark of phraseEnds, a dash, a blank line, or
// a line break before a list item, quote or heading. A line break inside a
// paragraph, as hard-wrapped Markdown has on every line, does not.
func phraseBreak(text []byte, from, to int) bool {
	if from < 0 || to > len(text) || from > to {
		return false
	}
	gap := text[from:to]
	for i := 0; i < len(gap); {
		r, n := utf8.DecodeRune(gap[i:])
		if strings.ContainsRune(phraseEnds, r) || r == '-' && spaced(gap, i) {
			return true
		}
		i += n
	}
	nl := bytes.IndexByte(gap, '\n')
	if nl < 0 {
		return false
	}
	next := bytes.TrimLeft(gap[nl+1:], " \t\r")
	switch {
	case bytes.IndexByte(next, '\n') >= 0:
		return true // a blank line
	case len(next) > 0:
		return strings.IndexByte(blockMarks, next[0]) >= 0
	default:
		return to < len(text) && text[to] >= '0' && text[to] <= '9' // "2." or "2)": an item
	}
}

// spaced reports whether a space comes before or after gap[i]: a hyphen
// so placed is a dash (folding made "—" and "–" hyphens), not a hyphen
// joining the parts of a word ("e-mail").
func spaced(gap []byte, i int) bool {
	return i > 0 && gap[i-1] == ' ' || i+1 < len(gap) && gap[i+1] == ' '
}

// phraseEnds are the marks that end a phrase; blockMarks are those that
// start a list item, quote or heading after a line break.
const (
	phraseEnds = ".,;:!?()[]{}\"|…。、¡¿"
	blockMarks = "-*+#>"
)

// identTokens returns the identifiers in s, whole and lower-cased, as
// written: words with a digit or an inner '_', '-', '.', '/', ':', '%',
// '@', '#', '?', '=' or '&' in them, such as ERR_REPLICA_LAG, 0.07%, us-east-1, DX-8047,
// v1.7, recall/search.go or a URL. The English analyzer splits or drops
// most of them; this field keeps them for exact matching.
func identTokens(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		f = strings.TrimRight(strings.TrimLeft(f, identTrim), identTrim+".")
		if isIdent(f) {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

// identTrim is what an identifier does not start or end with: quotes,
// brackets and sentence punctuation around it.
const identTrim = "\"'`()[]{}<>,;:!?*"

func isIdent(f string) bool {
	alnum, digit, inner := 0, false, false
	for i, r := range f {
		switch {
		case unicode.IsDigit(r):
			digit = true
			alnum++
		case unicode.IsLetter(r):
			alnum++
		case strings.ContainsRune("_-./:%@#+?=&~", r):
			inner = inner || (i > 0 && i < len(f)-1) || r == '%'
		default:
			return false
		}
	}
	return alnum > 0 && (digit || inner)
}
