package context

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tmemhq/tmem/context/internal/bpe"
)

// Tokenizer counts tokens the way the model that reads the prompt will.
// Build keeps the memory budget under exactly this count.
type Tokenizer interface {
	// Name identifies the tokenizer in the manifest ("o200k", "cl100k",
	// "chars4").
	Name() string
	// Count returns the number of tokens in text.
	Count(text string) int
}

// Names of the built-in tokenizers.
const (
	O200k  = "o200k"  // BPE of GPT-4o and later models: o200k_base
	Cl100k = "cl100k" // BPE of GPT-4 and GPT-3.5: cl100k_base
	Chars4 = "chars4" // cheap estimate: one token per four characters
)

// DefaultTokenizer is the tokenizer Build uses when Options.Tokenizer is
// nil.
const DefaultTokenizer = O200k

// TokenizerNames lists the built-in tokenizers.
func TokenizerNames() []string { return []string{O200k, Cl100k, Chars4} }

var (
	builtinMu sync.Mutex
	builtin   = map[string]Tokenizer{}
)

// NewTokenizer returns the built-in tokenizer called name (see
// TokenizerNames). BPE vocabularies are precompiled tables read in place,
// so the first count costs microseconds; tokenizers of the same name share
// the cache of counts that keeps repeated builds cheap.
func NewTokenizer(name string) (Tokenizer, error) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	if t, ok := builtin[name]; ok {
		return t, nil
	}
	var t Tokenizer
	switch name {
	case O200k:
		t = &bpeCounter{name: name, enc: bpe.O200k}
	case Cl100k:
		t = &bpeCounter{name: name, enc: bpe.Cl100k}
	case Chars4:
		t = chars4{}
	default:
		names := TokenizerNames()
		sort.Strings(names)
		return nil, fmt.Errorf("unknown tokenizer %q (known: %s)", name, strings.Join(names, ", "))
	}
	builtin[name] = t
	return t, nil
}

// chars4 estimates one token per four characters, rounded up.
type chars4 struct{}

func (chars4) Name() string { return Chars4 }

func (chars4) Count(text string) int { return (utf8.RuneCountInString(text) + 3) / 4 }

// bpeCounter counts with a tiktoken encoding, remembering the counts of
// the texts it has seen.
type bpeCounter struct {
	name string
	enc  *bpe.Encoding

	mu         sync.Mutex
	cache      map[string]int
	cacheBytes int
}

// Bounds of the count cache; past either, it starts over.
const (
	maxCacheEntries = 1 << 14
	maxCacheBytes   = 32 << 20
)

func (b *bpeCounter) Name() string { return b.name }

// SplitsBetween implements Splitter.
func (b *bpeCounter) SplitsBetween(left, right string) bool { return b.enc.SplitsBetween(left, right) }

// Splitter is implemented by a Tokenizer whose count of left+right is the
// count of left plus the count of right whenever SplitsBetween(left,
// right) holds. Build then counts each piece of the stack once and adds
// the counts up where the pieces meet at such a join; elsewhere, and with
// a Tokenizer that is no Splitter, it counts the joined text. The BPE
// tokenizers are Splitters; chars4, which rounds each count up, is not.
type Splitter interface {
	SplitsBetween(left, right string) bool
}

// countJoined returns tok's count of the concatenation of bs, given each
// block's own count: their sum when tok splits the text at every join
// (BPE splits at a line end followed by "#", "_" or a word, which is how
// the blocks and sections of a stack meet), else a count of the joined
// text. Either way it is the count of exactly that text, and each text
// is read by the tokenizer once.
func countJoined(tok Tokenizer, bs []block) int {
	s, ok := tok.(Splitter)
	n, prev := 0, ""
	for _, x := range bs {
		if x.text == "" {
			continue
		}
		if !ok || prev != "" && !s.SplitsBetween(prev, x.text) {
			return tok.Count(joinBlocks(bs))
		}
		n, prev = n+x.tokens, x.text
	}
	return n
}

func (b *bpeCounter) Count(text string) int {
	if text == "" {
		return 0
	}
	b.mu.Lock()
	n, ok := b.cache[text]
	b.mu.Unlock()
	if ok {
		return n
	}
	n, err := b.enc.Count(text)
	if err != nil { // a damaged built-in table, which the bpe tests rule out
		panic(fmt.Sprintf("count tokens with %s: %v", b.name, err))
	}
	b.mu.Lock()
	if b.cache == nil || len(b.cache) >= maxCacheEntries || b.cacheBytes+len(text) > maxCacheBytes {
		b.cache, b.cacheBytes = map[string]int{}, 0
	}
	b.cache[text] = n
	b.cacheBytes += len(text)
	b.mu.Unlock()
	return n
}
