package layout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Memory files are also edited by hand and by programs that do not take
// tmem's lock (an editor, `echo >> file`). update reads a file, changes
// it, writes the result to a temp file and renames that into place. Just
// before the rename it checks the file again: one rewritten or replaced
// meanwhile makes it start over (a bounded number of times); one that was
// only appended to is replaced all the same, and what was appended to it
// up to the rename is then appended to the new file, as if it had been
// appended just after tmem's write, and a steady appender cannot starve
// tmem. What no check can see is a program that opened the file before the
// rename and writes to it only after tmem looked at the replaced file
// again: that write goes to the replaced file. A shell's ">>" opens and
// writes within microseconds, and the look comes after the folder's fsync.

// maxUpdateTries bounds how often update starts over because another
// program rewrote the file meanwhile.
const maxUpdateTries = 10

// errChanged means the file was rewritten between update's read and its
// rename.
var errChanged = errors.New("changed by another program while tmem wrote it")

// update rewrites the workspace file rel under the teammate's lock: fn gets
// the current content (nil and false when the file does not exist) and
// returns the new one, which is written atomically, only over the content
// fn was given or that content with bytes appended.
func (w *Workspace) update(ctx context.Context, name, rel string, fn func(old []byte, exists bool) ([]byte, error)) error {
	unlock, err := w.Lock(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	for try := 1; ; try++ {
		err := w.updateOnce(rel, fn)
		if !errors.Is(err, errChanged) {
			return err
		}
		if try == maxUpdateTries {
			return fmt.Errorf("%s: nothing written: another program kept rewriting it while tmem wrote (%d tries); try again", rel, try)
		}
	}
}

// updateOnce makes one attempt; it returns errChanged when the file was
// rewritten before the rename.
func (w *Workspace) updateOnce(rel string, fn func(old []byte, exists bool) ([]byte, error)) error {
	old, st, err := w.readStamped(rel, MaxFileSize)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, err := fn(old, exists)
	if err != nil {
		return err
	}
	if err := keepsReadable(rel, data); err != nil {
		return err
	}
	return w.replace(rel, bytesOut(data), func(r *os.Root, name string) (func() error, error) {
		f, err := openUnchanged(r, rel, name, old, st, exists)
		if err != nil || f == nil {
			return func() error { return nil }, err
		}
		return func() error {
			defer f.Close()
			return keepAppended(r, rel, name, f, old)
		}, nil
	})
}

// openUnchanged checks that rel still holds old, or old with bytes
// appended (or still does not exist), and returns it open.
func openUnchanged(r *os.Root, rel, name string, old []byte, st FileStamp, exists bool) (*os.File, error) {
	if !exists {
		if _, err := r.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %w", rel, errChanged)
	}
	f, err := openRegular(r, name, rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, errChanged)
	}
	cur, now, err := readOpen(f, rel, MaxFileSize)
	if err != nil || now.Ino != st.Ino || !bytes.HasPrefix(cur, old) || now.Size == st.Size && now != st {
		f.Close()
		return nil, fmt.Errorf("%s: %w", rel, errChanged)
	}
	return f, nil
}

// keepAppended appends to the new file rel what was appended to f, the
// file it replaced, after tmem read old from it.
func keepAppended(r *os.Root, rel, name string, f *os.File, old []byte) error {
	cur, _, err := readOpen(f, rel, MaxFileSize)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(cur, old) {
		return fmt.Errorf("%s: written, but another program rewrote the file in the same instant and its version was replaced", rel)
	}
	if len(cur) == len(old) {
		return nil
	}
	nf, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return opError("append to", rel, err)
	}
	return writeClose(nf, cur[len(old):])
}
