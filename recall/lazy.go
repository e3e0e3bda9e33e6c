package recall

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// LazyEmbedder is an Embedder that opens its model on the first Embed.
// Loading a model costs far more than a sync that finds nothing changed or
// a BM25-only search, which never embed; with a LazyEmbedder they never
// load it either. Its Identity is known up front (from the model files'
// sums, say), so the index can tell whether stored vectors are current
// without the model.
type LazyEmbedder struct {
	identity string
	open     func(ctx context.Context) (Embedder, error)
	previous string
	differs  func(text string) bool

	mu     sync.Mutex
	opened bool
	e      Embedder
	err    error
}

// NewLazyEmbedder returns an Embedder with the given identity that calls
// open once, when it is first asked to embed, with that Embed's context.
// The opened embedder must have the same identity.
func NewLazyEmbedder(identity string, open func(ctx context.Context) (Embedder, error)) *LazyEmbedder {
	return &LazyEmbedder{identity: identity, open: open}
}

// Succeeding makes l a Successor of the embedder with identity prev, whose
// vectors are l's for every text but those differs reports, and returns l.
func (l *LazyEmbedder) Succeeding(prev string, differs func(text string) bool) *LazyEmbedder {
	l.previous, l.differs = prev, differs
	return l
}

// Succeeds is what Succeeding set, known without opening the model.
func (l *LazyEmbedder) Succeeds(prev string) (differs func(text string) bool, ok bool) {
	if l.differs == nil || prev != l.previous {
		return nil, false
	}
	return l.differs, true
}

// Identity is the identity given to NewLazyEmbedder.
func (l *LazyEmbedder) Identity() string { return l.identity }

// Embed opens the model if it is not open yet, then embeds texts with it.
// A model that failed to open fails every Embed with the same error.
func (l *LazyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	e, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return e.Embed(ctx, texts)
}

func (l *LazyEmbedder) get(ctx context.Context) (Embedder, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opened {
		return l.e, l.err
	}
	l.opened = true
	e, err := l.open(ctx)
	switch {
	case err != nil:
		l.err = fmt.Errorf("open embedding model: %w", err)
	case e.Identity() != l.identity:
		l.err = fmt.Errorf("open embedding model: it is %s, expected %s", e.Identity(), l.identity)
		closeEmbedder(e)
	default:
		l.e = e
	}
	return l.e, l.err
}

// Opened reports whether the model has been opened (successfully or not).
func (l *LazyEmbedder) Opened() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.opened
}

// Close closes the model if it was opened and can be closed.
func (l *LazyEmbedder) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.e == nil {
		return nil
	}
	return closeEmbedder(l.e)
}

func closeEmbedder(e Embedder) error {
	if c, ok := e.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
