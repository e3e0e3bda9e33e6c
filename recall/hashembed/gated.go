package hashembed

import "context"

// Gated embeds like Embedder, except that a call embedding any text other
// than the queries it was made with waits until Open is called (or its
// context ends), after sending on Started. Tests use it to show that a
// search answers without waiting for chunks to be embedded, and to hold a
// background embedder in the middle of its work.
type Gated struct {
	queries map[string]bool
	gate    chan struct{}
	// Started receives once for every call that waits; it is buffered,
	// so a call never blocks on it while there is room.
	Started chan struct{}
}

// NewGated returns a closed Gated that lets the given queries through.
func NewGated(queries ...string) *Gated {
	g := &Gated{queries: map[string]bool{}, gate: make(chan struct{}), Started: make(chan struct{}, 64)}
	for _, q := range queries {
		g.queries[q] = true
	}
	return g
}

// Open lets every waiting and later call through; call it once.
func (g *Gated) Open() { close(g.gate) }

// Identity is Embedder's: vectors from the two are interchangeable.
func (g *Gated) Identity() string { return Embedder{}.Identity() }

// Embed embeds texts, first waiting for Open unless all are known queries.
func (g *Gated) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if g.queries[t] {
			continue
		}
		g.Started <- struct{}{}
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		break
	}
	return Embedder{}.Embed(ctx, texts)
}
