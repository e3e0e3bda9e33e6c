package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	bindex "github.com/blevesearch/bleve_index_api"
)

// The retrieval modes a Query can ask for.
const (
	ModeHybrid = "hybrid" // BM25 and vectors, fused (the default)
	ModeBM25   = "bm25"
	ModeVector = "vector"
)

// Search answers a query over the named teammates and the shared scope,
// syncing each index with its files first unless q.NoSync.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	k := q.K
	if k <= 0 {
		k = 10
	}
	mode := q.Mode
	if mode == "" {
		mode = ModeHybrid
	}
	if mode != ModeHybrid && mode != ModeBM25 && mode != ModeVector {
		return nil, fmt.Errorf("search: unknown mode %q", mode)
	}
	if mode == ModeVector && ix.opts.Embedder == nil {
		return nil, errors.New("search: vector mode needs an embedding model")
	}
	if err := q.Filter.Check(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	names, err := ix.scopes(q.Teammates)
	if err != nil {
		return nil, err
	}
	ix.noteBM25Only()
	hits, err := ix.searchRetrying(ctx, names, q, k, mode, false)
	if errors.Is(err, errCorrupt) && ctx.Err() == nil {
		// The files checked out, yet the index library failed on them:
		// one changed underneath, or bleve has a bug. Start afresh.
		ix.warnf("recall: rebuilding the searched indexes (%v)", err)
		hits, err = ix.searchRetrying(ctx, names, q, k, mode, true)
	}
	return hits, err
}

// searchRetrying searches again when an index read without its lock was
// synced meanwhile.
func (ix *Index) searchRetrying(ctx context.Context, names []string, q Query, k int, mode string, rebuild bool) ([]Hit, error) {
	for try := 1; ; try++ {
		hits, err := ix.searchOnce(ctx, names, q, k, mode, rebuild)
		if !errors.Is(err, errIndexMoved) || try == unlockedTries {
			return hits, err
		}
	}
}

// MaxQueryBytes is how much of a query's text is searched for: a task
// handed to tmem context whole (a pasted log, say) is searched by its first
// 64 KiB, enough for any question and a bound on the work (each word asks
// the index for its postings, and its pairs and compounds too).
const MaxQueryBytes = 64 << 10

// SearchedText is the part of a query's text that is searched for:
// trimmed, and cut after MaxQueryBytes at the last white space before it
// (or a character boundary).
func SearchedText(s string) string { return queryText(s) }

func queryText(s string) string { return cutText(strings.TrimSpace(s), MaxQueryBytes) }

// cutText is s cut after max bytes, at the last white space before that
// in its second half, else at a character boundary.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	if i := strings.LastIndexFunc(s[:n], unicode.IsSpace); i > n/2 {
		n = i
	}
	return s[:n]
}

// searchOnce readies the named scopes, rebuilding them when asked,
// searches them and releases them.
func (ix *Index) searchOnce(ctx context.Context, names []string, q Query, k int, mode string, rebuild bool) ([]Hit, error) {
	var scopes []*scope
	defer func() {
		for _, s := range scopes {
			s.close()
		}
	}()
	text := queryText(q.Text)
	if text != "" && mode != ModeBM25 && ix.opts.Embedder != nil {
		ix.prepare(text, names) // embedded while the indexes open
	}
	now := q.Now
	if now.IsZero() {
		now = ix.now()
	}
	end := ix.trace("index")
	b := ix.newBudget()
	lw := waitFor(q.LockWait)
	for _, name := range names {
		s, err := ix.readyScope(ctx, name, q.NoSync && !rebuild, rebuild, lw, b, now)
		if err != nil {
			end()
			return nil, err
		}
		scopes = append(scopes, s)
	}
	end()
	end = ix.trace("embed")
	// BM25 ranks beside the wait for the query's vector (still being
	// embedded, the model perhaps still loading: see PrepareQuery).
	bm := startBM25(ctx, scopes, text, now, q.Filter, mode, ix.candidates(k), mode != ModeBM25 && ix.opts.Embedder != nil)
	qv, err := ix.queryVector(ctx, scopes, text, mode)
	end()
	var hits []Hit
	if err == nil {
		end = ix.trace("search")
		hits, err = ix.searchScopes(ctx, scopes, q, k, mode, qv, bm)
		end()
	}
	// The scopes close on return: BM25 must be done with them.
	bm.wait()
	if bm.noWords && qv == nil && err == nil {
		ix.warnf("recall: %s (stop words, punctuation, symbols and emoji are not indexed)", errNoWords)
	}
	if cerr := checkUnlocked(scopes); cerr != nil {
		return nil, cerr
	}
	if err == nil && q.NotIndexed != nil {
		var why []string
		for _, s := range scopes {
			if s.man != nil {
				why = append(why, s.man.NotIndexed...)
			}
		}
		q.NotIndexed(why)
	}
	return hits, err
}

// readyScope locks a scope and makes sure its index is there and current
// (or, under noSync, merely there; under rebuild, rebuilt), with bleve
// open. A sync leaves today's daily at now to the context builder (see
// Query.Now). In a workspace that cannot be written the index is
// searched as it is (see readonly.go).
func (ix *Index) readyScope(ctx context.Context, name string, noSync, rebuild bool, lw lockWait, b *embedBudget, now time.Time) (*scope, error) {
	s, err := ix.lockScope(ctx, name, !noSync, lw)
	if err != nil {
		if !unwritable(err) {
			return nil, err
		}
		ix.noteReadOnly(err)
		return ix.openUnlocked(name, err)
	}
	if noSync {
		if ok, _ := ix.loadManifest(s, true); ok {
			if err := ix.openForRead(s); err == nil {
				return s, nil
			}
		}
		// Missing or untrustworthy: build it after all, as a writer.
		s.close()
		if s, err = ix.lockScope(ctx, name, true, lw); err != nil {
			return nil, err
		}
	}
	s.now = now
	if _, err := ix.syncScope(ctx, s, rebuild, b); err != nil {
		if unwritable(err) {
			return ix.readAsIs(s, err)
		}
		s.close()
		return nil, err
	}
	if err := ix.openForRead(s); err != nil {
		ix.warnf("recall: rebuilding the index of %s (%v)", s.label(), err)
		s.closeBleve()
		if _, err := ix.syncScope(ctx, s, true, b); err != nil {
			s.close()
			return nil, err
		}
		if err := ix.openForRead(s); err != nil {
			s.close()
			return nil, fmt.Errorf("open index of %s: %w", s.label(), err)
		}
	}
	return s, nil
}

// openForRead readies a scope's bleve snapshot and, when there is an
// embedder to query them with, its vectors. Read-only, bleve changes no
// file, so the record stays true.
func (ix *Index) openForRead(s *scope) error {
	if s.rd == nil {
		r, done, err := ix.readerFor(s)
		if err != nil {
			return err
		}
		s.rd, s.rdDone = r, done
	}
	if ix.opts.Embedder != nil && s.vec == nil && s.man.Embedder == ix.embedderID() {
		v, done, err := ix.vectorsFor(filepath.Join(s.dir, vectorsFile))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		default:
			s.setVec(v, done)
		}
	}
	return nil
}

// readerFor returns a snapshot of a scope's bleve index and a function to
// call once it is no longer read. A locked scope's snapshot is kept
// between searches under the stamp of its manifest, which every sync that
// changes the index replaces; a scope read without its lock gets a
// snapshot of its own.
func (ix *Index) readerFor(s *scope) (*snapshot, func(), error) {
	if s.unlocked {
		return ix.openReader(s)
	}
	fi, err := os.Stat(filepath.Join(s.dir, manifestFile))
	if err != nil {
		return nil, nil, fmt.Errorf("open bleve: %w", err)
	}
	return ix.readers.get(s.dir, stampOf(fi), func() (*snapshot, func(), error) { return ix.openReader(s) })
}

// openReader checks the bleve files (unless the sync has), opens the
// index read-only and takes a snapshot of it, returned with the function
// that closes it. The index itself is closed at once, releasing its lock
// on the index's files, so that a snapshot kept between searches never
// holds up a sync; the snapshot keeps the segment files it reads open.
func (ix *Index) openReader(s *scope) (*snapshot, func(), error) {
	if !s.checked {
		if _, err := ix.checkStore(s); err != nil {
			return nil, nil, err
		}
	}
	bl, err := openBleve(filepath.Join(s.dir, bleveDir), true)
	if err != nil {
		return nil, nil, fmt.Errorf("open bleve: %w", err)
	}
	var r bindex.IndexReader
	err = guard("open bleve", func() error {
		a, err := bl.Advanced()
		if err == nil {
			r, err = a.Reader()
		}
		return err
	})
	done := func() { guard("close bleve", r.Close) }
	if cerr := guard("close bleve", bl.Close); err == nil && cerr != nil {
		done()
		err = cerr
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open bleve: %w", err)
	}
	return &snapshot{IndexReader: r}, done, nil
}

// snapshot is a read-only snapshot of a scope's bleve index and the
// chunks read from it so far: the snapshot never changes, so neither do
// they, and a snapshot kept between searches reads each chunk once.
type snapshot struct {
	bindex.IndexReader
	mu     sync.Mutex
	chunks map[string]Chunk
}

// maxSnapshotChunks bounds the chunks a snapshot keeps; past it, it
// starts over.
const maxSnapshotChunks = 1 << 14

// chunk returns the stored chunk id; ok is false when there is none.
func (s *snapshot) chunk(id string) (c Chunk, ok bool, err error) {
	s.mu.Lock()
	c, ok = s.chunks[id]
	s.mu.Unlock()
	if ok {
		return c, true, nil
	}
	var doc bindex.Document
	err = guard("load chunk "+id, func() (err error) {
		doc, err = s.Document(id)
		return err
	})
	if err != nil || doc == nil {
		return Chunk{}, false, err
	}
	doc.VisitFields(func(f bindex.Field) {
		if f.Name() == fChunk && json.Unmarshal(f.Value(), &c) == nil {
			ok = true
		}
	})
	if ok {
		s.mu.Lock()
		if s.chunks == nil || len(s.chunks) >= maxSnapshotChunks {
			s.chunks = map[string]Chunk{}
		}
		s.chunks[id] = c
		s.mu.Unlock()
	}
	return c, ok, nil
}

// queryVector embeds the query for a search that uses vectors; nil means
// the search ranks by BM25 only. Without stored vectors for this embedder a
// hybrid search has nothing to compare the query with, so it does not embed
// it (nor load the model); vector mode does, and reports a model that
// fails.
func (ix *Index) queryVector(ctx context.Context, scopes []*scope, text, mode string) ([]float32, error) {
	if text == "" || mode == ModeBM25 || ix.opts.Embedder == nil {
		return nil, nil
	}
	ahead, ok, err := ix.pre.take(ctx, text, mode == ModeVector || anyVectors(scopes))
	switch {
	case err != nil:
		return nil, fmt.Errorf("embed query: %w", err)
	case ok:
		return ahead, nil
	case mode == ModeHybrid && !anyVectors(scopes):
		return nil, nil
	}
	vs, err := ix.opts.Embedder.Embed(ctx, []string{text})
	if err == nil && len(vs) != 1 {
		err = fmt.Errorf("embedder returned %d vectors", len(vs))
	}
	switch {
	case err != nil && (mode == ModeVector || ctx.Err() != nil):
		return nil, fmt.Errorf("embed query: %w", err)
	case err != nil:
		ix.warnf("recall: embedding the query failed (%v); ranking by BM25 only", err)
		return nil, nil
	}
	return vs[0], nil
}

// candidates is how many chunks each ranking keeps for a search of k hits.
func (ix *Index) candidates(k int) int { return max(ix.rank.Candidates, 2*k) }

// searchScopes ranks the chunks of scopes for q: by BM25 (the ranking bm
// makes) unless mode is ModeVector, and by similarity to qv when it is not
// nil.
func (ix *Index) searchScopes(ctx context.Context, scopes []*scope, q Query, k int, mode string, qv []float32, bm *pendingBM25) ([]Hit, error) {
	r := ix.rank
	metas := map[string]Chunk{}
	vn := ix.candidates(k)
	if q.Filter.active() {
		vn = max(vn, filterVectorRows)
	}
	bmList, vec, err := rankLists(scopes, qv, vn, bm)
	if err != nil {
		return nil, err
	}
	if q.Filter.active() && len(vec) > 0 {
		// Filtered before fusion, as BM25's list is: a rank or score
		// among chunks the filter drops would weigh the vector list down.
		if vec, err = filterScored(scopes, vec, metas, q.Filter, ix.candidates(k)); err != nil {
			return nil, err
		}
	}
	fused := fuse(r, bmList, vec)

	depth := r.RecencyDepth
	if q.RecencyDepth != 0 {
		depth = q.RecencyDepth
	}
	recentPaths := recentWeeklies(scopes, depth)
	var need []string
	for _, x := range fused {
		if _, ok := metas[x.chunk.ID]; !ok {
			need = append(need, x.chunk.ID)
		}
	}
	for _, p := range recentPaths {
		need = append(need, p+"#0")
	}
	if err := fetchChunks(scopes, need, metas); err != nil {
		return nil, err
	}
	kept := fused[:0]
	for _, x := range fused {
		if c, ok := metas[x.chunk.ID]; ok && !shown(c, q.Shown) && q.Filter.keeps(c) {
			x.chunk = c
			kept = append(kept, x)
		}
	}
	boost(r, kept)
	chosen := withContext(ix.ws, ix.texts, passages(kept, k, r.PassageDecay), r.ContextLines, r.ContextTokens)
	var recent []ranked
	for _, p := range recentPaths {
		if c, ok := metas[p+"#0"]; ok && q.Filter.keeps(c) {
			recent = append(recent, ranked{chunk: c})
		}
	}
	final := withRecency(chosen, recent, k)
	noVec, err := ix.vectorless(scopes, final, mode)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(final))
	for _, x := range final {
		c := x.chunk
		hits = append(hits, Hit{
			Teammate: c.Teammate, Path: c.Path, Kind: c.Kind, Source: c.Source, Type: c.Type, Name: c.Name,
			Date: c.Date, StartLine: c.StartLine, EndLine: c.EndLine, Heading: c.Heading,
			Score: x.score, BM25: x.bm25, Vector: x.vector, Reason: x.reason, Text: c.Text, NoVector: noVec[c.ID],
		})
	}
	redactHits(hits)
	return hits, nil
}

// filterScored keeps the best n of list that f keeps, loading their
// chunks into metas.
func filterScored(scopes []*scope, list []scored, metas map[string]Chunk, f *Filter, n int) ([]scored, error) {
	ids := make([]string, len(list))
	for i, x := range list {
		ids[i] = x.id
	}
	if err := fetchChunks(scopes, ids, metas); err != nil {
		return nil, err
	}
	out := list[:0]
	for _, x := range list {
		if c, ok := metas[x.id]; ok && f.keeps(c) && len(out) < n {
			out = append(out, x)
		}
	}
	return out, nil
}

// pendingBM25 is a BM25 ranking under way (see startBM25).
type pendingBM25 struct {
	done    chan struct{}
	list    []scored
	err     error
	noWords bool // the query holds no word BM25 searches for
}

// startBM25 starts ranking the best n chunks of the scopes for text by BM25
// on another goroutine, unless mode is ModeVector or text is empty.
func startBM25(ctx context.Context, scopes []*scope, text string, now time.Time, f *Filter, mode string, n int, beside bool) *pendingBM25 {
	p := &pendingBM25{done: make(chan struct{})}
	if text == "" || mode == ModeVector {
		close(p.done)
		return p
	}
	rank := func() {
		defer close(p.done)
		p.list, p.err = bm25Search(ctx, scopes, text, now, n, f)
		if errors.Is(p.err, errNoWords) {
			p.noWords, p.err = true, nil
		}
		if p.err != nil {
			p.err = fmt.Errorf("search %q: %w", text, p.err)
		}
	}
	if !beside {
		rank()
		return p
	}
	go rank()
	return p
}

// wait returns the ranking once it is made.
func (p *pendingBM25) wait() ([]scored, error) {
	<-p.done
	return p.list, p.err
}

// rankLists returns the best n chunks of the scopes by similarity to qv
// (when it is not nil), and the BM25 ranking bm makes meanwhile.
func rankLists(scopes []*scope, qv []float32, n int, bm *pendingBM25) (bmList, vec []scored, err error) {
	var verr error
	if qv != nil {
		views := make([]*vecView, 0, len(scopes))
		for _, s := range scopes {
			views = append(views, s.vec)
		}
		// The rows are read from mapped files: guard turns a fault on one
		// cut short underneath into an error.
		verr = guard("search vectors", func() error {
			vec = searchViews(views, qv, n)
			return nil
		})
	}
	bmList, err = bm.wait()
	return bmList, vec, errors.Join(err, verr)
}

// anyVectors reports whether a scope has vectors loaded to search.
func anyVectors(scopes []*scope) bool {
	for _, s := range scopes {
		if s.vec != nil && s.vec.n > 0 {
			return true
		}
	}
	return false
}

// fetchChunks loads the stored chunks of ids into metas, looking each up
// in its own scope. It reads documents one by one rather than through a
// document-ID query, which bleve runs on goroutines of its own, where a
// fault on a mapped file could not be caught.
func fetchChunks(scopes []*scope, ids []string, metas map[string]Chunk) error {
	byName := map[string]*scope{}
	for _, s := range scopes {
		byName[s.name] = s
	}
	for _, id := range ids {
		s := byName[scopeOfChunk(id)]
		if s == nil {
			continue
		}
		c, ok, err := s.rd.chunk(id)
		if err != nil {
			return fmt.Errorf("load chunks: %w", err)
		}
		if ok {
			metas[id] = c
		}
	}
	return nil
}

// scopeOfChunk names the scope a chunk ID belongs to: the teammate
// folder its path starts with, or "" (CROSS-TEAM.md, the shared scope).
func scopeOfChunk(id string) string {
	if i := strings.IndexByte(id, '/'); i > 0 {
		return id[:i]
	}
	return ""
}

// recentWeeklies lists the paths of the depth most recent weekly
// summaries across the scopes, newest first.
func recentWeeklies(scopes []*scope, depth int) []string {
	if depth <= 0 {
		return nil
	}
	type wk struct{ date, path string }
	var all []wk
	for _, s := range scopes {
		for _, w := range s.weeklies {
			all = append(all, wk{w.Date, w.Path})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].date != all[j].date {
			return all[i].date > all[j].date
		}
		return all[i].path < all[j].path
	})
	var out []string
	for i := 0; i < len(all) && i < depth; i++ {
		out = append(out, all[i].path)
	}
	return out
}

// vectorsFor returns the view of a vector file, mapping (and checking) it
// only when it changed since this Index last mapped it, and a function to
// call once the view is no longer read. A writer replaces the file by
// renaming a new one over it, so an old mapping stays whole.
func (ix *Index) vectorsFor(path string) (*vecView, func(), error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file: %w", vectorsFile, errCorrupt)
	}
	return ix.vectors.get(path, stampOf(fi), func() (*vecView, func(), error) {
		return openVectors(path)
	})
}
