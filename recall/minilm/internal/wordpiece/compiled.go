package wordpiece

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	_ "embed" // the precompiled tokenizer
)

// The compiled form of a tokenizer.json (Compile), read in place by
// Precompiled; integers are little-endian uint32:
//
//	magic "tmwpc\x00\x00\x01", the sha256 of the tokenizer.json (32 bytes)
//	flags (1 clean_text, 2 handle_chinese_chars, 4 lowercase, 8 strip_accents),
//	max_input_chars_per_word, the longest piece's length in bytes, the
//	[UNK], [CLS] and [SEP] ids, the continuing-piece prefix's length and
//	the number of pieces n
//	ids:     n entries, the id of each piece in the order of data
//	offsets: n+1 entries; piece i is data[offsets[i]:offsets[i+1]]
//	the prefix's bytes, then data: the pieces' bytes, sorted
const (
	compiledMagic  = "tmwpc\x00\x00\x01"
	compiledHeader = len(compiledMagic) + sha256.Size + 8*4
)

// minilm is all-MiniLM-L6-v2's tokenizer.json, compiled (see doc.go for
// the go:generate line).
//
//go:embed minilm.wpc
var minilm string

var (
	precompiledOnce sync.Once
	precompiled     *Tokenizer
	precompiledSum  string
	precompiledErr  error
)

// Precompiled returns the tokenizer of the tokenizer.json whose sha256 is
// sum (in hex) when this package holds it compiled, all-MiniLM-L6-v2's,
// without reading any file; ok is false for any other sum.
func Precompiled(sum string) (t *Tokenizer, ok bool) {
	precompiledOnce.Do(func() {
		precompiled, precompiledSum, precompiledErr = decode(minilm)
	})
	if precompiledErr != nil {
		// The tests rule this out: the embedded file is generated and checked.
		panic(fmt.Sprintf("wordpiece: the embedded tokenizer is damaged: %v", precompiledErr))
	}
	if sum != precompiledSum {
		return nil, false
	}
	return precompiled, true
}

// Compile parses a tokenizer.json (see Parse) and returns its compiled form.
func Compile(config []byte) ([]byte, error) {
	t, err := Parse(config)
	if err != nil {
		return nil, err
	}
	m, ok := t.vocab.(mapVocab)
	if !ok {
		return nil, errors.New("compile: the tokenizer is compiled already")
	}
	pieces := make([]string, 0, len(m))
	for p := range m {
		pieces = append(pieces, p)
	}
	slices.Sort(pieces)
	sum := sha256.Sum256(config)
	out := append([]byte(compiledMagic), sum[:]...)
	n := t.norm
	flags := bit(n.clean, 1) | bit(n.chinese, 2) | bit(n.lower, 4) | bit(n.strip, 8)
	out = appendU32(out, flags, uint32(t.maxRunes), uint32(t.maxKey), uint32(t.unk), uint32(t.cls), uint32(t.sep),
		uint32(len(t.prefix)), uint32(len(pieces)))
	for _, p := range pieces {
		out = appendU32(out, uint32(m[p]))
	}
	offset := 0
	for _, p := range pieces {
		out = appendU32(out, uint32(offset))
		offset += len(p)
	}
	out = appendU32(out, uint32(offset))
	out = append(out, t.prefix...)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out, nil
}

func bit(on bool, v uint32) uint32 {
	if on {
		return v
	}
	return 0
}

func appendU32(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return b
}

// decode reads a compiled tokenizer in place and returns it with the sum of
// the tokenizer.json it came from.
func decode(raw string) (*Tokenizer, string, error) {
	if len(raw) < compiledHeader || !strings.HasPrefix(raw, compiledMagic) {
		return nil, "", errors.New("not a compiled tokenizer (bad magic)")
	}
	sum := hex.EncodeToString([]byte(raw[len(compiledMagic) : len(compiledMagic)+sha256.Size]))
	h := make([]uint32, 8)
	for i := range h {
		h[i] = u32(raw, len(compiledMagic)+sha256.Size+4*i)
	}
	flags, prefixLen, n := h[0], int(h[6]), int(h[7])
	v := tableVocab{raw: raw, n: n, ids: compiledHeader}
	v.offsets = v.ids + 4*n
	prefix := v.offsets + 4*(n+1)
	v.data = prefix + prefixLen
	if len(raw) < v.data || len(raw) != v.data+int(u32(raw, v.offsets+4*n)) {
		return nil, "", fmt.Errorf("compiled tokenizer: %d bytes, the header says otherwise", len(raw))
	}
	t := &Tokenizer{
		vocab: v, prefix: raw[prefix:v.data], maxRunes: int(h[1]), maxKey: int(h[2]),
		unk: int64(h[3]), cls: int64(h[4]), sep: int64(h[5]),
		norm: normalizer{clean: flags&1 != 0, chinese: flags&2 != 0, lower: flags&4 != 0, strip: flags&8 != 0},
	}
	return t, sum, nil
}

// u32 reads the little-endian uint32 at s[i:].
func u32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// vocabulary maps a piece to its id.
type vocabulary interface {
	id(piece []byte) (int32, bool)
}

// mapVocab is a vocabulary read from tokenizer.json.
type mapVocab map[string]int32

func (m mapVocab) id(piece []byte) (int32, bool) {
	id, ok := m[string(piece)]
	return id, ok
}

// tableVocab is a compiled vocabulary, searched in place.
type tableVocab struct {
	raw                string
	n                  int
	ids, offsets, data int // where each part starts in raw
}

func (v tableVocab) piece(i int) string {
	o := v.offsets + 4*i
	return v.raw[v.data+int(u32(v.raw, o)) : v.data+int(u32(v.raw, o+4))]
}

func (v tableVocab) id(piece []byte) (int32, bool) {
	lo, hi := 0, v.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if v.piece(mid) < string(piece) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < v.n && v.piece(lo) == string(piece) {
		return int32(u32(v.raw, v.ids+4*lo)), true
	}
	return 0, false
}
