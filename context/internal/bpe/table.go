package bpe

import (
	"errors"
	"fmt"
)

// The table format, all integers little-endian uint32:
//
//	magic "tmbpe\x00\x00\x01", tokens n, slots s (a power of two), data length d
//	offsets: n+1 entries; token r (its rank) is data[offsets[r]:offsets[r+1]]
//	slots:   s entries; 0 is empty, else rank+1, placed by fnv1a(token)&(s-1)
//	         and probed linearly
//	data:    the tokens' bytes in rank order
const (
	magic      = "tmbpe\x00\x00\x01"
	headerSize = len(magic) + 3*4
)

// table is a vocabulary in the precompiled format, read in place.
type table struct {
	raw     string
	n       uint32
	mask    uint32
	offsets int // where the offsets start in raw
	slots   int
	data    int
}

// openTable checks raw's header and sizes; it reads no entries.
func openTable(raw string) (table, error) {
	if len(raw) < headerSize || raw[:len(magic)] != magic {
		return table{}, errors.New("not a bpe table (bad magic)")
	}
	n, s, d := u32(raw, len(magic)), u32(raw, len(magic)+4), u32(raw, len(magic)+8)
	if s == 0 || s&(s-1) != 0 || s <= n {
		return table{}, fmt.Errorf("bpe table: %d slots for %d tokens", s, n)
	}
	t := table{raw: raw, n: n, mask: s - 1, offsets: headerSize}
	t.slots = t.offsets + 4*int(n+1)
	t.data = t.slots + 4*int(s)
	if want := t.data + int(d); len(raw) != want {
		return table{}, fmt.Errorf("bpe table: %d bytes, header says %d", len(raw), want)
	}
	if u32(raw, t.offsets+4*int(n)) != d {
		return table{}, errors.New("bpe table: last offset is not the data length")
	}
	return t, nil
}

// u32 reads the little-endian uint32 at s[i:].
func u32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// token returns the bytes of the token with rank r.
func (t *table) token(r uint32) string {
	o := t.offsets + 4*int(r)
	return t.raw[t.data+int(u32(t.raw, o)) : t.data+int(u32(t.raw, o+4))]
}

// rank returns the rank of the token whose bytes are s.
func (t *table) rank(s string) (uint32, bool) {
	for i := fnv1a(s) & t.mask; ; i = (i + 1) & t.mask {
		v := u32(t.raw, t.slots+4*int(i))
		if v == 0 {
			return 0, false
		}
		if t.token(v-1) == s {
			return v - 1, true
		}
	}
}

// fnv1a is the 32-bit FNV-1a hash, which places tokens in the slots.
func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// BuildTable lays tokens (indexed by rank) out in the table format, with
// at least twice as many slots as tokens. A token that appears twice is an
// error: its ranks would be ambiguous.
func BuildTable(tokens []string) ([]byte, error) {
	n := uint32(len(tokens))
	s := uint32(1)
	for s < 2*n {
		s <<= 1
	}
	var data []byte
	offsets := make([]uint32, 0, n+1)
	for _, tok := range tokens {
		offsets = append(offsets, uint32(len(data)))
		data = append(data, tok...)
	}
	offsets = append(offsets, uint32(len(data)))
	slots := make([]uint32, s)
	for r, tok := range tokens {
		i := fnv1a(tok) & (s - 1)
		for ; slots[i] != 0; i = (i + 1) & (s - 1) {
			if tokens[slots[i]-1] == tok {
				return nil, fmt.Errorf("token %q has ranks %d and %d", tok, slots[i]-1, r)
			}
		}
		slots[i] = uint32(r) + 1
	}
	out := []byte(magic)
	out = appendU32(out, n, s, uint32(len(data)))
	out = appendU32(out, offsets...)
	out = appendU32(out, slots...)
	return append(out, data...), nil
}

func appendU32(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return b
}
