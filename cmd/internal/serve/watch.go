package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// watchDepth is how far below the workspace root folders are watched:
// <teammate>/memory/archive/typed is four levels down.
const watchDepth = 4

// Watch follows file changes in the workspace, so that searches sync the
// index only after something changed instead of checking every file on
// every call. Where the files cannot be watched (no inotify watches left,
// a file system without events) it returns the reason, and every search
// keeps syncing, as the CLI does.
func (s *Service) Watch() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", s.ws.Root, err)
	}
	if err := addTree(w, s.ws.Root, 0); err != nil {
		w.Close()
		return fmt.Errorf("watch %s: %w", s.ws.Root, err)
	}
	s.barrier = s.watchBarrier(w)
	done := make(chan struct{})
	go s.follow(w, done)
	s.mu.Lock()
	s.stopWatch = func() {
		w.Close()
		<-done
		s.barrier.close()
	}
	s.mu.Unlock()
	s.fresh.setWatching(true)
	return nil
}

// follow marks the index stale on every event that can touch memory, and
// watches folders as they appear. When the watcher fails (its queue
// overflowed, a folder could not be added), searches go back to syncing
// every time.
func (s *Service) follow(w *fsnotify.Watcher, done chan struct{}) {
	defer close(done)
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) && s.barrier.heard(ev.Name) {
				continue
			}
			if !relevant(s.ws.Root, ev.Name) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					if err := addTree(w, ev.Name, depth(s.ws.Root, ev.Name)); err != nil {
						s.giveUp(err)
					}
				}
			}
			s.fresh.changed()
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.giveUp(err)
		}
	}
}

// watchBarrier makes and watches the folder for barrier files (see
// barrier); without one, every search syncs.
func (s *Service) watchBarrier(w *fsnotify.Watcher) *barrier {
	const rel = ".tmp/serve"
	dir, err := s.ws.Dir(rel)
	if err != nil {
		return nil // a read-only workspace: searches sync
	}
	if err := w.Add(dir); err != nil {
		return nil
	}
	return newBarrier(s.ws, rel)
}

// giveUp stops trusting the watcher: every search syncs from now on.
func (s *Service) giveUp(err error) {
	s.fresh.setWatching(false)
	s.warn(fmt.Sprintf("serve: file watching failed (%v); every search now checks the files", err))
}

// relevant says whether an event can touch memory: nothing under a
// dot-folder or named with a leading dot (indexes, locks, scratch, the
// temp files of atomic writes) is.
func relevant(root, name string) bool {
	rel, err := filepath.Rel(root, name)
	if err != nil || rel == "." {
		return false
	}
	for _, p := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(p, ".") {
			return false
		}
	}
	return true
}

func depth(root, dir string) int {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(filepath.ToSlash(rel), "/") + 1
}

// addTree watches dir and the folders below it, down to watchDepth,
// skipping dot-folders and links.
func addTree(w *fsnotify.Watcher, dir string, d int) error {
	if err := w.Add(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone again already
		}
		return err
	}
	if d >= watchDepth {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil // a folder that cannot be listed holds nothing recall reads
	}
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if err := addTree(w, filepath.Join(dir, e.Name()), d+1); err != nil {
				return err
			}
		}
	}
	return nil
}
