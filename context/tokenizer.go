package context

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
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
// TokenizerNames). BPE vocabularies are loaded on the first Count, not
// here, and are shared by every tokenizer of the same name in the process,
// as is the cache of counts that keeps repeated builds cheap.
func NewTokenizer(name string) (Tokenizer, error) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	if t, ok := builtin[name]; ok {
		return t, nil
	}
	var t Tokenizer
	switch name {
	case O200k:
		t = &bpe{name: name, enc: tokenizer.O200kBase}
	case Cl100k:
		t = &bpe{name: name, enc: tokenizer.Cl100kBase}
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

// bpe counts with a tiktoken vocabulary, loaded lazily: building the
// vocabulary's map costs tens of milliseconds that commands which never
// count tokens should not pay.
type bpe struct {
	name string
	enc  tokenizer.Encoding

	once  sync.Once
	codec tokenizer.Codec
	err   error

	mu         sync.Mutex
	cache      map[string]int
	cacheBytes int
}

// Bounds of the count cache; past either, it starts over.
const (
	maxCacheEntries = 1 << 14
	maxCacheBytes   = 32 << 20
)

func (b *bpe) Name() string { return b.name }

func (b *bpe) Count(text string) int {
	if text == "" {
		return 0
	}
	b.mu.Lock()
	n, ok := b.cache[text]
	b.mu.Unlock()
	if ok {
		return n
	}
	b.once.Do(func() { b.codec, b.err = tokenizer.Get(b.enc) })
	if b.err != nil { // the encodings above are compiled in; Get cannot fail for them
		panic(fmt.Sprintf("load tokenizer %s: %v", b.name, b.err))
	}
	n, err := b.codec.Count(text)
	if err != nil { // only in strict UTF-8 mode, which is never set
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
