package recall

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/gofrs/flock"

	"github.com/tmemhq/tmem/internal/filecache"
	"github.com/tmemhq/tmem/layout"
)

// Options configure an Index. The zero value is usable: BM25 only, no
// clock (no daily is then held back as today's), no notices.
type Options struct {
	// Embedder turns chunks and queries into vectors; nil means BM25
	// only, which is a normal way to run.
	Embedder Embedder
	// Now is the clock that decides which daily is today's (and so left to
	// the context builder instead of the index) and what relative dates in
	// a query mean, unless the query brings its own (Query.Now).
	Now func() time.Time
	// Stopwatch, when set, times the phases of a sync (SyncStats
	// durations); it is separate from Now so a fixed --now stays fixed.
	Stopwatch func() time.Time
	// FileClock, when set, is the wall clock (never a fixed one) that
	// lets a long-lived Index keep the lines of the files its hits come
	// from between searches, each under the file's stat data; files
	// changed within the last two seconds are read on every search (see
	// internal/filecache). Without it every search reads them.
	FileClock func() time.Time
	// Trace, when set, is called as each phase of a Search starts, and the
	// function it returns as the phase ends: "index" (locking, syncing and
	// opening the indexes searched), "embed" (the query, loading a lazily
	// opened model included, or waiting for the query embedded ahead, while
	// BM25 ranks on another goroutine) and "search" (vectors, fusion and
	// reading the hits). A search that is retried runs them again. A query
	// embedded ahead (see PrepareQuery) is traced as "background embed", on
	// a goroutine of its own, while the other phases run: Trace must be
	// safe for concurrent use.
	Trace func(phase string) (end func())
	// Warn receives one-line notices (BM25-only mode, rebuilds, files
	// that do not parse); nil discards them.
	Warn io.Writer
	// Progress, when set, is called as a sync works through files.
	Progress func(Progress)
	// Chunking sizes chunks; the zero value means DefaultChunkOptions.
	Chunking ChunkOptions
	// Ranking tunes fusion and the passes after it; the zero value means
	// DefaultRanking.
	Ranking *Ranking
	// EmbedBatch is how many chunks go to the embedder at once; 0 means 32.
	EmbedBatch int
	// SyncEmbed bounds how many chunks a sync (a search's included) sends
	// to the embedder before it returns. A sync that finds more new text
	// than that indexes it for BM25 and embeds none of it: the chunks are
	// left without vectors, the backlog, which EmbedBacklog embeds without
	// holding up searches. A later sync with no big change of its own
	// embeds up to SyncEmbed chunks of the backlog. 0 means no bound: a
	// sync embeds everything, however long that takes. DefaultSyncEmbed is
	// what tmem uses.
	SyncEmbed int
	// SyncLeavesBacklog keeps syncs from working through the backlog,
	// for a process that runs EmbedBacklog beside its searches.
	SyncLeavesBacklog bool
	// LockTimeout bounds the wait for an index another process is
	// writing (or reading, when this one must write); 0 means
	// DefaultLockTimeout. After a second of waiting, Warn hears of it.
	LockTimeout time.Duration
}

// DefaultLockTimeout is how long a search or sync waits for an index that
// another tmem process holds before it fails with ErrLocked: longer than a
// rebuild of a large teammate's BM25 index takes, short enough that a
// stopped or hung process does not hold every agent's next task for ever.
const DefaultLockTimeout = time.Minute

// ErrLocked is wrapped by the error of a search or sync that gave up
// waiting for an index another tmem process holds.
var ErrLocked = errors.New("another tmem process holds the index")

// DefaultSyncEmbed is the SyncEmbed tmem runs with: a sync embeds at
// most this many chunks before it answers. It covers an ordinary change
// (a memory remembered or edited, yesterday's daily indexed on a new day:
// one to five chunks); a compaction or a git pull goes to the backlog. See
// README.md for what it costs.
const DefaultSyncEmbed = 8

// Progress reports how far a sync has got.
type Progress struct {
	Scope      string // teammate, or "" for the shared scope
	Phase      string // "index" or "embed"
	Done       int    // files (index) or chunks (embed) done in this phase
	Total      int
	Chunks     int // chunks indexed so far in this Sync or Rebuild call, over all scopes
	Rebuilding bool
}

// SyncStats says what a sync or rebuild did.
type SyncStats struct {
	Files     int      `json:"files"`     // files the index covers
	Unchanged int      `json:"unchanged"` // of which nothing was re-read
	Added     int      `json:"added"`
	Changed   int      `json:"changed"`
	Deleted   int      `json:"deleted"`
	Chunks    int      `json:"chunks"`   // chunks (re)indexed
	Embedded  int      `json:"embedded"` // chunks sent to the embedder
	Cached    int      `json:"cached"`   // chunk vectors reused from the cache
	Rebuilt   []string `json:"rebuilt"`  // scopes rebuilt from scratch ("" is shared)
	Errors    []string `json:"errors"`   // files left out of the index, and why (every sync names them all)
	// Backlog is how many indexed chunks were left without vectors (see
	// Options.SyncEmbed); searches mark their hits.
	Backlog int `json:"backlog"`
	// deferred is how many chunks this sync left to the backlog.
	deferred int
	// batches is how many bleve batches this sync applied.
	batches int
	// Phase timings, measured only with Options.Stopwatch.
	ParseTime time.Duration `json:"parse_ns"`
	IndexTime time.Duration `json:"index_ns"`
	EmbedTime time.Duration `json:"embed_ns"`
}

func (s *SyncStats) add(o SyncStats) {
	s.Files += o.Files
	s.Unchanged += o.Unchanged
	s.Added += o.Added
	s.Changed += o.Changed
	s.Deleted += o.Deleted
	s.Chunks += o.Chunks
	s.Embedded += o.Embedded
	s.Cached += o.Cached
	s.Rebuilt = append(s.Rebuilt, o.Rebuilt...)
	s.Errors = append(s.Errors, o.Errors...)
	s.Backlog += o.Backlog
	s.deferred += o.deferred
	s.batches += o.batches
	s.ParseTime += o.ParseTime
	s.IndexTime += o.IndexTime
	s.EmbedTime += o.EmbedTime
}

// Index is the recall index of a workspace: one bleve index plus vectors
// per teammate under <teammate>/.index/, and one for the shared scope
// (CROSS-TEAM.md) under .index/. Every operation takes a per-scope file
// lock (exclusive to write, shared to read), so processes can share it.
//
// One Index may be shared by goroutines: Search, Sync, Rebuild and
// EmbedBacklog may run at once (the scope locks order them as they order
// processes), and Close must come after the last of them returned.
// Options.Warn and Options.Progress are then called from several
// goroutines, and Options.Embedder must be safe for concurrent use.
type Index struct {
	ws   *layout.Workspace
	opts Options
	rank Ranking
	// bm25Once, roOnce and backlogOnce give their notices once per Index.
	bm25Once    sync.Once
	roOnce      sync.Once
	backlogOnce sync.Once

	// vectors and readers keep vector files mapped and bleve snapshots
	// open between searches; texts the lines of the files hits come from
	// (nil without Options.FileClock).
	vectors warmCache[*vecView]
	readers warmCache[*snapshot]
	heads   warmCache[manifestHead] // manifest headers read by searches that do not sync
	pre     prefetch                // queries embedded ahead of their search
	texts   *filecache.Cache[*fileText]

	mu   sync.Mutex
	seen verifiedFiles // bleve files checked by content
}

// Open prepares the index of ws. It touches no files: the first Sync or
// Search builds what is missing.
func Open(ws *layout.Workspace, opts Options) (*Index, error) {
	if ws == nil {
		return nil, errors.New("open recall index: no workspace")
	}
	if opts.EmbedBatch <= 0 {
		opts.EmbedBatch = 32
	}
	opts.Chunking = opts.Chunking.withDefaults()
	ix := &Index{ws: ws, opts: opts, rank: DefaultRanking}
	if opts.FileClock != nil {
		ix.texts = filecache.New[*fileText](opts.FileClock)
	}
	if opts.Ranking != nil {
		ix.rank = opts.Ranking.withDefaults()
	}
	return ix, nil
}

// HasVectors reports whether searches use vectors; false means BM25 only.
func (ix *Index) HasVectors() bool { return ix.opts.Embedder != nil }

// Close releases the vector files and index snapshots the index keeps
// open between searches. Locks are held only during operations, so there
// is nothing to flush.
func (ix *Index) Close() error {
	ix.pre.wg.Wait()
	ix.vectors.close()
	ix.readers.close()
	ix.heads.close()
	return nil
}

// warnf writes a one-line notice; errors from libraries can span lines
// (bleve quotes a whole damaged mapping), so only the first is kept.
func (ix *Index) warnf(format string, args ...interface{}) {
	if ix.opts.Warn == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] + " …"
	}
	fmt.Fprintf(ix.opts.Warn, "tmem: %s\n", msg)
}

// noteBM25Only says once per Index that there are no vectors.
func (ix *Index) noteBM25Only() {
	if ix.opts.Embedder == nil {
		ix.bm25Once.Do(func() { ix.warnf("recall: no embedding model, searching with BM25 only") })
	}
}

func (ix *Index) now() time.Time {
	if ix.opts.Now == nil {
		return time.Time{}
	}
	return ix.opts.Now()
}

func (ix *Index) tick() time.Time {
	if ix.opts.Stopwatch == nil {
		return time.Time{}
	}
	return ix.opts.Stopwatch()
}

// trace marks the start of a phase of a search and returns what marks its
// end (see Options.Trace).
func (ix *Index) trace(phase string) (end func()) {
	if ix.opts.Trace == nil {
		return func() {}
	}
	return ix.opts.Trace(phase)
}

func (ix *Index) embedderID() string {
	if ix.opts.Embedder == nil {
		return ""
	}
	return ix.opts.Embedder.Identity()
}

// Sync reconciles the named teammates' indexes (and the shared scope)
// with the files. An empty list means every teammate.
func (ix *Index) Sync(ctx context.Context, teammates []string) (SyncStats, error) {
	return ix.syncAll(ctx, teammates, false)
}

// Rebuild throws the named indexes away and builds them again from the
// files; an empty list means every teammate and the shared scope.
func (ix *Index) Rebuild(ctx context.Context, teammates []string) (SyncStats, error) {
	return ix.syncAll(ctx, teammates, true)
}

func (ix *Index) syncAll(ctx context.Context, teammates []string, rebuild bool) (SyncStats, error) {
	total := SyncStats{Rebuilt: []string{}, Errors: []string{}}
	names, err := ix.scopes(teammates)
	if err != nil {
		return total, err
	}
	ix.noteBM25Only()
	b := ix.newBudget()
	for _, name := range names {
		s, err := ix.lockScope(ctx, name, true, lockWait{})
		if err != nil {
			return total, err
		}
		s.chunkBase = total.Chunks
		st, err := ix.syncScope(ctx, s, rebuild, b)
		s.close()
		total.add(st)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// scopes checks the teammate names and adds the shared scope "" in
// front; an empty list means every teammate.
func (ix *Index) scopes(teammates []string) ([]string, error) {
	all, err := ix.ws.Teammates()
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	var names []string
	for _, t := range all {
		known[t.Name] = true
		names = append(names, t.Name)
	}
	if len(teammates) == 0 {
		teammates = names
	}
	seen := map[string]bool{"": true}
	out := []string{""}
	for _, t := range teammates {
		if seen[t] {
			continue
		}
		if !known[t] {
			if err := layout.ValidateName(t); err != nil {
				return nil, err
			}
			return nil, &layout.UnknownTeammateError{Name: t, Known: names}
		}
		seen[t] = true
		out = append(out, t)
	}
	sort.Strings(out) // a fixed lock order: no two processes deadlock
	return out, nil
}

// scope is one locked index folder.
type scope struct {
	name string
	dir  string
	// now is the clock a sync of the scope decides today's daily by.
	now time.Time
	man *manifest
	bl  bleve.Index // open for writing during a sync
	// rd is the snapshot of the bleve index a search reads; rdDone lets
	// go of it.
	rd     *snapshot
	rdDone func()
	vec    *vecView
	// weeklies are the indexed weekly summaries, for the recency pass.
	weeklies []weeklyRef
	// manMTime is the loaded manifest's mtime (ns), which says how far
	// stat data can be trusted (see syncScope and checkStore).
	manMTime int64
	// checked says the bleve files and vectors match s.man.Store.
	checked bool
	unlock  func() // lets go of the scope's lock
	// unlocked scopes are read without their lock (see readonly.go); seen
	// is their index as it was when the read began.
	unlocked bool
	seen     stamp
	// vecDone lets go of the mapped vector file vec reads from.
	vecDone func()
	// chunkBase is what earlier scopes of the running sync indexed, for
	// Progress.
	chunkBase int
	// budget is what the running sync may still embed.
	budget *embedBudget
}

func (s *scope) label() string {
	if s.name == "" {
		return "shared scope"
	}
	return s.name
}

// closeBleve closes bleve; after a write, the error says whether
// everything reached the disk.
func (s *scope) closeBleve() error {
	if s.rdDone != nil {
		s.rdDone()
	}
	s.rd, s.rdDone = nil, nil
	if s.bl == nil {
		return nil
	}
	bl := s.bl
	s.bl = nil
	return guard("close bleve", bl.Close)
}

func (s *scope) close() {
	s.closeBleve()
	s.setVec(nil, nil)
	if s.unlock != nil {
		s.unlock()
		s.unlock = nil // a gate is let go of once
	}
}

// setVec makes v the scope's vectors, letting go of the ones before;
// done, when set, is called once v is no longer read.
func (s *scope) setVec(v *vecView, done func()) {
	if s.vecDone != nil {
		s.vecDone()
	}
	s.vec, s.vecDone = v, done
}

// lockFile lives outside the index folder, so a rebuild can remove the
// folder while holding it.
func (ix *Index) lockFile(name string) (*flock.Flock, error) {
	if name == "" {
		name = ".shared"
	}
	fl, err := layout.LockAt(ix.ws, ".tmp/locks/index-"+name+".lock")
	if err != nil {
		return nil, fmt.Errorf("lock index: %w", err)
	}
	return fl, nil
}

// scopeDir returns a scope's index folder, making sure it stays inside
// the workspace: no folder on its way may be a link that leads outside,
// and the folder itself, if it is a link, is removed (only the link) so
// that bleve never writes through it.
func (ix *Index) scopeDir(name string) (string, error) {
	rel := scopeRel(name)
	fi, err := ix.ws.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("index of %s: %w", scopeLabel(name), err)
	case fi.Mode()&fs.ModeSymlink != 0:
		if err := ix.ws.Remove(rel); err != nil {
			return "", fmt.Errorf("index of %s is a link: %w", scopeLabel(name), err)
		}
	}
	return ix.ws.IndexDir(name), nil
}

// lockScope locks a scope, shared or for writing, waiting as lw says for
// another call or process to let go of it.
func (ix *Index) lockScope(ctx context.Context, name string, write bool, lw lockWait) (*scope, error) {
	fl, err := ix.lockFile(name)
	if err != nil {
		return nil, err
	}
	unlock, err := ix.takeLock(ctx, fl, name, write, lw)
	if err != nil {
		return nil, fmt.Errorf("lock index of %s: %w", scopeLabel(name), err)
	}
	dir, err := ix.scopeDir(name)
	if err != nil {
		unlock()
		return nil, err
	}
	if write {
		ix.readers.drop(dir) // its files may be replaced from now on
	}
	return &scope{name: name, dir: dir, now: ix.now(), unlock: unlock}, nil
}

// lockWait is how long the locks of one search may take in all: until by,
// a wait of of (what a message names); the zero lockWait waits the lock
// timeout for each lock.
type lockWait struct {
	by time.Time
	of time.Duration
}

// waitFor is a wait of d for the locks taken from now on; 0: the lock
// timeout for each.
func waitFor(d time.Duration) lockWait {
	if d <= 0 {
		return lockWait{}
	}
	return lockWait{by: time.Now().Add(d), of: d}
}

// takeLock takes a scope's lock, shared or for writing, waiting as lw says
// for another call or process to let go of it, and saying so after a
// second; the func returned lets go of it.
func (ix *Index) takeLock(ctx context.Context, fl *flock.Flock, name string, write bool, lw lockWait) (func(), error) {
	timeout, total := ix.opts.LockTimeout, lw.of
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	if !lw.by.IsZero() {
		timeout = max(time.Until(lw.by), time.Nanosecond) // what is left, tried once at least
	}
	if total <= 0 {
		total = timeout
	}
	notice := func(holder string) func() {
		return func() {
			ix.warnf("recall: waiting for the index of %s, which %s holds (at most %s)", scopeLabel(name), holder, total)
		}
	}
	unlock, err := layout.TakeLock(ctx, fl, !write, timeout, min(time.Second, timeout/2), notice("another call of this process"), notice("another tmem process"))
	if errors.Is(err, layout.ErrLocked) {
		return nil, fmt.Errorf("%w: gave up %s (a stopped or hung tmem index, compact or serve?)", ErrLocked, layout.Waited(total))
	}
	return unlock, err
}

// scopeRel is a scope's index folder, workspace-relative.
func scopeRel(name string) string {
	if name == "" {
		return ".index"
	}
	return name + "/.index"
}

func scopeLabel(name string) string {
	if name == "" {
		return "shared scope"
	}
	return name
}

// racyWindow is how close to a sync a file change must be for stat data
// alone not to be trusted: coarse file-system clocks tick in milliseconds
// to seconds. It is the window every stat-keyed cache uses.
const racyWindow = filecache.RacyWindow

// The files in an index folder.
const (
	manifestFile = "manifest.bin"
	vectorsFile  = "vectors.bin"
	bleveDir     = "bleve"
	// syncingFile exists while a sync writes; finding it means a sync
	// died half way, and the index is rebuilt.
	syncingFile = "SYNCING"
)

// loadManifest reads the scope's manifest and says whether it can be
// trusted as is. A search that does not sync reads only its header.
func (ix *Index) loadManifest(s *scope, headerOnly bool) (ok bool, why string) {
	if _, err := os.Stat(filepath.Join(s.dir, syncingFile)); err == nil {
		return false, "an earlier sync did not finish"
	}
	var m *manifest
	var err error
	if headerOnly {
		m, err = ix.readHead(s)
	} else {
		var b []byte
		var fi fs.FileInfo
		if b, fi, err = readRegular(filepath.Join(s.dir, manifestFile)); err == nil {
			s.manMTime = fi.ModTime().UnixNano()
			m, s.weeklies, err = decodeManifest(b, false)
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, ""
	case err != nil:
		return false, err.Error()
	case ix.unusable(m) != "":
		return false, ix.unusable(m)
	}
	s.man = m
	return true, ""
}

// unusable says why this index cannot search by manifest m (another
// schema, other chunker settings), "" when it can.
func (ix *Index) unusable(m *manifest) string {
	switch {
	case m.Schema != SchemaVersion:
		return fmt.Sprintf("schema %d, want %d", m.Schema, SchemaVersion)
	case m.Chunker != ix.opts.Chunking.String():
		return "chunker settings changed"
	}
	return ""
}

// manifestHead is a manifest's header as decoded: a header-only manifest
// and the weekly summaries it lists.
type manifestHead struct {
	m        manifest
	weeklies []weeklyRef
}

// readHead reads the header of s's manifest, from ix.heads when the file
// still has the stat data it had when it was decoded there (a manifest is
// only ever replaced whole, by a rename). It sets s.weeklies and
// s.manMTime, and returns a copy the caller may change.
func (ix *Index) readHead(s *scope) (*manifest, error) {
	path := filepath.Join(s.dir, manifestFile)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	h, done, err := ix.heads.get(path, stampOf(fi), func() (manifestHead, func(), error) {
		b, _, err := readRegular(path)
		if err != nil {
			return manifestHead{}, nil, err
		}
		m, weeklies, err := decodeManifest(b, true)
		if err != nil {
			return manifestHead{}, nil, err
		}
		return manifestHead{*m, weeklies}, func() {}, nil
	})
	if err != nil {
		return nil, err
	}
	done()
	m := h.m
	m.Store = slices.Clone(h.m.Store)
	m.Stats = fieldStats{slices.Clone(h.m.Stats.Lens), slices.Clone(h.m.Stats.Has)}
	s.manMTime, s.weeklies = fi.ModTime().UnixNano(), h.weeklies
	return &m, nil
}

// candidate is a file the index should cover.
type candidate struct {
	file  layout.File
	ctime int64
	ino   uint64
	src   []byte // read only when stat data moved
	hash  string
	// problem is why its frontmatter was read as "key: value" lines (see
	// layout.ParseLenient), once chunked; nil when it parsed strictly.
	problem error
}

// statClean reports whether a file's stat data is what the manifest
// recorded (f, nil when the file is new), with times older than racyAfter,
// so that its content need not be read again.
func (f *fileState) statClean(c *candidate, racyAfter int64) bool {
	mtime := c.file.ModTime.UnixNano()
	return f != nil && f.Size == c.file.Size && f.MTime == mtime && f.CTime == c.ctime && f.Ino == c.ino &&
		f.MTime < racyAfter && f.CTime < racyAfter
}

// scopeFiles lists, with one stat per file, the files a scope indexes: for
// a teammate its typed memories, summaries, WISDOM.md and the dailies but
// today's at now; for the shared scope CROSS-TEAM.md. Today's log is the
// one the context builder always shows whole, and the one tmem log
// appends to: indexing it would make the search after every entry logged
// pay a sync. The other dailies of the recent window are indexed, and
// the context builder leaves out of its query those of their entries
// that its stack shows (Query.Shown), so that an entry its budget had no
// room for is still recalled.
func (ix *Index) scopeFiles(name string, now time.Time, st *SyncStats) ([]*candidate, error) {
	if name == "" {
		return ix.statFiles([]layout.File{{Kind: layout.KindCrossTeam, Path: "CROSS-TEAM.md"}}, st), nil
	}
	if err := layout.ValidateName(name); err != nil {
		return nil, err
	}
	all := ix.statFiles([]layout.File{{Teammate: name, Kind: layout.KindWisdom, Path: name + "/WISDOM.md"}}, st)
	err := ix.ws.ListMemoryDirs(name, func(sub string, ents []fs.DirEntry) {
		all = append(all, ix.dirCandidates(name, sub, ents, st)...)
	}, func(err error) { ix.notIndexed(st, err.Error()) })
	if err != nil {
		return nil, err
	}
	// A daily still on disk is not fully compacted even when its week has
	// a weekly summary: compaction keeps a daily that changed while it ran,
	// and a back-filled day waits for the next run. Indexing it costs at
	// most a passing duplicate of the weekly; leaving it out would make it
	// unreachable.
	out := all[:0]
	for _, c := range all {
		f := c.file
		if f.Kind == layout.KindDaily && !f.Date.IsZero() && !now.IsZero() &&
			layout.InRecentWindow(f.Date, now, 1) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// dirCandidates returns the Markdown files among the entries of the
// teammate's folder sub (one of layout.MemoryDirs), with one lstat each.
func (ix *Index) dirCandidates(name, sub string, ents []fs.DirEntry, st *SyncStats) []*candidate {
	var out []*candidate
	dir := name + "/" + sub
	for _, e := range ents {
		fn := e.Name()
		if e.IsDir() || len(fn) < 4 || fn[0] == '.' || filepath.Ext(fn) != ".md" {
			continue
		}
		fi, err := ix.ws.EntryCheck(dir, e)
		if err != nil {
			ix.notIndexed(st, err.Error())
			continue
		}
		f := layout.Classify(name, sub, fn)
		f.Size, f.ModTime = fi.Size(), fi.ModTime()
		c := &candidate{file: f}
		c.ctime, c.ino = layout.StatID(fi)
		out = append(out, c)
	}
	return out
}

// statFiles stats fixed files, leaving out those that do not exist (or
// are not regular files inside the workspace).
func (ix *Index) statFiles(files []layout.File, st *SyncStats) []*candidate {
	var out []*candidate
	for _, f := range files {
		fi, err := ix.ws.Stat(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // not written yet: a normal state
		case err != nil:
			ix.notIndexed(st, err.Error())
			continue
		case !fi.Mode().IsRegular():
			ix.notIndexed(st, fmt.Sprintf("%s: %v", f.Path, layout.ErrNotRegular))
			continue
		}
		f.Size, f.ModTime = fi.Size(), fi.ModTime()
		c := &candidate{file: f}
		c.ctime, c.ino = layout.StatID(fi)
		out = append(out, c)
	}
	return out
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// finishWrite ends a write to a scope: the index files are recorded, the
// manifest written, and then the SYNCING marker removed.
func (ix *Index) finishWrite(s *scope, marker, what string) error {
	recs, err := recordStore(s.dir, s.man.Store)
	if err != nil {
		return fmt.Errorf("%s of %s: %w", what, s.label(), err)
	}
	s.man.Store, s.checked = recs, true
	if err := ix.writeManifest(s); err != nil {
		return err
	}
	if err := os.Remove(marker); err != nil {
		return fmt.Errorf("%s of %s: %w", what, s.label(), err)
	}
	return nil
}

// checkStore checks the scope's bleve files and vectors against the
// manifest's record; rewrite says the record was brought up to date and
// is worth saving.
//
// Only the manifest's own mtime bounds the racy window here, not
// racyWindow as for memory files: a sync records these files after its
// last write to them and writes the manifest after that, all under the
// exclusive lock, so a file last written in an earlier clock tick than
// the manifest cannot change again without moving its ctime. Stretching
// the window would make every file a sync wrote (a merged segment, the
// whole vector file) be read in every process until a later sync.
func (ix *Index) checkStore(s *scope) (rewrite bool, err error) {
	rewrite, err = verifyStore(s.dir, s.man.Store, s.manMTime, &ix.seen)
	s.checked = err == nil
	return rewrite, err
}

// clearScope empties a scope's folder for a rebuild. It keeps
// vectors.bin when the file is whole: its vectors are keyed by the hash
// of their text, so the rebuild (or a later sync with an embedder) takes
// them from there instead of embedding every chunk again.
func clearScope(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil || !fi.IsDir():
		return os.RemoveAll(dir) // a file or link in the folder's place goes, never what it points to
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.Name() == vectorsFile && vectorsWhole(p) {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}

// vectorsWhole reports whether a vector file is a regular file whose
// checksum and header hold.
func vectorsWhole(path string) bool {
	b, _, err := readRegular(path)
	if err != nil {
		return false
	}
	_, err = parseVectorHeader(b)
	return err == nil
}

// skipUnreadable reports a file the sync could not read: what is left
// out ("not indexed" or "not embedded") and why.
func (ix *Index) skipUnreadable(what, rel string, err error, st *SyncStats) {
	msg := layout.ReadError(rel, err).Error()
	st.Errors = append(st.Errors, msg)
	ix.warnf("recall: %s: %s", what, msg)
}

// notIndexed records a file the sync leaves out, and why, in st.Errors
// and as a notice: on every sync until it is fixed, so that the stats of
// any sync name every file that recall cannot find.
func (ix *Index) notIndexed(st *SyncStats, msg string) {
	st.Errors = append(st.Errors, msg)
	ix.warnf("recall: not indexed: %s", msg)
}

// writeManifest atomically replaces the scope's manifest.
func (ix *Index) writeManifest(s *scope) error {
	b, err := s.man.encode()
	if err != nil {
		return err
	}
	s.weeklies = s.man.weeklies()
	if err := ix.ws.WriteFile(ix.ws.Rel(filepath.Join(s.dir, manifestFile)), b); err != nil {
		return fmt.Errorf("sync index of %s: %w", s.label(), err)
	}
	return nil
}

// errEmbed marks failures of the embedder, which a sync survives.
var errEmbed = errors.New("embedder failed")

// pendingChunk is a chunk that needs a vector.
type pendingChunk struct{ id, text string }

// reusable says which vectors of old, a scope's stored vectors, this
// embedder can take as its own: all when they are its own, those of texts
// keep accepts when they come from an embedder it succeeds (see Successor),
// none (nil) otherwise.
func (ix *Index) reusable(old *vectorSet) (keep func(text string) bool) {
	switch {
	case old == nil:
		return nil
	case old.identity == ix.embedderID():
		return func(string) bool { return true }
	}
	succ, ok := ix.opts.Embedder.(Successor)
	if !ok {
		return nil
	}
	differs, ok := succ.Succeeds(old.identity)
	if !ok {
		return nil
	}
	return func(text string) bool { return !differs(text) }
}

// writeVectors builds the scope's new vector file: rows of live chunks
// that were not re-chunked are kept, pending chunks get a cached vector
// when their text is known, else a fresh embedding. Of old, only vectors
// of texts keep accepts are taken; when old is another embedder's, rows
// of chunks not re-chunked (whose text is not known) are not kept.
func (ix *Index) writeVectors(ctx context.Context, s *scope, path string, old *vectorSet, keep func(text string) bool, pending []pendingChunk, st *SyncStats) error {
	live := liveChunks(s.man)
	vb := &vectorBuild{nv: newVectorSet(ix.embedderID(), 0), cache: map[textHash]int{}}
	vb.keepRows(old, live, pending)
	todo := vb.fromCache(old, keep, pending, st)
	if !s.budget.take(len(todo)) {
		// A big change: BM25 answers now, the vectors come later.
		st.deferred += len(todo)
		todo = nil
	}
	for start := 0; start < len(todo); start += ix.opts.EmbedBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(start+ix.opts.EmbedBatch, len(todo))
		if err := ix.embedBatch(ctx, s, vb, todo[start:end], st); err != nil {
			return err
		}
		ix.progress(syncProgress(s, "embed", end, len(todo), st))
	}
	s.man.Unembedded = len(live) - vb.nv.len()
	return ix.putVectors(s, path, vb.nv)
}

// liveChunks is the set of chunk IDs a manifest records.
func liveChunks(m *manifest) map[string]bool {
	live := map[string]bool{}
	for p, f := range m.Files {
		for _, id := range chunkIDs(p, f.Chunks) {
			live[id] = true
		}
	}
	return live
}

// vectorBuild is a scope's new vector set as a sync makes it, with the
// rows it holds by the hash of their text.
type vectorBuild struct {
	nv    *vectorSet
	cache map[textHash]int // text hash -> row of nv
}

// add appends row r of from as chunk id's vector, remembering it by its
// text's hash.
func (vb *vectorBuild) add(id string, from *vectorSet, r int, h textHash) {
	vb.nv.addRow(id, from, r)
	vb.cache[h] = vb.nv.len() - 1
}

// keepRows takes over the rows of old, when it is this embedder's, of
// chunks still live and not about to be replaced by pending.
func (vb *vectorBuild) keepRows(old *vectorSet, live map[string]bool, pending []pendingChunk) {
	if old == nil {
		return
	}
	vb.nv.dims = old.dims
	if old.identity != vb.nv.identity {
		return
	}
	repl := map[string]bool{}
	for _, p := range pending {
		repl[p.id] = true
	}
	for i, id := range old.ids {
		if live[id] && !repl[id] {
			vb.add(id, old, i, old.hashes[i])
		}
	}
}

// todoChunk is a pending chunk with no vector yet, and its text's hash.
type todoChunk struct {
	pendingChunk
	hash textHash
}

// fromCache gives each pending chunk whose text already has a vector (in
// the new set, or in old when keep accepts it: vectors of chunks that
// left or moved stay usable as a cache) that vector, and returns the rest.
func (vb *vectorBuild) fromCache(old *vectorSet, keep func(text string) bool, pending []pendingChunk, st *SyncStats) []todoChunk {
	oldCache := map[textHash]int{}
	if old != nil {
		oldCache = old.byHash()
	}
	var todo []todoChunk
	for _, p := range pending {
		h := hashText(p.text)
		if r, ok := vb.cache[h]; ok {
			vb.nv.addRow(p.id, vb.nv, r)
			st.Cached++
			continue
		}
		if r, ok := oldCache[h]; ok && keep(p.text) {
			vb.add(p.id, old, r, h)
			st.Cached++
			continue
		}
		todo = append(todo, todoChunk{p, h})
	}
	return todo
}

// embedBatch embeds the distinct new texts of a batch of chunks and adds
// every chunk of it to the set, a repeated text taking the first one's
// vector.
func (ix *Index) embedBatch(ctx context.Context, s *scope, vb *vectorBuild, batch []todoChunk, st *SyncStats) error {
	var texts []string
	var sent []int // indexes into batch of the chunks whose text is sent
	seen := map[textHash]bool{}
	for i, c := range batch {
		if _, ok := vb.cache[c.hash]; ok || seen[c.hash] {
			continue
		}
		seen[c.hash] = true
		texts = append(texts, c.text)
		sent = append(sent, i)
	}
	if len(texts) > 0 {
		vecs, err := ix.opts.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed chunks of %s: %w: %w", s.label(), errEmbed, err)
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("embed chunks of %s: %w: %d vectors for %d texts", s.label(), errEmbed, len(vecs), len(texts))
		}
		for j, i := range sent {
			if vb.nv.dims == 0 {
				vb.nv.dims = len(vecs[j])
			}
			if len(vecs[j]) != vb.nv.dims {
				return fmt.Errorf("embed chunks of %s: %w: vector of %d dims, want %d", s.label(), errEmbed, len(vecs[j]), vb.nv.dims)
			}
			vb.nv.add(batch[i].id, batch[i].hash, vecs[j])
			vb.cache[batch[i].hash] = vb.nv.len() - 1
			st.Embedded++
		}
	}
	for i, c := range batch {
		if slices.Contains(sent, i) {
			continue
		}
		if r, ok := vb.cache[c.hash]; ok {
			vb.nv.addRow(c.id, vb.nv, r)
			st.Cached++
		}
	}
	return nil
}

// putVectors writes a scope's vector file and makes it the one searched.
func (ix *Index) putVectors(s *scope, path string, nv *vectorSet) error {
	b := nv.encode()
	if err := ix.ws.WriteFile(ix.ws.Rel(path), b); err != nil {
		return fmt.Errorf("write vectors of %s: %w", s.label(), err)
	}
	v, err := viewVectors(b)
	if err != nil {
		return err
	}
	s.setVec(v, nil)
	return nil
}
