package recall

import "sync"

// warmCache keeps what a search opens from index files (mapped vector
// files, bleve snapshots) between searches, each under the stamp of the
// file that says it is current. A writer never changes an opened file in
// place: it writes new files and replaces the one the stamp is taken
// from, so a kept value stays whole and consistent until it is let go of.
// A value whose stamp moved, or whose cache is closed, is released once
// the last search reading it is done. Safe for concurrent use.
type warmCache[T any] struct {
	mu      sync.Mutex
	entries map[string]*warmEntry[T]
}

type warmEntry[T any] struct {
	stamp   stamp
	val     T
	release func()
	users   int  // searches reading val
	stale   bool // replaced: released when the last user is done
}

// get returns the value kept under key when it was opened under stamp st,
// opening it with open otherwise, and a function to call once the value
// is no longer read.
func (c *warmCache[T]) get(key string, st stamp, open func() (T, func(), error)) (T, func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if ok && e.stamp != st {
		c.dropLocked(key)
		ok = false
	}
	if !ok {
		v, release, err := open()
		if err != nil {
			var zero T
			return zero, nil, err
		}
		e = &warmEntry[T]{stamp: st, val: v, release: release}
		if c.entries == nil {
			c.entries = map[string]*warmEntry[T]{}
		}
		c.entries[key] = e
	}
	e.users++
	var once sync.Once
	done := func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			e.users--
			e.releaseIfIdle()
		})
	}
	return e.val, done, nil
}

// drop lets go of the value kept under key (once no search reads it).
func (c *warmCache[T]) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(key)
}

// close lets go of every value kept.
func (c *warmCache[T]) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.entries {
		c.dropLocked(key)
	}
}

func (c *warmCache[T]) dropLocked(key string) {
	if e, ok := c.entries[key]; ok {
		delete(c.entries, key)
		e.stale = true
		e.releaseIfIdle()
	}
}

func (e *warmEntry[T]) releaseIfIdle() {
	if e.stale && e.users == 0 && e.release != nil {
		e.release()
		e.release = nil
	}
}
