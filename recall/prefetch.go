package recall

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// A query's vector does not depend on the index. A hybrid search starts
// embedding its query on another goroutine before it opens the indexes,
// and a caller that knows the query earlier (the context builder's caller,
// before it reads the teammate's files) can start it sooner still with
// PrepareQuery: the model's load and the query's embedding then overlap
// the rest of the work instead of adding to it. Only a query whose search
// will compare it with stored vectors is embedded ahead: one of the scopes
// searched must hold vectors from this embedder.

// maxPending bounds the queries embedded ahead and not yet searched for.
const maxPending = 16

// pendingQuery is a query embedding under way or done.
type pendingQuery struct {
	done chan struct{} // closed when vec and err are set
	vec  []float32
	err  error
}

// prefetch holds the queries embedded ahead, by text.
type prefetch struct {
	mu sync.Mutex
	m  map[string]*pendingQuery
	wg sync.WaitGroup // embeddings under way; Close waits for them
}

// PrepareQuery starts embedding text for a search of the named teammates
// (none: all) that is to follow, when that search would embed it: the
// index has an embedder and one of the scopes holds vectors from it. It
// returns at once; the search waits for the vector when it needs it. A
// text never searched for costs one embedding.
func (ix *Index) PrepareQuery(text string, teammates []string) {
	text = queryText(text)
	if text == "" || ix.opts.Embedder == nil {
		return
	}
	names, err := ix.scopes(teammates)
	if err != nil {
		return
	}
	ix.prepare(text, names)
}

// prepare starts embedding text unless it is under way already, the named
// scopes hold no vectors from the embedder, or too many are pending.
func (ix *Index) prepare(text string, names []string) {
	if !ix.vectorsOnDisk(names) {
		return
	}
	p := &ix.pre
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.m[text]; ok || len(p.m) >= maxPending {
		return
	}
	if p.m == nil {
		p.m = map[string]*pendingQuery{}
	}
	q := &pendingQuery{done: make(chan struct{})}
	p.m[text] = q
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(q.done)
		defer ix.trace("background embed")()
		vs, err := ix.opts.Embedder.Embed(context.Background(), []string{text})
		if err == nil && len(vs) == 1 {
			q.vec = vs[0]
		}
		q.err = err
	}()
}

// take removes text from the queries embedded ahead and, when the search
// needs its vector, waits for it. ok is false when text was not embedded
// ahead, is not needed, or its embedding failed (the search embeds it
// again and reports that failure itself).
func (p *prefetch) take(ctx context.Context, text string, need bool) (vec []float32, ok bool, err error) {
	p.mu.Lock()
	q := p.m[text]
	delete(p.m, text)
	p.mu.Unlock()
	if q == nil || !need {
		return nil, false, nil
	}
	select {
	case <-q.done:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	return q.vec, q.vec != nil, nil
}

// vectorsOnDisk reports whether one of the named scopes' vector files
// holds vectors from the index's embedder, by its header alone.
func (ix *Index) vectorsOnDisk(names []string) bool {
	id := ix.embedderID()
	for _, name := range names {
		if vectorsFrom(filepath.Join(ix.ws.Root, scopeRel(name), vectorsFile), id) {
			return true
		}
	}
	return false
}

// vectorsFrom reports whether the vector file at path is a regular file
// that holds at least one vector from the embedder with identity id (see
// vectorSet for the layout).
func vectorsFrom(path, id string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(vectorMagic)+10+len(id))
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	p := len(vectorMagic)
	count := binary.LittleEndian.Uint32(head[p+4:])
	idLen := int(binary.LittleEndian.Uint16(head[p+8:]))
	return bytes.HasPrefix(head, vectorMagic) && count > 0 && idLen == len(id) && string(head[p+10:]) == id
}
