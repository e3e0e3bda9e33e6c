package compact

import (
	"context"
	"errors"
	"sync"

	"github.com/tmemhq/tmem/recall"
)

// Vectors is a Similarity over sentence vectors from recall's embedding
// model, for when a model is installed: memories that say the same thing in
// other words still cluster. The cosine is rescaled so that Floor (an
// unrelated pair) maps to 0 and identical texts to 1, which puts it on the
// scale the Shingles thresholds were chosen for. If the model fails, it
// falls back to Shingles for the rest of the run and Err reports why.
type Vectors struct {
	Embedder recall.Embedder
	// Floor is the cosine of texts that share nothing; 0 means 0.5.
	Floor float64

	ctx   context.Context
	mu    sync.Mutex
	cache map[string][]float32
	err   error
}

// NewVectors returns a Vectors similarity that embeds with e under ctx.
func NewVectors(ctx context.Context, e recall.Embedder) *Vectors {
	return &Vectors{Embedder: e, ctx: ctx, cache: map[string][]float32{}}
}

// Similarity implements Similarity.
func (v *Vectors) Similarity(a, b string) float64 {
	va, vb := v.vector(a), v.vector(b)
	if va == nil || vb == nil || len(va) != len(vb) {
		return Shingles{}.Similarity(a, b)
	}
	var dot float64
	for i := range va {
		dot += float64(va[i]) * float64(vb[i])
	}
	floor := v.Floor
	if floor <= 0 || floor >= 1 {
		floor = 0.5
	}
	s := (dot - floor) / (1 - floor)
	return min(max(s, 0), 1)
}

// Err returns the embedding error that made Vectors fall back, if any.
func (v *Vectors) Err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.err
}

func (v *Vectors) vector(t string) []float32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if vec, ok := v.cache[t]; ok || v.err != nil {
		return vec
	}
	ctx := v.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	out, err := v.Embedder.Embed(ctx, []string{t})
	if err == nil && len(out) != 1 {
		err = errors.New("embedder returned no vector")
	}
	if err != nil {
		v.err = err
		return nil
	}
	if v.cache == nil {
		v.cache = map[string][]float32{}
	}
	v.cache[t] = out[0]
	return out[0]
}
