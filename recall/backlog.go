package recall

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// The backlog is what a sync bounded by Options.SyncEmbed left without
// vectors: chunks indexed for BM25 whose vectors are still to come. Its
// size is kept in the manifest (Unembedded), so a search knows, from the
// header alone, whether any of its hits can lack a vector. EmbedBacklog
// embeds it without holding a scope's lock while the model runs, so
// searches and syncs go on meanwhile, and writes the vectors under the
// lock in steps; what changed in between is left for the next pass.

// BacklogOptions tune EmbedBacklog.
type BacklogOptions struct {
	// Batch is how many chunks go to the embedder at once; 0 means
	// Options.EmbedBatch. A small batch leaves cores to searches running
	// beside it.
	Batch int
	// Step is how many chunks are embedded before their vectors are
	// written to the index (each write rewrites the scope's vector file);
	// 0 means 256.
	Step int
}

// BacklogStats says what EmbedBacklog did.
type BacklogStats struct {
	Embedded int `json:"embedded"` // chunks sent to the embedder
	Cached   int `json:"cached"`   // chunks whose vector was found by their text
	Left     int `json:"left"`     // chunks still without vectors
}

// backlogChunk is an indexed chunk without a vector, with what it takes
// to check, when its vector is written, that the chunk is still the same:
// the content hash of the file it was read from.
type backlogChunk struct {
	id, path, fileHash string
	text               string
	hash               textHash
	cached             bool // its text has a vector in the scope already
	vec                []float32
}

// backlogOf is the backlog a scope's manifest records for this Index's
// embedder; without one (or with vectors from another) there is none.
func (ix *Index) backlogOf(m *manifest) int {
	if m == nil || ix.opts.Embedder == nil || m.Embedder != ix.embedderID() {
		return 0
	}
	return m.Unembedded
}

// EmbedBacklog embeds the chunks of the named teammates' indexes (and the
// shared scope's) that have no vector yet; an empty list means every
// teammate. The model runs without the scope locks held: searches and
// syncs, in this process or others, go on meanwhile. Scopes that were
// never synced with this embedder are left to the next sync. It returns
// when no backlog is left that it can embed, or ctx ends.
func (ix *Index) EmbedBacklog(ctx context.Context, teammates []string, opts BacklogOptions) (BacklogStats, error) {
	var st BacklogStats
	if ix.opts.Embedder == nil {
		return st, nil
	}
	if opts.Batch <= 0 {
		opts.Batch = ix.opts.EmbedBatch
	}
	if opts.Step <= 0 {
		opts.Step = 256
	}
	names, err := ix.scopes(teammates)
	if err != nil {
		return st, err
	}
	for _, name := range names {
		if err := ix.embedScopeBacklog(ctx, name, opts, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// embedScopeBacklog works through one scope's backlog, a step at a time,
// until a step finds nothing it can embed.
func (ix *Index) embedScopeBacklog(ctx context.Context, name string, opts BacklogOptions, st *BacklogStats) error {
	done, total := 0, -1
	for {
		items, left, err := ix.collectLocked(ctx, name, opts.Step)
		if err != nil || len(items) == 0 {
			st.Left += left
			return err
		}
		if total < 0 {
			total = left
		}
		n, err := ix.embedChunks(ctx, items, opts.Batch, func(k int) {
			ix.progress(Progress{Scope: name, Phase: "embed", Done: min(done+k, total), Total: total, Chunks: done + k})
		})
		if err != nil {
			return fmt.Errorf("embed the backlog of %s: %w", scopeLabel(name), err)
		}
		added, left, err := ix.addLocked(ctx, name, items)
		if err != nil {
			return err
		}
		if added == 0 {
			st.Left += left
			return nil // nothing still matched: the files moved on, a sync will see to them
		}
		st.Embedded += n
		st.Cached += added - min(n, added)
		done += added
	}
}

func (ix *Index) progress(p Progress) {
	if ix.opts.Progress != nil {
		ix.opts.Progress(p)
	}
}

// collectLocked reads, under the scope's shared lock, up to limit backlog
// chunks to embed, and how many chunks the backlog holds in all.
func (ix *Index) collectLocked(ctx context.Context, name string, limit int) ([]backlogChunk, int, error) {
	s, err := ix.lockScope(ctx, name, false, lockWait{})
	if err != nil {
		if unwritable(err) {
			return nil, 0, nil // nothing can be written: searches read it as it is
		}
		return nil, 0, err
	}
	defer s.close()
	if ok, _ := ix.loadManifest(s, false); !ok || ix.backlogOf(s.man) == 0 {
		return nil, 0, nil // no index to add to, or nothing to add: the next sync sees to it
	}
	old, err := readVectors(filepath.Join(s.dir, vectorsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil // a damaged vector file: the next sync rebuilds it
	}
	return ix.collectBacklog(s, old, limit), s.man.Unembedded, nil
}

// collectBacklog lists up to limit chunks of the locked scope s that have
// no vector in vs and need the embedder (chunks whose text already has a
// vector come along without counting), newest files first: recent
// memories are the likeliest hits. A file that changed since it was
// indexed, or cannot be read, is skipped: the next sync indexes it again.
func (ix *Index) collectBacklog(s *scope, vs *vectorSet, limit int) []backlogChunk {
	present := map[string]bool{}
	cache := map[textHash]int{}
	if vs != nil && vs.identity == ix.embedderID() {
		for _, id := range vs.ids {
			present[id] = true
		}
		cache = vs.byHash()
	}
	var out []backlogChunk
	need := 0
	for _, p := range filesNewestFirst(s.man) {
		f := s.man.Files[p]
		if !anyMissing(p, f.Chunks, present) {
			continue
		}
		chunks := ix.rechunk(s, p, f)
		for _, ch := range chunks {
			if present[ch.ID] {
				continue
			}
			text := ch.EmbedText()
			c := backlogChunk{id: ch.ID, path: p, fileHash: f.Hash, text: text, hash: hashText(text)}
			_, c.cached = cache[c.hash]
			out = append(out, c)
			if !c.cached {
				need++
			}
		}
		if need >= limit {
			break
		}
	}
	return out
}

// filesNewestFirst lists a manifest's files with chunks by date, newest
// first, undated ones (typed memories, WISDOM.md) before all.
func filesNewestFirst(m *manifest) []string {
	var ps []string
	for p, f := range m.Files {
		if f.Chunks > 0 && f.Err == "" {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		a, b := m.Files[ps[i]].Date, m.Files[ps[j]].Date
		if (a == "") != (b == "") {
			return a == ""
		}
		if a != b {
			return a > b
		}
		return ps[i] < ps[j]
	})
	return ps
}

func anyMissing(p string, n int, present map[string]bool) bool {
	for _, id := range chunkIDs(p, n) {
		if !present[id] {
			return true
		}
	}
	return false
}

// rechunk chunks an indexed file again, as the sync that indexed it did;
// nil when the file is gone, unreadable or no longer what was indexed.
func (ix *Index) rechunk(s *scope, p string, f *fileState) []Chunk {
	src, err := ix.ws.ReadFile(p, layout.MaxArchiveSize)
	if err != nil || hashBytes(src) != f.Hash {
		return nil
	}
	chunks, err := ChunkFile(indexedFile(s.name, p), src, ix.opts.Chunking)
	if err != nil || len(chunks) != f.Chunks {
		return nil
	}
	return chunks
}

// indexedFile classifies a file of a scope's index by its path, as
// scopeFiles found it.
func indexedFile(scope, p string) layout.File {
	if scope == "" {
		return layout.File{Kind: layout.KindCrossTeam, Path: p}
	}
	sub, fn := path.Split(strings.TrimPrefix(p, scope+"/"))
	if sub == "" {
		return layout.File{Teammate: scope, Kind: layout.KindWisdom, Path: p}
	}
	return layout.Classify(scope, strings.TrimSuffix(sub, "/"), fn)
}

// embedChunks embeds the items that are not cached, batch at a time,
// each text once, and reports how many are done after each batch. It
// returns how many texts went to the embedder.
func (ix *Index) embedChunks(ctx context.Context, items []backlogChunk, batch int, done func(int)) (int, error) {
	first := map[textHash]int{} // text → the item that carries its vector
	var todo []int
	for i, c := range items {
		if c.cached {
			continue
		}
		if _, ok := first[c.hash]; !ok {
			first[c.hash] = i
			todo = append(todo, i)
		}
	}
	for start := 0; start < len(todo); start += batch {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		end := min(start+batch, len(todo))
		texts := make([]string, 0, end-start)
		for _, i := range todo[start:end] {
			texts = append(texts, items[i].text)
		}
		vecs, err := ix.opts.Embedder.Embed(ctx, texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
		}
		if err != nil {
			return 0, err
		}
		for k, i := range todo[start:end] {
			items[i].vec = vecs[k]
		}
		done(end)
	}
	for i := range items {
		if j, ok := first[items[i].hash]; ok && items[i].vec == nil {
			items[i].vec = items[j].vec
		}
	}
	return len(todo), nil
}

// addLocked writes the items' vectors into a scope under its exclusive
// lock, and says how many were added and how many chunks are left.
func (ix *Index) addLocked(ctx context.Context, name string, items []backlogChunk) (added, left int, err error) {
	s, err := ix.lockScope(ctx, name, true, lockWait{})
	if err != nil {
		return 0, 0, err
	}
	defer s.close()
	if ok, _ := ix.loadManifest(s, false); !ok || ix.backlogOf(s.man) == 0 {
		return 0, 0, nil
	}
	if _, err := ix.checkStore(s); err != nil {
		return 0, 0, nil // damaged: the next sync rebuilds it, and nothing is added to it
	}
	old, err := readVectors(filepath.Join(s.dir, vectorsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, s.man.Unembedded, nil
	}
	added, err = ix.addVectors(s, old, items)
	return added, s.man.Unembedded, err
}

// addVectors adds to vs, the vectors of the locked scope s, the items
// whose chunks are still indexed from the same file content and have no
// vector yet, taking cached items' vectors from rows with their text, and
// writes the vectors and the manifest.
func (ix *Index) addVectors(s *scope, vs *vectorSet, items []backlogChunk) (int, error) {
	if vs == nil || vs.identity != ix.embedderID() {
		vs = newVectorSet(ix.embedderID(), 0)
	}
	present := map[string]bool{}
	for _, id := range vs.ids {
		present[id] = true
	}
	cache := vs.byHash()
	added := 0
	for _, c := range items {
		f := s.man.Files[c.path]
		if present[c.id] || f == nil || f.Hash != c.fileHash || !isChunkOf(c.id, c.path, f.Chunks) {
			continue
		}
		switch r, ok := cache[c.hash]; {
		case ok:
			vs.addRow(c.id, vs, r)
		case c.vec == nil:
			continue // cached when collected, gone since: a later pass embeds it
		default:
			if vs.dims == 0 {
				vs.dims = len(c.vec)
			}
			if len(c.vec) != vs.dims {
				return added, fmt.Errorf("embed the backlog of %s: %w: vector of %d dims, want %d", s.label(), errEmbed, len(c.vec), vs.dims)
			}
			vs.add(c.id, c.hash, c.vec)
			cache[c.hash] = vs.len() - 1
		}
		present[c.id] = true
		added++
	}
	if added == 0 {
		return 0, nil
	}
	return added, ix.writeBacklogStep(s, vs)
}

// isChunkOf reports whether id is one of the n chunks of the file p.
func isChunkOf(id, p string, n int) bool {
	rest, ok := strings.CutPrefix(id, p+"#")
	i, err := strconv.Atoi(rest)
	return ok && err == nil && i >= 0 && i < n
}

// writeBacklogStep replaces the scope's vectors and records them in the
// manifest, between creating and removing the SYNCING marker, as a sync
// writes.
func (ix *Index) writeBacklogStep(s *scope, vs *vectorSet) error {
	marker := filepath.Join(s.dir, syncingFile)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return fmt.Errorf("add vectors of %s: %w", s.label(), err)
	}
	if err := ix.putVectors(s, filepath.Join(s.dir, vectorsFile), vs); err != nil {
		if unwritable(err) {
			ix.keepOldIndex(s)
		}
		return err
	}
	live := 0
	for _, f := range s.man.Files {
		live += f.Chunks
	}
	s.man.Unembedded = live - vs.len()
	return ix.finishWrite(s, marker, "add vectors")
}

// drainInSync spends what a sync left of Options.SyncEmbed on the scope's
// backlog, under the lock the sync holds, unless the sync left chunks of
// its own to it. A failure leaves the backlog as it was, with a notice:
// the sync itself succeeded.
func (ix *Index) drainInSync(ctx context.Context, s *scope, st *SyncStats) {
	budget := s.budget.remaining(s.man.Unembedded)
	if ix.opts.SyncLeavesBacklog || st.deferred > 0 || budget <= 0 || ix.backlogOf(s.man) == 0 || s.bl != nil {
		return
	}
	old, err := readVectors(filepath.Join(s.dir, vectorsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
	items := trimBacklog(ix.collectBacklog(s, old, budget), budget)
	n, err := ix.embedChunks(ctx, items, ix.opts.EmbedBatch, func(int) {})
	s.budget.take(n)
	if err == nil {
		var added int
		added, err = ix.addVectors(s, old, items)
		st.Embedded += n
		st.Cached += added - min(n, added)
	}
	if err != nil && ctx.Err() == nil {
		ix.warnf("recall: embedding the backlog of %s: %v", s.label(), err)
	}
}

// trimBacklog cuts items after the budget-th one that needs the embedder.
func trimBacklog(items []backlogChunk, budget int) []backlogChunk {
	need := 0
	for i, c := range items {
		if !c.cached {
			if need == budget {
				return items[:i]
			}
			need++
		}
	}
	return items
}

// vectorless says which of the ranked chunks have no vector in their
// scope's index, for searches that use vectors. Only scopes with a backlog
// are looked into: their vector file's ID table is read once.
func (ix *Index) vectorless(scopes []*scope, hits []ranked, mode string) (map[string]bool, error) {
	if ix.opts.Embedder == nil || mode == ModeBM25 || len(hits) == 0 {
		return nil, nil
	}
	want := map[string]map[string]bool{} // scope → chunk IDs
	for _, x := range hits {
		name := scopeOfChunk(x.chunk.ID)
		if want[name] == nil {
			want[name] = map[string]bool{}
		}
		want[name][x.chunk.ID] = true
	}
	out := map[string]bool{}
	waiting := 0
	for _, s := range scopes {
		waiting += ix.backlogOf(s.man)
		ids := want[s.name]
		switch {
		case len(ids) == 0:
		case s.man == nil || s.man.Embedder != ix.embedderID() || s.vec == nil:
			for id := range ids {
				out[id] = true
			}
		case s.man.Unembedded > 0:
			err := guard("read vector IDs", func() error {
				s.vec.without(ids, out)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if len(out) > 0 && waiting > 0 {
		ix.backlogOnce.Do(func() {
			ix.warnf("recall: %d chunks wait for their vectors (tmem index embeds them, tmem serve does in the background); hits among them are ranked by BM25 alone", waiting)
		})
	}
	return out, nil
}

// embedBudget is what one sync or search may still embed (see
// Options.SyncEmbed), shared by the scopes it syncs; nil means no bound.
type embedBudget struct{ left int }

func (ix *Index) newBudget() *embedBudget {
	if ix.opts.SyncEmbed <= 0 {
		return nil
	}
	return &embedBudget{ix.opts.SyncEmbed}
}

// take spends n chunks if that many are left.
func (b *embedBudget) take(n int) bool {
	if b == nil {
		return true
	}
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// remaining is what is left, or all when there is no bound.
func (b *embedBudget) remaining(all int) int {
	if b == nil {
		return all
	}
	return b.left
}
