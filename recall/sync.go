package recall

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/tmemhq/tmem/layout"
)

// syncScope brings one locked scope up to date with its files, or
// rebuilds it, then spends what is left of Options.SyncEmbed on the
// scope's backlog. The scope's manifest is loaded on return.
func (ix *Index) syncScope(ctx context.Context, s *scope, rebuild bool, b *embedBudget) (SyncStats, error) {
	s.budget = b
	st, err := ix.syncFiles(ctx, s, rebuild)
	if err != nil {
		return st, err
	}
	ix.drainInSync(ctx, s, &st)
	st.Backlog = ix.backlogOf(s.man)
	return st, nil
}

// syncFiles brings one locked scope up to date with its files, or
// rebuilds it.
func (ix *Index) syncFiles(ctx context.Context, s *scope, rebuild bool) (SyncStats, error) {
	var st SyncStats
	rebuild, storeMoved := ix.trustIndex(s, rebuild)
	if rebuild {
		if err := ix.startRebuild(s, &st); err != nil {
			return st, err
		}
	}
	files, err := ix.scopeFiles(s.name, s.now, &st)
	if err != nil {
		return st, fmt.Errorf("sync index of %s: %w", s.label(), err)
	}
	revector := ix.opts.Embedder != nil && s.man.Embedder != ix.embedderID()
	d := ix.diffFiles(s, files, rebuild, revector, &st)
	if len(d.changed) == 0 && len(d.deleted) == 0 && !rebuild {
		return st, ix.saveBookkeeping(s, d.touched || storeMoved)
	}
	if err := ix.applySync(ctx, s, d.changed, d.deleted, revector, &st); err != nil {
		if errors.Is(err, errCorrupt) && !rebuild {
			ix.warnf("recall: rebuilding the index of %s (%v)", s.label(), err)
			s.closeBleve()
			return ix.syncFiles(ctx, s, true)
		}
		if unwritable(err) {
			ix.keepOldIndex(s)
		}
		return st, err
	}
	return st, nil
}

// trustIndex loads a scope's manifest and checks its index files against
// it, unless a rebuild is asked for anyway; rebuild says whether the
// index must be built afresh, storeMoved that its files checked out by
// content and their record is to be saved.
func (ix *Index) trustIndex(s *scope, rebuild bool) (mustRebuild, storeMoved bool) {
	if rebuild {
		return true, false
	}
	ok, why := ix.loadManifest(s, false)
	if ok {
		var err error
		if storeMoved, err = ix.checkStore(s); err != nil {
			ok, why = false, err.Error()
		}
	}
	if !ok && why != "" {
		ix.warnf("recall: rebuilding the index of %s (%s)", s.label(), why)
	}
	return !ok, storeMoved
}

// startRebuild empties a scope's folder (the vector file aside) and
// starts it on a fresh manifest.
func (ix *Index) startRebuild(s *scope, st *SyncStats) error {
	st.Rebuilt = []string{s.name}
	s.closeBleve()
	if err := clearScope(s.dir); err != nil {
		return fmt.Errorf("rebuild index of %s: %w", s.label(), err)
	}
	s.man = newManifest(ix.opts.Chunking.String(), "")
	s.checked = false
	return nil
}

// saveBookkeeping writes the manifest of a scope whose files did not
// change, when stat data moved (touched) or the vectors it records are
// stale because no embedder is set.
func (ix *Index) saveBookkeeping(s *scope, touched bool) error {
	vecsOutdated := ix.opts.Embedder == nil && s.man.Embedder != ""
	if !touched && !vecsOutdated {
		return nil
	}
	if vecsOutdated {
		s.man.Embedder, s.man.Unembedded = "", 0
	}
	return ix.writeManifest(s)
}

// syncDiff is what a sync found changed in a scope's files.
type syncDiff struct {
	changed []*candidate // to index (or, re-vectoring, to chunk for their vectors)
	deleted []string     // paths gone from the scope
	touched bool         // stat data of unchanged files moved: the manifest is to be written
}

// diffFiles compares a scope's files with its manifest, reading only those
// whose stat data moved (or may have: see racyAfter) and counting what it
// finds in st. Under revector every file's chunks are needed again, for
// their vectors.
func (ix *Index) diffFiles(s *scope, files []*candidate, rebuild, revector bool, st *SyncStats) syncDiff {
	// A file written in the same clock tick as the last sync's look at it
	// can change again without moving its size, mtime or ctime (git's
	// "racy clean" problem): files touched shortly before the manifest
	// was written are hashed again.
	racyAfter := int64(math.MaxInt64)
	if !rebuild {
		racyAfter = s.manMTime - racyWindow.Nanoseconds()
	}
	var d syncDiff
	keep := map[string]bool{}
	for _, c := range files {
		state := ix.checkFile(s, c, racyAfter, st)
		if state == fileGone {
			continue
		}
		keep[c.file.Path] = true
		d.touched = d.touched || state == fileTouched
		if state == fileNew || revector {
			d.changed = append(d.changed, c)
		}
	}
	for p := range s.man.Files {
		if !keep[p] {
			d.deleted = append(d.deleted, p)
		}
	}
	sort.Strings(d.deleted)
	st.Deleted = len(d.deleted)
	st.Files = len(keep)
	return d
}

// fileCheck is what a sync makes of one file.
type fileCheck int

const (
	fileSame    fileCheck = iota // as recorded, not read
	fileTouched                  // read, same content, new stat data recorded
	fileNew                      // added or changed: read, to index
	fileGone                     // gone, or unreadable: out of the index
)

// checkFile compares one file with the manifest's record, reading it
// only when its stat data moved, and counts it in st. A touched file's
// record takes its new stat data.
func (ix *Index) checkFile(s *scope, c *candidate, racyAfter int64, st *SyncStats) fileCheck {
	f := c.file
	old := s.man.Files[f.Path]
	if old.statClean(c, racyAfter) {
		ix.stillNotIndexed(old, st)
		st.Unchanged++
		return fileSame
	}
	var err error
	if c.src, err = ix.ws.ReadFile(f.Path, layout.MaxArchiveSize); err != nil {
		// Gone, or unreadable: either way out of the index, and one
		// unreadable file must not stop the others.
		if !errors.Is(err, fs.ErrNotExist) {
			ix.skipUnreadable("not indexed", f.Path, err, st)
		}
		return fileGone
	}
	c.hash = hashBytes(c.src)
	switch {
	case old != nil && old.Hash == c.hash:
		// Touched, not changed (or racy, and verified): remember the
		// stat data, and move the manifest's time past it.
		old.Size, old.MTime, old.CTime, old.Ino = f.Size, f.ModTime.UnixNano(), c.ctime, c.ino
		ix.stillNotIndexed(old, st)
		st.Unchanged++
		return fileTouched
	case old == nil:
		st.Added++
	default:
		st.Changed++
	}
	return fileNew
}

// stillNotIndexed names again a file left out of the index (it did not
// parse) whose content has not changed since.
func (ix *Index) stillNotIndexed(old *fileState, st *SyncStats) {
	if old.Err != "" {
		ix.notIndexed(st, old.Err)
	}
}

// applySync writes a sync's changes: bleve first, then vectors, then the
// manifest, all between creating and removing the SYNCING marker.
func (ix *Index) applySync(ctx context.Context, s *scope, changed []*candidate, deleted []string, revector bool, st *SyncStats) error {
	marker, err := ix.beginWrite(s, changed, st)
	if err != nil {
		return fmt.Errorf("sync index of %s: %w", s.label(), err)
	}
	pending, err := ix.indexChanges(ctx, s, changed, deleted, revector, st)
	if err != nil {
		return err
	}
	te := ix.tick()
	if err := ix.syncVectors(ctx, s, pending, st); err != nil {
		return err
	}
	st.EmbedTime = ix.tick().Sub(te)

	// bleve merges segments in the background while the vectors are
	// made; closed, it changes no file any more, and the record can be
	// taken.
	if err := s.closeBleve(); err != nil {
		return fmt.Errorf("sync index of %s: %w", s.label(), err)
	}
	return ix.finishWrite(s, marker, "sync index")
}

// beginWrite readies a scope's folder for a sync's writes: room for them
// checked, the SYNCING marker created (its path returned) and bleve open
// for writing.
func (ix *Index) beginWrite(s *scope, changed []*candidate, st *SyncStats) (marker string, err error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return "", err
	}
	var src int64
	for _, c := range changed {
		src += c.file.Size
	}
	if err := checkSyncSpace(s.dir, src); err != nil {
		return "", err
	}
	marker = filepath.Join(s.dir, syncingFile)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return "", err
	}
	if s.bl == nil {
		if s.bl, err = openWritable(s, len(st.Rebuilt) > 0); err != nil {
			return "", err
		}
	}
	return marker, nil
}

// openWritable opens a scope's bleve index for writing, creating it when
// the scope is new or being rebuilt. A scope that records files but has
// no bleve index is damaged.
func openWritable(s *scope, rebuilding bool) (bleve.Index, error) {
	bp := filepath.Join(s.dir, bleveDir)
	_, serr := os.Stat(bp)
	switch {
	case serr != nil && !rebuilding && len(s.man.Files) > 0:
		return nil, fmt.Errorf("bleve index missing: %w", errCorrupt)
	case serr != nil:
		return createBleve(bp)
	}
	bl, err := openBleve(bp, false)
	if err != nil && !outOfSpace(err) {
		err = fmt.Errorf("open bleve: %v: %w", err, errCorrupt)
	}
	return bl, err
}

// indexChanges takes the deleted files' chunks out of bleve and indexes
// the changed files' chunks, recording each file in the manifest; it
// returns the chunks whose vectors the embedding step must provide.
func (ix *Index) indexChanges(ctx context.Context, s *scope, changed []*candidate, deleted []string, revector bool, st *SyncStats) ([]pendingChunk, error) {
	bt := &batcher{s: s, b: s.bl.NewBatch()}
	for _, p := range deleted {
		bt.delete(p, s.man.Files[p])
		delete(s.man.Files, p)
	}
	var pending []pendingChunk
	var parse, index time.Duration
	for i, c := range changed {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tp := ix.tick()
		reindex := c.src != nil && (s.man.Files[c.file.Path] == nil || s.man.Files[c.file.Path].Hash != c.hash)
		chunks, perr, ok := ix.chunkCandidate(c, st)
		ti := ix.tick()
		parse += ti.Sub(tp)
		if !ok {
			continue
		}
		if reindex {
			if err := ix.indexFile(bt, c, chunks, perr, st); err != nil {
				return nil, err
			}
		}
		if perr == nil && ix.opts.Embedder != nil && (reindex || revector) {
			for _, ch := range chunks {
				pending = append(pending, pendingChunk{ch.ID, ch.EmbedText()})
			}
		}
		index += ix.tick().Sub(ti)
		ix.progress(syncProgress(s, "index", i+1, len(changed), st))
	}
	ti := ix.tick()
	err := bt.flush()
	st.batches += bt.applied
	if err != nil {
		return nil, err
	}
	st.ParseTime, st.IndexTime = parse, index+ix.tick().Sub(ti)
	return pending, nil
}

// chunkCandidate chunks a changed file, reading it first when the diff
// did not (a file re-chunked for its vectors only). ok is false when it
// cannot be read: its chunks stay in the index, without vectors; perr is
// a parse error, which leaves the file out of the index.
func (ix *Index) chunkCandidate(c *candidate, st *SyncStats) (chunks []Chunk, perr error, ok bool) {
	src := c.src
	if src == nil {
		var err error
		if src, err = ix.ws.ReadFile(c.file.Path, layout.MaxArchiveSize); err != nil {
			ix.skipUnreadable("not embedded", c.file.Path, err, st)
			return nil, nil, false
		}
	}
	chunks, c.problem, perr = chunkFile(c.file, src, ix.opts.Chunking)
	return chunks, perr, true
}

// indexFile replaces a file's chunks in bleve with chunks (none when it
// did not parse: perr says why, and the manifest records it) and its
// record in the manifest.
func (ix *Index) indexFile(bt *batcher, c *candidate, chunks []Chunk, perr error, st *SyncStats) error {
	m := bt.s.man
	bt.delete(c.file.Path, m.Files[c.file.Path])
	fs := &fileState{Size: c.file.Size, MTime: c.file.ModTime.UnixNano(), CTime: c.ctime, Ino: c.ino, Hash: c.hash, Kind: string(c.file.Kind)}
	if perr != nil {
		fs.Err = perr.Error()
		ix.notIndexed(st, perr.Error())
		chunks = nil
	} else {
		if c.problem != nil {
			ix.warnf("recall: %v; its frontmatter was read as key: value lines", c.problem)
		}
		fs.Chunks = len(chunks)
		if len(chunks) > 0 {
			fs.Date = chunks[0].Date
		}
	}
	m.Files[c.file.Path] = fs
	for _, ch := range chunks {
		in, err := bleveDoc(ch)
		if err != nil {
			return err
		}
		fs.Lens = fs.Lens.add(in.lens)
		fs.Has = fs.Has.add(in.lens.nonZero())
		if err := bt.b.Index(ch.ID, in.doc); err != nil {
			return fmt.Errorf("index %s: %w", ch.ID, err)
		}
		st.Chunks++
		if bt.add(in.terms) {
			if err := bt.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncProgress is how far a sync of s has got through a phase.
func syncProgress(s *scope, phase string, done, total int, st *SyncStats) Progress {
	return Progress{Scope: s.name, Phase: phase, Done: done, Total: total, Chunks: s.chunkBase + st.Chunks, Rebuilding: len(st.Rebuilt) > 0}
}

// batcher gathers a sync's bleve changes into batches.
type batcher struct {
	s       *scope
	b       *bleve.Batch
	terms   map[string]map[string]bool // the batch's distinct terms, by field
	nterms  int
	applied int // batches applied so far
}

// Bounds of a batch. bleve builds each batch into a segment in memory,
// then merges segments; its memory grows with a segment's distinct terms.
// Text of words written once (ids, hashes, random strings) is the worst
// case: 3.8 MB of it took 376 MB with batches bounded by chunks alone,
// 858 MB with batches four times as large. Real text reaches the chunk
// bound first.
const (
	maxBatchChunks = 1000
	maxBatchTerms  = 50_000
)

// add counts a chunk's terms into the batch and reports whether the
// batch is full.
func (bt *batcher) add(terms map[string][]string) bool {
	if bt.terms == nil {
		bt.terms = map[string]map[string]bool{}
	}
	for f, ts := range terms {
		seen := bt.terms[f]
		if seen == nil {
			seen = map[string]bool{}
			bt.terms[f] = seen
		}
		for _, t := range ts {
			if !seen[t] {
				seen[t] = true
				bt.nterms++
			}
		}
	}
	return bt.b.Size() >= maxBatchChunks || bt.nterms >= maxBatchTerms
}

// delete takes a recorded file's chunks (none when rec is nil) out.
func (bt *batcher) delete(path string, rec *fileState) {
	if rec == nil {
		return
	}
	for _, id := range chunkIDs(path, rec.Chunks) {
		bt.b.Delete(id)
	}
}

// flush applies the batch gathered so far.
func (bt *batcher) flush() error {
	if bt.b.Size() == 0 {
		return nil
	}
	if err := bt.s.bl.Batch(bt.b); err != nil {
		if outOfSpace(err) {
			return fmt.Errorf("index %s: %w", bt.s.label(), err) // not damage: rebuilding would only drop the index
		}
		return fmt.Errorf("index %s: %v: %w", bt.s.label(), err, errCorrupt)
	}
	bt.b.Reset()
	bt.terms, bt.nterms = nil, 0
	bt.applied++
	return nil
}

// syncVectors brings a scope's vectors up to date after its chunks were:
// it keeps the rows of chunks that did not change, takes cached vectors
// for known texts and embeds the rest. A failing model leaves the scope
// without vectors until a later sync, never without its BM25 index.
func (ix *Index) syncVectors(ctx context.Context, s *scope, pending []pendingChunk, st *SyncStats) error {
	m := s.man
	if ix.opts.Embedder == nil {
		m.Embedder, m.Unembedded = "", 0 // vectors, if any, are stale from now on
		return nil
	}
	vpath := filepath.Join(s.dir, vectorsFile)
	old, err := readVectors(vpath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		ix.warnf("recall: dropping unreadable vectors of %s (%v)", s.label(), err)
	}
	keep := ix.reusable(old)
	if keep == nil {
		old = nil
	}
	// Without old vectors, the chunks of files this sync did not
	// re-chunk have none: they join the backlog.
	switch err := ix.writeVectors(ctx, s, vpath, old, keep, pending, st); {
	case err == nil:
		m.Embedder = ix.embedderID()
	case ctx.Err() != nil || !errors.Is(err, errEmbed):
		return err
	default:
		// The model failed: keep the BM25 work, leave the old vectors
		// file as a cache, and let the next sync embed what is missing.
		ix.warnf("recall: %v; searching %s without vectors until a sync embeds them", err, s.label())
		m.Embedder, m.Unembedded = "", 0
	}
	return nil
}
