package recall

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
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
// File layout (little endian): magic "TMEMVEC2", u32 dims, u32 count,
// u16 identity length, identity; count rows of [16-byte text hash,
// f32 scale, dims int8]; count sign sketches of sketchWords(dims) u64
// (bit j set when dimension j is positive); count chunk IDs as
// [u16 length, bytes]; a CRC-32C of everything before it.
type vectorSet struct {
	identity string
	dims     int
	ids      []string
	hashes   []textHash
	scales   []float32
	data     []int8 // len(ids)*dims
}

var vectorMagic = []byte("TMEMVEC2")

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
	for i := range v.ids {
		for _, w := range sketch(v.data[i*v.dims : (i+1)*v.dims]) {
			b.Write(binary.LittleEndian.AppendUint64(nil, w))
		}
	}
	for _, id := range v.ids {
		put16(uint16(len(id)))
		b.WriteString(id)
	}
	put32(crc32.Checksum(b.Bytes(), crcTable))
	return b.Bytes()
}

func sketchWords(dims int) int { return (dims + 63) / 64 }

// sketch packs the signs of a quantised vector into bits.
func sketch(row []int8) []uint64 {
	out := make([]uint64, sketchWords(len(row)))
	for j, x := range row {
		if x > 0 {
			out[j/64] |= 1 << (j % 64)
		}
	}
	return out
}

func readVectors(path string) (*vectorSet, error) {
	b, _, err := readRegular(path)
	if err != nil {
		return nil, err
	}
	return decodeVectors(b)
}

func decodeVectors(b []byte) (*vectorSet, error) {
	h, err := parseVectorHeader(b)
	if err != nil {
		return nil, err
	}
	bad, body, p, dims, n := h.bad, h.body, h.p, h.dims, h.n
	v := &vectorSet{identity: h.identity, dims: dims}
	row := 20 + dims
	if n < 0 || p+n*row > len(body) {
		return nil, bad("rows")
	}
	if p+n*row+n*8*sketchWords(dims) > len(body) {
		return nil, bad("sketches")
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
	p += n * 8 * sketchWords(dims)
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

// vecView is a vector file opened for searching: rows are scored in place
// in the file's bytes and chunk IDs are decoded only for the winners.
type vecView struct {
	identity string
	dims, n  int
	rows     []byte // n rows of [16-byte hash, f32 scale, dims int8]
	sketches []byte // n sign sketches
	ids      []byte // the ID table
}

// openVectors maps a vector file for searching; release frees it once
// the search is done with the view.
func openVectors(path string) (v *vecView, release func(), err error) {
	b, release, err := mapFile(path)
	if err != nil {
		return nil, nil, err
	}
	if v, err = viewVectors(b); err != nil {
		release()
		return nil, nil, err
	}
	return v, release, nil
}

func viewVectors(b []byte) (*vecView, error) {
	h, err := parseVectorHeader(b)
	if err != nil {
		return nil, err
	}
	bad, body, p, dims, n := h.bad, h.body, h.p, h.dims, h.n
	v := &vecView{identity: h.identity, dims: dims, n: n}
	rl, sl := n*(20+dims), n*8*sketchWords(dims)
	if n < 0 || p+rl+sl > len(body) {
		return nil, bad("rows")
	}
	v.rows = body[p : p+rl]
	v.sketches = body[p+rl : p+rl+sl]
	v.ids = body[p+rl+sl:]
	return v, nil
}

// exactBelow is the row count (over all searched scopes) up to which
// every row is scored; above it the sign sketches pick candidates first.
const exactBelow = 8192

// searchViews returns the n rows of all views with the largest dot
// product with q. Up to exactBelow rows in all, every row is scored
// exactly (over the quantised vectors). Larger sets are first narrowed by
// the Hamming distance between sign sketches to the best max(64n, 4096)
// rows, which are then scored exactly: for dense embeddings the true top
// n is almost always among them, at a fraction of a full scan's cost.
func searchViews(views []*vecView, q []float32, n int) []scored {
	var vs []*vecView
	total := 0
	for _, v := range views {
		if v != nil && v.n > 0 && v.dims == len(q) {
			vs = append(vs, v)
			total += v.n
		}
	}
	if len(vs) == 0 || n <= 0 {
		return nil
	}
	var qmax float32
	for _, x := range q {
		if a := float32(math.Abs(float64(x))); a > qmax {
			qmax = a
		}
	}
	if qmax == 0 {
		return nil
	}
	qi := make([]int32, len(q))
	qs := make([]int8, len(q))
	for j, x := range q {
		qi[j] = int32(math.Round(float64(x / qmax * 127)))
		qs[j] = int8(qi[j])
	}
	qscale := float64(qmax) / 127
	rows := make([][]int, len(vs)) // nil: score every row
	if c := max(64*n, 4096); total > exactBelow && c < total {
		rows = nearestSketches(vs, sketch(qs), c)
	}
	var out []scored
	for k, v := range vs {
		top := make(topN, 0, n+1)
		row := 20 + v.dims
		score := func(i int) {
			r := v.rows[i*row : (i+1)*row]
			scale := math.Float32frombits(binary.LittleEndian.Uint32(r[16:20]))
			top.push(i, float64(dotInt8(qi, r[20:]))*float64(scale)*qscale, n)
		}
		if rows[k] == nil {
			for i := 0; i < v.n; i++ {
				score(i)
			}
		} else {
			for _, i := range rows[k] {
				score(i)
			}
		}
		out = append(out, v.resolve(top)...)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].score > out[b].score })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// resolve turns scored rows into scored chunk IDs, reading the ID table
// once, in row order.
func (v *vecView) resolve(top topN) []scored {
	order := make([]int, len(top)) // into top, by row
	for k := range order {
		order[k] = k
	}
	sort.Slice(order, func(a, b int) bool { return top[order[a]].row < top[order[b]].row })
	out := make([]scored, len(top))
	p, next := 0, 0
	for i := 0; i < v.n && next < len(order) && p+2 <= len(v.ids); i++ {
		l := int(binary.LittleEndian.Uint16(v.ids[p:]))
		p += 2
		if k := order[next]; top[k].row == i {
			if p+l <= len(v.ids) {
				out[k] = scored{string(v.ids[p : p+l]), top[k].score}
			}
			next++
		}
		p += l
	}
	return out
}

// nearestSketches returns, per view, the rows whose sign sketches are
// nearest to qs in Hamming distance, about c in all: a histogram of
// distances finds the cut-off, a second pass collects the rows within it.
func nearestSketches(vs []*vecView, qs []uint64, c int) [][]int {
	w := len(qs)
	hist := make([]int, 64*w+1)
	dists := make([][]uint16, len(vs))
	for k, v := range vs {
		dist := make([]uint16, v.n)
		for i := 0; i < v.n; i++ {
			sk := v.sketches[i*8*w : (i+1)*8*w]
			d := 0
			for j := 0; j < w; j++ {
				d += bits.OnesCount64(binary.LittleEndian.Uint64(sk[j*8:]) ^ qs[j])
			}
			dist[i] = uint16(d)
			hist[d]++
		}
		dists[k] = dist
	}
	cut, total := 0, 0
	for cut < len(hist) && total+hist[cut] <= c {
		total += hist[cut]
		cut++
	}
	room := c - total // rows at distance cut fill what is left, first come first
	out := make([][]int, len(vs))
	for k, dist := range dists {
		out[k] = []int{}
		for i, d := range dist {
			switch {
			case int(d) < cut:
				out[k] = append(out[k], i)
			case int(d) == cut && room > 0:
				out[k] = append(out[k], i)
				room--
			}
		}
	}
	return out
}

// dotInt8 is the dot product of a quantised query and a row of int8s
// stored as bytes.
func dotInt8(q []int32, r []byte) int32 {
	var s0, s1, s2, s3 int32
	j := 0
	r = r[:len(q)]
	for ; j+4 <= len(q); j += 4 {
		s0 += q[j] * int32(int8(r[j]))
		s1 += q[j+1] * int32(int8(r[j+1]))
		s2 += q[j+2] * int32(int8(r[j+2]))
		s3 += q[j+3] * int32(int8(r[j+3]))
	}
	for ; j < len(q); j++ {
		s0 += q[j] * int32(int8(r[j]))
	}
	return s0 + s1 + s2 + s3
}

type rowScore struct {
	row   int
	score float64
}

// topN keeps the n best rows as a min-heap on score.
type topN []rowScore

func (t *topN) push(row int, score float64, n int) {
	h := *t
	if len(h) == n {
		if score <= h[0].score {
			return
		}
		h[0] = rowScore{row, score}
		h.down(0)
		return
	}
	h = append(h, rowScore{row, score})
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].score <= h[i].score {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	*t = h
}

func (t topN) down(i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t) && t[l].score < t[m].score {
			m = l
		}
		if r < len(t) && t[r].score < t[m].score {
			m = r
		}
		if m == i {
			return
		}
		t[i], t[m] = t[m], t[i]
		i = m
	}
}

// vectorHeader is the checked header of a vector file: p is the offset of
// the first row, body the file without its trailing checksum.
type vectorHeader struct {
	identity string
	dims, n  int
	p        int
	body     []byte
	bad      func(what string) error
}

// parseVectorHeader checks a vector file's magic, checksum and header.
func parseVectorHeader(b []byte) (vectorHeader, error) {
	bad := func(what string) error { return fmt.Errorf("vectors %s: %w", what, errCorrupt) }
	if len(b) < len(vectorMagic)+14 || !bytes.Equal(b[:len(vectorMagic)], vectorMagic) {
		return vectorHeader{}, bad("header")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return vectorHeader{}, bad("checksum")
	}
	p := len(vectorMagic)
	dims := int(binary.LittleEndian.Uint32(b[p:]))
	n := int(binary.LittleEndian.Uint32(b[p+4:]))
	il := int(binary.LittleEndian.Uint16(b[p+8:]))
	p += 10
	if dims < 0 || dims > 1<<14 || (dims == 0 && n > 0) || p+il > len(body) {
		return vectorHeader{}, bad("header")
	}
	return vectorHeader{identity: string(b[p : p+il]), dims: dims, n: n, p: p + il, body: body, bad: bad}, nil
}

// without adds to out the IDs of ids that have no row in v.
func (v *vecView) without(ids, out map[string]bool) {
	seen := map[string]bool{}
	p := 0
	for i := 0; i < v.n && len(seen) < len(ids) && p+2 <= len(v.ids); i++ {
		l := int(binary.LittleEndian.Uint16(v.ids[p:]))
		p += 2
		if id := string(v.ids[p:min(p+l, len(v.ids))]); ids[id] {
			seen[id] = true
		}
		p += l
	}
	for id := range ids {
		if !seen[id] {
			out[id] = true
		}
	}
}
