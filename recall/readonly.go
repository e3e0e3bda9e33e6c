package recall

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A workspace tmem cannot write to (a read-only checkout or mount, another
// user's folder) can still be searched: its index is read as it is. Where
// the lock file cannot even be created, the index is read without the lock,
// and the reader checks instead that no sync touched it meanwhile, the way a
// seqlock does: every sync creates the SYNCING marker before it changes
// anything and replaces the manifest last (or removes the whole folder), so
// an index with no marker when the reader starts and the same manifest file
// when it is done was not written in between.

// unwritable reports whether err means the workspace cannot be written:
// permissions, a read-only mount, or a full file system.
func unwritable(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || outOfSpace(err)
}

// outOfSpace reports whether err means the file system is full. bleve
// formats the errors of its segment writes with %v, so the system's
// message is looked for as well.
func outOfSpace(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, syscall.ENOSPC.Error()) || strings.Contains(msg, syscall.EDQUOT.Error())
}

// keepOldIndex undoes the SYNCING marker of a write that failed because
// the workspace cannot be written (a full disk fails in the middle of a
// sync, not at its first write): when every index file still matches the
// manifest on disk, nothing of the failed write reached them, so the
// marker goes and the index is searched as it was. Otherwise the marker
// stays, and a later sync rebuilds the scope.
func (ix *Index) keepOldIndex(s *scope) {
	s.closeBleve()
	marker := filepath.Join(s.dir, syncingFile)
	if _, err := os.Lstat(marker); err != nil {
		return
	}
	b, fi, err := readRegular(filepath.Join(s.dir, manifestFile))
	if err != nil {
		return
	}
	m, _, err := decodeManifest(b, false)
	if err != nil || ix.unusable(m) != "" {
		return
	}
	if _, err := verifyStore(s.dir, m.Store, fi.ModTime().UnixNano(), &ix.seen); err != nil {
		return
	}
	os.Remove(marker)
}

// errIndexMoved means a sync changed an index while it was read without
// its lock; the search is tried again.
var errIndexMoved = errors.New("the index changed while it was read")

// unlockedTries is how often a search over unlocked scopes is tried before
// it gives up on an index that keeps changing.
const unlockedTries = 3

// stampIndex stamps a scope's index by its manifest file, which any sync
// that changed the index replaced, failing when a sync is under way (or
// died) or there is no index.
func stampIndex(dir string) (stamp, error) {
	if _, err := os.Lstat(filepath.Join(dir, syncingFile)); err == nil {
		return stamp{}, errors.New("a sync is under way or did not finish")
	}
	fi, err := os.Stat(filepath.Join(dir, manifestFile))
	if err != nil {
		return stamp{}, err
	}
	return stampOf(fi), nil
}

// noteReadOnly says once per Index that the index is searched as it is.
func (ix *Index) noteReadOnly(err error) {
	ix.roOnce.Do(func() {
		ix.warnf("recall: the workspace cannot be written (%v); searching the index as it is, without syncing", err)
	})
}

// openUnlocked opens a scope for reading without its lock; lockErr says
// why the lock could not be taken.
func (ix *Index) openUnlocked(name string, lockErr error) (*scope, error) {
	s := &scope{name: name, dir: ix.ws.IndexDir(name), unlocked: true}
	if fi, err := ix.ws.Lstat(scopeRel(name)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("search %s: its index folder is a link, which tmem does not follow", s.label())
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("search %s: %w", s.label(), err)
	}
	fail := func(why string) (*scope, error) {
		s.close()
		return nil, fmt.Errorf("search %s: %s, and the workspace cannot be written to rebuild it (%v); run 'tmem index' where it can", s.label(), why, lockErr)
	}
	seen, err := stampIndex(s.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("there is no index")
	case err != nil:
		return fail("the index cannot be read: " + err.Error())
	}
	if ok, why := ix.loadManifest(s, true); !ok {
		if why == "" {
			why = "no manifest"
		}
		return fail("the index cannot be used as it is (" + why + ")")
	}
	if err := ix.openForRead(s); err != nil {
		return fail("the index cannot be opened: " + err.Error())
	}
	s.seen = seen
	return s, nil
}

// checkUnlocked fails with errIndexMoved when a scope read without its
// lock was synced while it was read.
func checkUnlocked(scopes []*scope) error {
	for _, s := range scopes {
		if !s.unlocked {
			continue
		}
		if now, err := stampIndex(s.dir); err != nil || now != s.seen {
			return fmt.Errorf("search %s: %w", s.label(), errIndexMoved)
		}
	}
	return nil
}

// readAsIs makes a locked scope whose sync failed because the workspace
// cannot be written searchable as it is. On a read-only workspace the
// failed sync wrote nothing: its first write (the marker, or the removal
// of the folder) is what failed. On a full disk it may have failed half
// way: keepOldIndex left the marker then, unless the index files were
// found untouched, and the marker refuses the index here.
func (ix *Index) readAsIs(s *scope, syncErr error) (*scope, error) {
	ix.noteReadOnly(syncErr)
	s.closeBleve()
	if ok, why := ix.loadManifest(s, true); !ok {
		s.close()
		if why == "" {
			return nil, fmt.Errorf("search %s: there is no index, and the workspace cannot be written to build it: %w", s.label(), syncErr)
		}
		return nil, fmt.Errorf("search %s: the index cannot be used as it is (%s), and the workspace cannot be written to rebuild it: %w", s.label(), why, syncErr)
	}
	if err := ix.openForRead(s); err != nil {
		s.close()
		return nil, fmt.Errorf("open index of %s: %w", s.label(), err)
	}
	return s, nil
}
