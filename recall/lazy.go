package recall

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
)

// LazyEmbedder is an Embedder that opens its model on the first Embed.
// Loading a model costs far more than a sync that finds nothing changed or
// a BM25-only search, which never embed; with a LazyEmbedder they never
// load it either. Its Identity is known up front (from the model files'
// sums, say), so the index can tell whether stored vectors are current
// without the model.
//
// A caller that knows what it will embed can say so with Prefetch, which
// opens the model and embeds beside the caller's other work.
type LazyEmbedder struct {
	identity string
	open     func() (Embedder, error)

	once sync.Once // opens the model
	e    Embedder
	err  error

	mu     sync.Mutex
	opened bool      // the model's opening has begun
	pre    *prefetch // what Prefetch started and no Embed took yet
}

// prefetch is one Prefetch's work; done closes when vecs and err are set.
type prefetch struct {
	texts []string
	done  chan struct{}
	vecs  [][]float32
	err   error
}

// NewLazyEmbedder returns an Embedder with the given identity that calls
// open once, when it is first asked to embed. The opened embedder must have
// the same identity.
func NewLazyEmbedder(identity string, open func() (Embedder, error)) *LazyEmbedder {
	return &LazyEmbedder{identity: identity, open: open}
}

// Identity is the identity given to NewLazyEmbedder.
func (l *LazyEmbedder) Identity() string { return l.identity }

// Prefetch starts opening the model and embedding texts on another
// goroutine, and returns. The next Embed of the same texts returns that
// result, waiting for it if needed; other Embed calls wait for the model to
// open. It does nothing when texts is empty or the model's opening has
// begun.
func (l *LazyEmbedder) Prefetch(texts []string) {
	if len(texts) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.opened {
		return
	}
	l.opened = true
	p := &prefetch{texts: slices.Clone(texts), done: make(chan struct{})}
	l.pre = p
	go func() {
		defer close(p.done)
		e, err := l.get()
		if err != nil {
			p.err = err
			return
		}
		p.vecs, p.err = e.Embed(context.Background(), p.texts)
	}()
}

// Embed opens the model if it is not open yet, then embeds texts with it.
// A model that failed to open fails every Embed with the same error.
func (l *LazyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if p := l.takePrefetch(texts); p != nil {
		select {
		case <-p.done:
			return p.vecs, p.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e, err := l.get()
	if err != nil {
		return nil, err
	}
	return e.Embed(ctx, texts)
}

// takePrefetch hands out the prefetch of texts, once.
func (l *LazyEmbedder) takePrefetch(texts []string) *prefetch {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.pre
	if p == nil || !slices.Equal(p.texts, texts) {
		return nil
	}
	l.pre = nil
	return p
}

// get opens the model once; callers that come meanwhile wait for it.
func (l *LazyEmbedder) get() (Embedder, error) {
	l.mu.Lock()
	l.opened = true
	l.mu.Unlock()
	l.once.Do(func() {
		e, err := l.open()
		switch {
		case err != nil:
			l.err = fmt.Errorf("open embedding model: %w", err)
		case e.Identity() != l.identity:
			l.err = fmt.Errorf("open embedding model: it is %s, expected %s", e.Identity(), l.identity)
			closeEmbedder(e)
		default:
			l.e = e
		}
	})
	return l.e, l.err
}

// Opened reports whether the model has been opened (successfully or not),
// or its opening has begun.
func (l *LazyEmbedder) Opened() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.opened
}

// Close waits for a prefetch still running, then closes the model if it
// was opened and can be closed.
func (l *LazyEmbedder) Close() error {
	l.mu.Lock()
	p, opened := l.pre, l.opened
	l.pre = nil
	l.mu.Unlock()
	if p != nil {
		<-p.done
	}
	if !opened {
		return nil
	}
	if e, _ := l.get(); e != nil {
		return closeEmbedder(e)
	}
	return nil
}

func closeEmbedder(e Embedder) error {
	if c, ok := e.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
