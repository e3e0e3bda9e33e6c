package layout

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CacheTeammates makes Teammates keep its answer between calls while the
// workspace folder and every teammate's SOUL.md keep their stat data, so
// that a long-lived process (or one that lists teammates several times)
// stats a few files instead of reading every SOUL.md again. now is the
// wall clock that file times are compared with: a change younger than two
// seconds is never trusted to its stat data. Call it before the workspace
// is shared between goroutines.
func (w *Workspace) CacheTeammates(now func() time.Time) {
	w.team = &teamCache{now: now}
}

// teamCache holds the last teammate list and the stat data it came from.
type teamCache struct {
	now func() time.Time

	mu    sync.Mutex
	ok    bool
	root  fileStamp
	souls []soulStamp // every folder looked at, teammate or not
	list  []Teammate
}

// fileStamp is a file's or a folder's FileStamp, or says it is missing
// or a link.
type fileStamp struct {
	FileStamp
	exists, link bool
}

// soulStamp is a folder's SOUL.md stamp at the time the list was made.
type soulStamp struct {
	rel string
	st  fileStamp
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fileStamp{}, nil
		}
		return fileStamp{}, err
	}
	return fileStamp{FileStampOf(fi), true, fi.Mode()&fs.ModeSymlink != 0}, nil
}

// settled says whether s can stand for what it stamps at time now: a
// missing file's can, a link's never does (its target can change under
// it).
func (s fileStamp) settled(now time.Time) bool {
	return !s.exists || !s.link && s.Settled(now)
}

// lookup returns the kept list when nothing it came from has changed.
func (c *teamCache) lookup(root string) ([]Teammate, bool) {
	c.mu.Lock()
	ok, rootSt, souls, list := c.ok, c.root, c.souls, c.list
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	if st, err := stampOf(root); err != nil || st != rootSt {
		return nil, false
	}
	for _, s := range souls {
		if st, err := stampOf(filepath.Join(root, s.rel)); err != nil || st != s.st {
			return nil, false
		}
	}
	return append([]Teammate(nil), list...), true
}

// keep records list as made from stamps taken before it was read; it
// keeps nothing when any of them is too recent to trust, or when a
// teammate folder is a link (its target can change under an unchanged
// workspace folder).
func (c *teamCache) keep(rootSt fileStamp, souls []soulStamp, links bool, list []Teammate) {
	now := c.now()
	trusted := !links && rootSt.exists && rootSt.settled(now)
	for _, s := range souls {
		trusted = trusted && s.st.settled(now)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ok = trusted
	if trusted {
		c.root, c.souls, c.list = rootSt, souls, append([]Teammate(nil), list...)
	}
}

// stampFolders takes the stamps of the workspace folder and of the
// SOUL.md of every entry that may be a teammate; links says whether one
// of them is a link.
func (w *Workspace) stampFolders(ents []fs.DirEntry) (souls []soulStamp, links bool, err error) {
	for _, e := range ents {
		if e.Name()[0] == '.' || !(e.IsDir() || e.Type()&fs.ModeSymlink != 0) {
			continue
		}
		links = links || e.Type()&fs.ModeSymlink != 0
		rel := e.Name() + "/SOUL.md"
		st, err := stampOf(filepath.Join(w.Root, rel))
		if err != nil {
			return nil, false, err
		}
		souls = append(souls, soulStamp{rel, st})
	}
	return souls, links, nil
}
