package recall

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"sort"
)

// textHash keys the embedding cache: the same text is never embedded
// twice, wherever it moves.
type textHash [16]byte

func hashText(s string) textHash {
	sum := sha256.Sum256([]byte(s))
	var h textHash
	copy(h[:], sum[:16])
	return h
}

// vectorSet holds one scope's vectors, quantised to int8 with one float32
// scale per vector (a quarter of float32's size; the dot-product error is
// far below the gaps that decide a ranking).
//
// File layout (little endian): magic "TMEMVEC1", u32 dims, u32 count,
// u16 identity length, identity; count rows of [16-byte text hash,
// f32 scale, dims int8]; count chunk IDs as [u16 length, bytes]; a CRC-32C
// of everything before it.
type vectorSet struct {
	identity string
	dims     int
	ids      []string
	hashes   []textHash
	scales   []float32
	data     []int8 // len(ids)*dims
}

var vectorMagic = []byte("TMEMVEC1")

func newVectorSet(identity string, dims int) *vectorSet {
	return &vectorSet{identity: identity, dims: dims}
}

func (v *vectorSet) len() int { return len(v.ids) }

// add appends a vector, quantising it.
func (v *vectorSet) add(id string, h textHash, vec []float32) {
	var max float32
	for _, x := range vec {
		if a := float32(math.Abs(float64(x))); a > max {
			max = a
		}
	}
	scale := max / 127
	v.ids = append(v.ids, id)
	v.hashes = append(v.hashes, h)
	v.scales = append(v.scales, scale)
	for _, x := range vec {
		q := 0.0
		if scale > 0 {
			q = math.Round(float64(x / scale))
		}
		v.data = append(v.data, int8(q))
	}
}

// addRow copies row i of o.
func (v *vectorSet) addRow(id string, o *vectorSet, i int) {
	v.ids = append(v.ids, id)
	v.hashes = append(v.hashes, o.hashes[i])
	v.scales = append(v.scales, o.scales[i])
	v.data = append(v.data, o.data[i*o.dims:(i+1)*o.dims]...)
}

// byHash maps text hashes to rows: the embedding cache.
func (v *vectorSet) byHash() map[textHash]int {
	m := make(map[textHash]int, len(v.ids))
	for i, h := range v.hashes {
		m[h] = i
	}
	return m
}

func (v *vectorSet) encode() []byte {
	var b bytes.Buffer
	b.Write(vectorMagic)
	put32 := func(x uint32) { b.Write(binary.LittleEndian.AppendUint32(nil, x)) }
	put16 := func(x uint16) { b.Write(binary.LittleEndian.AppendUint16(nil, x)) }
	put32(uint32(v.dims))
	put32(uint32(len(v.ids)))
	put16(uint16(len(v.identity)))
	b.WriteString(v.identity)
	for i := range v.ids {
		b.Write(v.hashes[i][:])
		put32(math.Float32bits(v.scales[i]))
		row := v.data[i*v.dims : (i+1)*v.dims]
		for _, x := range row {
			b.WriteByte(byte(x))
		}
	}
	for _, id := range v.ids {
		put16(uint16(len(id)))
		b.WriteString(id)
	}
	put32(crc32.Checksum(b.Bytes(), crcTable))
	return b.Bytes()
}

func readVectors(path string) (*vectorSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeVectors(b)
}

func decodeVectors(b []byte) (*vectorSet, error) {
	bad := func(what string) error { return fmt.Errorf("vectors %s: %w", what, errCorrupt) }
	if len(b) < len(vectorMagic)+14 || !bytes.Equal(b[:len(vectorMagic)], vectorMagic) {
		return nil, bad("header")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return nil, bad("checksum")
	}
	p := len(vectorMagic)
	dims := int(binary.LittleEndian.Uint32(b[p:]))
	n := int(binary.LittleEndian.Uint32(b[p+4:]))
	il := int(binary.LittleEndian.Uint16(b[p+8:]))
	p += 10
	if dims < 0 || dims > 1<<14 || (dims == 0 && n > 0) || p+il > len(body) {
		return nil, bad("header")
	}
	v := &vectorSet{identity: string(b[p : p+il]), dims: dims}
	p += il
	row := 20 + dims
	if n < 0 || p+n*row > len(body) {
		return nil, bad("rows")
	}
	v.ids = make([]string, n)
	v.hashes = make([]textHash, n)
	v.scales = make([]float32, n)
	v.data = make([]int8, n*dims)
	for i := 0; i < n; i++ {
		copy(v.hashes[i][:], b[p:p+16])
		v.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[p+16:]))
		src := b[p+20 : p+row]
		dst := v.data[i*dims : (i+1)*dims]
		for j := range dst {
			dst[j] = int8(src[j])
		}
		p += row
	}
	for i := 0; i < n; i++ {
		if p+2 > len(body) {
			return nil, bad("ids")
		}
		l := int(binary.LittleEndian.Uint16(b[p:]))
		p += 2
		if p+l > len(body) {
			return nil, bad("ids")
		}
		v.ids[i] = string(b[p : p+l])
		p += l
	}
	if p != len(body) {
		return nil, bad("trailer")
	}
	return v, nil
}

// scored is one vector-search result.
type scored struct {
	id    string
	score float64
}

// search returns the top n rows by dot product with the float query q
// (exact: every row is scored).
func (v *vectorSet) search(q []float32, n int) []scored {
	if v == nil || len(q) != v.dims || n <= 0 {
		return nil
	}
	out := make([]scored, 0, n+1)
	min := math.Inf(-1)
	d := v.dims
	for i := range v.ids {
		row := v.data[i*d : (i+1)*d]
		var s float32
		for j, x := range row {
			s += q[j] * float32(x)
		}
		score := float64(s * v.scales[i])
		if len(out) == n && score <= min {
			continue
		}
		out = append(out, scored{v.ids[i], score})
		if len(out) > n {
			sort.Slice(out, func(a, b int) bool { return out[a].score > out[b].score })
			out = out[:n]
			min = out[n-1].score
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].score > out[b].score })
	return out
}
