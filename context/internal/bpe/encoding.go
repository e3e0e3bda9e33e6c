package bpe

import (
	_ "embed"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	// The codec package registers compiled matchers for the split patterns
	// below, which regexp2.MustCompile picks up. They are what the
	// reference tokenizer splits with, and they split some whitespace runs
	// ("\n \n") unlike regexp2's interpreter: counts equal the reference's
	// only with them.
	_ "github.com/tiktoken-go/tokenizer/codec"
)

// Encoding is one byte-pair encoding: its split pattern and its
// vocabulary. It is safe for concurrent use.
type Encoding struct {
	name    string
	pattern string
	raw     string

	once  sync.Once
	tab   table
	split *regexp2.Regexp
	err   error
}

var (
	//go:embed o200k.bpe
	o200kTable string
	//go:embed cl100k.bpe
	cl100kTable string
)

// O200k is o200k_base, the encoding of GPT-4o and later models.
var O200k = &Encoding{
	name:    "o200k_base",
	pattern: `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	raw:     o200kTable,
}

// Cl100k is cl100k_base, the encoding of GPT-4 and GPT-3.5.
var Cl100k = &Encoding{
	name:    "cl100k_base",
	pattern: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	raw:     cl100kTable,
}

// Name is tiktoken's name of the encoding ("o200k_base").
func (e *Encoding) Name() string { return e.name }

// open checks the table's header and compiles the split pattern, once.
func (e *Encoding) open() error {
	e.once.Do(func() {
		e.tab, e.err = openTable(e.raw)
		if e.err != nil {
			e.err = fmt.Errorf("%s: %w", e.name, e.err)
			return
		}
		e.split = regexp2.MustCompile(e.pattern, regexp2.None) // a constant pattern
	})
	return e.err
}

// Len is the number of tokens in the vocabulary.
func (e *Encoding) Len() (int, error) {
	if err := e.open(); err != nil {
		return 0, err
	}
	return int(e.tab.n), nil
}

// Token returns the bytes of the token with rank r.
func (e *Encoding) Token(r int) (string, error) {
	if err := e.open(); err != nil {
		return "", err
	}
	if r < 0 || r >= int(e.tab.n) {
		return "", fmt.Errorf("%s: no token with rank %d", e.name, r)
	}
	return e.tab.token(uint32(r)), nil
}

// Rank returns the rank of the token whose bytes are s.
func (e *Encoding) Rank(s string) (int, bool, error) {
	if err := e.open(); err != nil {
		return 0, false, err
	}
	r, ok := e.tab.rank(s)
	return int(r), ok, nil
}

// Count returns the number of tokens text encodes to. The error is only
// ever a damaged table or the split pattern failing, which the tests rule
// out for the tables built in.
func (e *Encoding) Count(text string) (int, error) {
	if err := e.open(); err != nil {
		return 0, err
	}
	if !utf8.ValidString(text) {
		// The pattern runs over runes, each invalid byte one U+FFFD, and
		// the pieces are those runes' bytes.
		text = string([]rune(text))
	}
	var m merger
	n := 0
	for text != "" {
		end := passEnd(text)
		k, err := e.countPass(&m, text[:end])
		if err != nil {
			return 0, err
		}
		n += k
		text = text[end:]
	}
	return n, nil
}

// passBytes is about the most text Count splits in one pass. A longer
// text (a log pasted into a task) is split pass by pass, so that what one
// pass holds (the text as runes, the spans of its pieces) stays bounded
// whatever the size of the text: in one pass, growing those arrays took
// two thirds of the time a 2.8 MB log cost.
const passBytes = 64 << 10

// blankBytes is about the most blank lines (white space only) a pass
// holds: the split pattern's matchers read a run of white space to its
// end for each piece they take from it, and blank lines that hold a
// space are a piece each, so that counting a run of them cost its length
// squared (100 KB of " \n" lines 13 s, 400 KB two and a half minutes).
const blankBytes = 64

// passEnd returns where the next pass over text ends: at the first place
// past passBytes where a pass can end (see passCut), or at a line start
// before it past blankBytes of blank lines; at the end of the text when
// there is none.
func passEnd(text string) int {
	if i := blankEnd(text); i > 0 {
		return i
	}
	for i := passBytes + 1; i < len(text); i++ {
		if passCut(text, i) {
			return i
		}
	}
	return len(text)
}

// blankEnd returns the first line start up to passBytes where a pass can
// end after more than blankBytes of blank lines, or 0.
func blankEnd(text string) int {
	blank := 0 // where the blank lines before i start
	for i := 0; i <= passBytes; {
		j := strings.IndexAny(text[i:], "\r\n")
		if j < 0 {
			return 0
		}
		if strings.TrimLeftFunc(text[i:i+j], unicode.IsSpace) != "" {
			blank = i + j + 1
		}
		i += j + 1
		if i-blank > blankBytes && passCut(text, i) {
			return i
		}
	}
	return 0
}

// passCut reports whether counting text[:i] and text[i:] apart counts
// what text does, because every piece the split pattern takes from text
// ends or starts at i. That holds at a line start: after a line break
// (\r or \n) and before anything but a line break or a slash. A piece
// that holds the line break ends there: for the reasons SplitsBetween
// gives (\r is like \n to the pattern) and, where white space follows,
// because the matchers the codec package registers end the piece
// "\s*[\r\n]+" takes at the first run of line breaks in it (the pattern
// as written, backtracking from the end of the white space, would take up
// to the last). It holds too where white space other than a line break
// follows anything but white space: no piece holds such white space
// after its start unless it is all white space. The tests check the
// counts against the reference tokenizer.
func passCut(text string, i int) bool {
	if i <= 0 || i >= len(text) || !utf8.RuneStart(text[i]) {
		return false
	}
	before, after := text[i-1], text[i]
	if before == '\n' || before == '\r' {
		return after != '\n' && after != '\r' && after != '/'
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	l, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsSpace(r) && r != '\n' && r != '\r' && !unicode.IsSpace(l)
}

// countPass counts the tokens of text, split in one pass.
func (e *Encoding) countPass(m *merger, text string) (int, error) {
	// One call for all pieces: matching them one by one allocates a match
	// per piece, which costs more than the matching.
	spans, err := e.split.FindAllStringIndex(text, -1)
	if err != nil {
		return 0, fmt.Errorf("%s: split text: %w", e.name, err)
	}
	n := 0
	for _, sp := range spans {
		piece := text[sp[0]:sp[1]]
		if _, ok := e.tab.rank(piece); ok {
			n++
			continue
		}
		n += m.parts(&e.tab, piece)
	}
	return n, nil
}

// SplitsBetween reports whether the split pattern cuts left+right between
// left and right whatever else the two hold, so that the text counts
// Count(left) + Count(right) tokens. It holds when left ends a line and
// right starts with neither white space nor a slash. The pattern looks
// behind nothing, so right splits as it does alone; and the only
// alternatives that reach a line break take white space, or punctuation
// followed by line breaks (and, in o200k_base, slashes): whatever reaches
// the end of left stops there when right starts otherwise, as at the end
// of the text. The white-space run that ends left always matches
// "\s*[\r\n]+" before the alternative whose look-ahead could tell the two
// apart.
func (e *Encoding) SplitsBetween(left, right string) bool {
	if !strings.HasSuffix(left, "\n") || right == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(right)
	return !unicode.IsSpace(r) && r != '/'
}

// noRank marks a part that merges with nothing after it.
const noRank = math.MaxUint32

// merger holds the scratch space of byte-pair merges, reused across the
// pieces of one text.
type merger struct {
	next, prev []int32  // the parts as a linked list of start offsets
	rank       []uint32 // rank of the token part i would make with the next part
	heap       pairHeap
}

// parts returns how many tokens piece merges into: starting from single
// bytes, the adjacent pair that makes the lowest-ranked token is merged,
// the leftmost of equals first, until no pair makes a token.
func (m *merger) parts(t *table, piece string) int {
	n := int32(len(piece))
	m.next, m.prev, m.rank = grow(m.next, n), grow(m.prev, n), grow(m.rank, n)
	m.heap = m.heap[:0]
	for i := range n {
		m.next[i], m.prev[i] = i+1, i-1
	}
	for i := range n {
		m.rank[i] = m.pairRank(t, piece, i)
		if m.rank[i] != noRank {
			m.heap.push(pair{m.rank[i], i})
		}
	}
	count := int(n)
	for len(m.heap) > 0 {
		p := m.heap.pop()
		if m.rank[p.at] != p.rank { // stale: the part changed since
			continue
		}
		j := m.next[p.at]
		k := m.next[j]
		m.next[p.at] = k
		if k < n {
			m.prev[k] = p.at
		}
		m.rank[j] = noRank
		count--
		for _, b := range [2]int32{p.at, m.prev[p.at]} {
			if b < 0 {
				continue
			}
			if m.rank[b] = m.pairRank(t, piece, b); m.rank[b] != noRank {
				m.heap.push(pair{m.rank[b], b})
			}
		}
	}
	return count
}

// pairRank is the rank of the token made of the part starting at i and the
// part after it, or noRank.
func (m *merger) pairRank(t *table, piece string, i int32) uint32 {
	j := m.next[i]
	if j >= int32(len(piece)) {
		return noRank
	}
	end := m.next[j]
	if r, ok := t.rank(piece[i:end]); ok {
		return r
	}
	return noRank
}

func grow[T any](s []T, n int32) []T {
	if int32(cap(s)) < n {
		return make([]T, n)
	}
	return s[:n]
}

// pair is a merge candidate: the part starting at at and its successor.
type pair struct {
	rank uint32
	at   int32
}

// pairHeap is a min-heap of pairs by rank, then offset.
type pairHeap []pair

func (h pairHeap) less(a, b int) bool {
	return h[a].rank < h[b].rank || h[a].rank == h[b].rank && h[a].at < h[b].at
}

func (h *pairHeap) push(p pair) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		up := (i - 1) / 2
		if !s.less(i, up) {
			break
		}
		s[i], s[up] = s[up], s[i]
		i = up
	}
}

func (h *pairHeap) pop() pair {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(s) {
			break
		}
		if c+1 < len(s) && s.less(c+1, c) {
			c++
		}
		if !s.less(c, i) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}
