package filecache

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// RacyWindow is how old a file's last change must be for its stat data
// to stand for its content (layout.RacyWindow).
const RacyWindow = layout.RacyWindow

// Bounds of a cache; past either, it starts over.
const (
	maxEntries = 1 << 13
	maxBytes   = 32 << 20
)

// Stamp is the stat data compared (layout.FileStamp).
type Stamp = layout.FileStamp

// StampOf returns the stamp of fi.
func StampOf(fi fs.FileInfo) Stamp { return layout.FileStampOf(fi) }

// Cache keeps values of type T derived from workspace files, each under
// the stat data of its file. A nil *Cache keeps nothing: every Read reads
// the file. Safe for concurrent use; the values are shared, so callers
// must not change them.
type Cache[T any] struct {
	now func() time.Time

	mu    sync.Mutex
	m     map[string]entry[T]
	bytes int64
}

type entry[T any] struct {
	st  Stamp
	val T
}

// New returns an empty cache. now is the wall clock that file times are
// compared with (see RacyWindow): not a fixed or simulated clock, or
// recently changed files could be taken for settled ones.
func New[T any](now func() time.Time) *Cache[T] {
	return &Cache[T]{now: now, m: map[string]entry[T]{}}
}

// Read returns derive of the content of the workspace file rel, read
// with ws.ReadFile(rel, limit) (an error from it is returned as is), or
// the value derived before from the same content. An error from derive is
// returned and nothing is kept.
func (c *Cache[T]) Read(ws *layout.Workspace, rel string, limit int64, derive func(src []byte) (T, error)) (T, error) {
	var zero T
	if c == nil {
		src, err := ws.ReadFile(rel, limit)
		if err != nil {
			return zero, err
		}
		return derive(src)
	}
	// rel's stat data, following links: those of the file ReadFile reads,
	// which has refused a link that leads outside.
	abs := filepath.Join(ws.Root, filepath.FromSlash(rel))
	fi, statErr := os.Stat(abs)
	var st Stamp
	if statErr == nil {
		st = StampOf(fi)
		c.mu.Lock()
		e, ok := c.m[abs]
		c.mu.Unlock()
		if ok && e.st == st {
			return e.val, nil
		}
	}
	// Stat data taken before the read can only be older than the content
	// read: a change in between shows as other stat data next time.
	src, err := ws.ReadFile(rel, limit)
	if err == nil {
		var v T
		if v, err = derive(src); err == nil {
			if statErr == nil && c.settled(st) {
				c.keep(abs, st, v)
			} else {
				c.forget(abs)
			}
			return v, nil
		}
	}
	c.forget(abs)
	return zero, err
}

// settled says whether st can stand for the content: the platform
// reports inode change times, and the last change is older than
// RacyWindow.
func (c *Cache[T]) settled(st Stamp) bool {
	return c.now != nil && st.Settled(c.now())
}

func (c *Cache[T]) keep(rel string, st Stamp, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxEntries || c.bytes+st.Size > maxBytes {
		c.m, c.bytes = map[string]entry[T]{}, 0
	}
	if old, ok := c.m[rel]; ok {
		c.bytes -= old.st.Size
	}
	c.m[rel] = entry[T]{st, v}
	c.bytes += st.Size
}

func (c *Cache[T]) forget(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[rel]; ok {
		c.bytes -= old.st.Size
		delete(c.m, rel)
	}
}
