package hashembed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Dims is the vector size, that of MiniLM.
const Dims = 384

// Embedder is the hashed bag-of-words embedder. The zero value is ready.
type Embedder struct{}

// Identity names the scheme and its version.
func (Embedder) Identity() string { return fmt.Sprintf("hashembed-v1/%d", Dims) }

// Embed returns one normalised vector per text.
func (Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = Vector(t)
	}
	return out, nil
}

// Vector embeds one text.
func Vector(text string) []float32 {
	v := make([]float32, Dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	for _, w := range words {
		add(v, "w:"+w, 1)
		rs := []rune("^" + w + "$")
		for i := 0; i+3 <= len(rs); i++ {
			add(v, "t:"+string(rs[i:i+3]), 0.5)
		}
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

func add(v []float32, feature string, w float32) {
	h := fnv.New64a()
	h.Write([]byte(feature))
	x := h.Sum64()
	sign := float32(1)
	if x>>63 == 1 {
		sign = -1
	}
	v[x%Dims] += sign * w
}
