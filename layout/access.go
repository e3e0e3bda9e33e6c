package layout

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/internal/bytesize"
)

// Every file tmem reads, writes, lists or deletes in a workspace goes
// through an os.Root opened on the workspace folder: the kernel walks each
// path from the root and refuses to follow a symlink (or "..") that leads
// outside it, so a memory file, a teammate folder or .tmp that is a link
// to elsewhere is never read, written, created or deleted through. Links
// that stay inside the workspace work as usual, but a path under a
// teammate's folder is walked from that folder, so a link in it must stay
// inside it (see rootAt). Files are opened without
// blocking and refused unless they are regular files, so a named pipe
// named like a memory file cannot hang a command; reads stop at a size
// limit.

// ErrOutside is wrapped by errors about paths that lead outside the
// workspace through a symlink.
var ErrOutside = errors.New("leads outside the workspace through a symlink, which tmem never follows")

// ErrTooLarge is wrapped by errors about files over a size limit.
var ErrTooLarge = errors.New("over the size limit")

// ErrNotRegular is wrapped by errors about files that are not regular
// files (named pipes, devices, sockets, folders).
var ErrNotRegular = errors.New("not a regular file")

// ErrNotFolder is wrapped by errors about a path listed as a folder that
// is something else (a file, a named pipe).
var ErrNotFolder = errors.New("not a folder")

// openRoot opens the workspace folder as an os.Root. It is opened for each
// operation and closed after, so a Workspace holds no file descriptor.
func (w *Workspace) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(w.Root)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", w.Root, err)
	}
	return r, nil
}

// accessError names rel and says plainly what went wrong.
func accessError(rel string, err error) error {
	if escapes(err) {
		return &ParseError{Path: rel, Err: ErrOutside}
	}
	return ReadError(rel, err)
}

// escapes reports whether err is os.Root refusing a path that leaves it.
func escapes(err error) bool {
	return strings.Contains(err.Error(), "path escapes from parent")
}

// opError says which write operation on rel failed and why, without the
// absolute path an *fs.PathError repeats: "mkdir .tmp/locks: permission
// denied".
func opError(op, rel string, err error) error {
	if escapes(err) {
		return fmt.Errorf("%s %s: %w", op, rel, ErrOutside)
	}
	return fmt.Errorf("%s %s: %w", op, rel, withoutPath(err))
}

// ReadFile reads the workspace file rel (slash-separated, relative to the
// root): only a regular file, never through a link that leads outside,
// and at most limit bytes (0 means MaxFileSize). A file that does not
// exist gives an error that matches fs.ErrNotExist; every error names rel.
func (w *Workspace) ReadFile(rel string, limit int64) ([]byte, error) {
	b, _, err := w.readStamped(rel, limit)
	return b, err
}

// Open opens the workspace file rel for a caller that reads it piece by
// piece, on the terms of ReadFile: only a regular file, never through a
// link that leads outside, without blocking on a named pipe. The caller
// closes it and bounds what it reads.
func (w *Workspace) Open(rel string) (_ *os.File, err error) {
	defer w.explain(rel, &err)
	r, name, err := w.rootAt(rel, false)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return openRegular(r, name, rel)
}

// readStamped is ReadFile that also returns the stamp of the file read.
func (w *Workspace) readStamped(rel string, limit int64) (_ []byte, _ FileStamp, err error) {
	defer w.explain(rel, &err)
	if limit <= 0 {
		limit = MaxFileSize
	}
	r, name, err := w.rootAt(rel, false)
	if err != nil {
		return nil, FileStamp{}, err
	}
	defer r.Close()
	f, err := openRegular(r, name, rel)
	if err != nil {
		return nil, FileStamp{}, err
	}
	defer f.Close()
	return readOpen(f, rel, limit)
}

// openRegular opens rel (name in r) without blocking and refuses
// anything but a regular file.
func openRegular(r *os.Root, name, rel string) (*os.File, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, accessError(rel, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, accessError(rel, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &ParseError{Path: rel, Err: fmt.Errorf("%w (%s): tmem reads only regular files", ErrNotRegular, modeName(st.Mode()))}
	}
	return f, nil
}

// readOpen reads the open file f (rel) from its start, at most limit
// bytes, and returns its stamp as of before the read.
func readOpen(f *os.File, rel string, limit int64) ([]byte, FileStamp, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, FileStamp{}, accessError(rel, err)
	}
	if st.Size() > limit {
		return nil, FileStamp{}, tooLarge(rel, st.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(io.NewSectionReader(f, 0, limit+1), limit+1))
	if err != nil {
		return nil, FileStamp{}, accessError(rel, err)
	}
	if int64(len(b)) > limit {
		return nil, FileStamp{}, tooLarge(rel, int64(len(b)), limit)
	}
	return b, FileStampOf(st), nil
}

func tooLarge(rel string, n, limit int64) error {
	what := "memory files"
	if limit != MaxFileSize {
		what = "this file"
	}
	return &ParseError{Path: rel, Err: &tooLargeError{fmt.Sprintf("file is %s, over the %s limit for %s", bytesize.Format(n), bytesize.Format(limit), what)}}
}

type tooLargeError struct{ msg string }

func (e *tooLargeError) Error() string        { return e.msg }
func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// modeName names the kind of a file that is not regular.
func modeName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "a special file"
}

// notFolder says why rel, opened as a folder, cannot be listed.
func notFolder(rel string, st fs.FileInfo, err error) error {
	if err != nil {
		return accessError(rel, err)
	}
	return &ParseError{Path: rel, Err: fmt.Errorf("%w (%s)", ErrNotFolder, modeName(st.Mode()))}
}

// Stat stats rel, following links only inside the workspace.
func (w *Workspace) Stat(rel string) (fs.FileInfo, error) { return w.stat(rel, (*os.Root).Stat) }

// Lstat stats rel itself, a link as a link (its folders are still walked
// inside the workspace only).
func (w *Workspace) Lstat(rel string) (fs.FileInfo, error) { return w.stat(rel, (*os.Root).Lstat) }

func (w *Workspace) stat(rel string, fn func(*os.Root, string) (fs.FileInfo, error)) (_ fs.FileInfo, err error) {
	defer w.explain(rel, &err)
	r, name, err := w.rootAt(rel, false)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := fn(r, name)
	if err != nil {
		return nil, statError(rel, err)
	}
	return st, nil
}

// statError keeps fs.ErrNotExist visible and names escapes.
func statError(rel string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return accessError(rel, err)
}

// ReadDir lists the folder rel (walked inside the workspace only), sorted
// by name; a folder that does not exist lists nothing. Anything else by
// that name is refused with ErrNotFolder, opened without blocking.
func (w *Workspace) ReadDir(rel string) (_ []fs.DirEntry, err error) {
	defer w.explain(rel, &err)
	r, name, err := w.rootAt(rel, false)
	if err != nil {
		if noTeamFolder(err) {
			return nil, nil
		}
		return nil, err
	}
	defer r.Close()
	if rel == "" {
		name = "."
	}
	d, err := r.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, accessError(rel, err)
	}
	defer d.Close()
	if st, err := d.Stat(); err != nil || !st.IsDir() {
		return nil, notFolder(rel, st, err)
	}
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, accessError(rel, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// EntryInfo returns the file info of a folder entry, following a link only
// inside the workspace; ok is false for entries that are not regular
// files, or links that lead outside or nowhere.
func (w *Workspace) EntryInfo(dir string, e fs.DirEntry) (fs.FileInfo, bool) {
	info, err := w.EntryCheck(dir, e)
	return info, err == nil
}

// EntryCheck is EntryInfo with the reason an entry cannot be read: not a
// regular file, a link that leads outside the workspace or nowhere.
func (w *Workspace) EntryCheck(dir string, e fs.DirEntry) (fs.FileInfo, error) {
	rel := path.Join(dir, e.Name())
	var info fs.FileInfo
	var err error
	if e.Type()&fs.ModeSymlink != 0 {
		info, err = w.Stat(rel)
	} else {
		info, err = e.Info()
	}
	if err != nil {
		return nil, ReadError(rel, err)
	}
	if !info.Mode().IsRegular() {
		return nil, &ParseError{Path: rel, Err: fmt.Errorf("%w (%s): tmem reads only regular files", ErrNotRegular, modeName(info.Mode()))}
	}
	return info, nil
}

// writeAtomic replaces (or creates) rel with data inside the workspace: a
// temp file in the same folder, fsynced, renamed over rel, the folder
// fsynced. A crash leaves the old file or the new one. rel itself must
// not be a symlink: tmem does not write through links.
func (w *Workspace) writeAtomic(rel string, data []byte) error {
	return w.replace(rel, bytesOut(data), nil)
}

// guard runs just before replace renames its temp file over name; the
// func it returns runs once the rename is durable. An error from guard
// leaves the file as it is.
type guard func(r *os.Root, name string) (after func() error, err error)

// replace writes what from writes to rel atomically, as writeAtomic, with
// an optional guard around the rename.
func (w *Workspace) replace(rel string, from func(io.Writer) error, g guard) (err error) {
	defer w.explain(rel, &err)
	r, name, err := w.rootAt(rel, true)
	if err != nil {
		return err
	}
	defer r.Close()
	dir := filepath.Dir(name)
	if err := r.MkdirAll(dir, newDirMode); err != nil {
		return opError("mkdir", path.Dir(rel), err)
	}
	var keep fs.FileMode // the mode of the file replaced; 0: a new file
	if st, err := r.Lstat(name); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("path %q is a symlink: tmem does not write through symlinks", rel)
	} else if err == nil && st.Mode().IsRegular() {
		keep = st.Mode().Perm()
	}
	tmp := filepath.Join(dir, "."+filepath.Base(name)+".tmp-"+randomSuffix())
	if err := writeSynced(r, tmp, from, keep); err != nil {
		r.Remove(tmp)
		return opError("create", rel, err)
	}
	after := func() error { return nil }
	if g != nil {
		if after, err = g(r, name); err != nil {
			r.Remove(tmp)
			return err
		}
	}
	if w.beforeRename != nil {
		w.beforeRename()
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return opError("replace", rel, err)
	}
	if err := syncRootDir(r, dir); err != nil {
		return err
	}
	return after()
}

// File modes: a new file or folder gets read and write (and search) for
// all, less the umask, as editors and mkdir give them, so that a group
// sharing a workspace under umask 002 can write what another member
// created; a file rewritten keeps the mode it had (0600 stays private).
const (
	newFileMode fs.FileMode = 0o666
	newDirMode  fs.FileMode = 0o777
)

// bytesOut is a content func for replace that writes data.
func bytesOut(data []byte) func(io.Writer) error {
	return func(wr io.Writer) error { _, err := wr.Write(data); return err }
}

// writeSynced creates name with what from writes, fsynced: with the mode
// keep, as it is, when it replaces a file of that mode, else newFileMode
// less the umask.
func writeSynced(r *os.Root, name string, from func(io.Writer) error, keep fs.FileMode) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, newFileMode)
	if err != nil {
		return err
	}
	if keep != 0 {
		if err := f.Chmod(keep); err != nil {
			f.Close()
			return err
		}
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := from(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return writeClose(f, nil)
}

// writeClose writes data to f, fsyncs and closes it.
func writeClose(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func syncRootDir(r *os.Root, dir string) error {
	d, err := r.Open(dir)
	if err != nil {
		return err
	}
	return syncFolder(d, dir)
}

// syncFolder fsyncs an open folder and closes it; systems that cannot
// sync a folder are not an error.
func syncFolder(d *os.File, dir string) error {
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

func randomSuffix() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported systems
	}
	return hex.EncodeToString(b[:])
}

// Dir makes sure the folder rel exists inside the workspace (its path
// never leaving through a symlink) and returns its absolute path, for
// code that must open files by path, such as the recall index.
func (w *Workspace) Dir(rel string) (string, error) {
	r, err := w.openRoot()
	if err != nil {
		return "", err
	}
	defer r.Close()
	if err := r.MkdirAll(filepath.FromSlash(rel), newDirMode); err != nil {
		return "", opError("mkdir", rel, err)
	}
	st, err := r.Lstat(filepath.FromSlash(rel))
	if err != nil {
		return "", accessError(rel, err)
	}
	if !st.IsDir() {
		return "", &ParseError{Path: rel, Err: fmt.Errorf("%w: want a folder", ErrNotRegular)}
	}
	return w.Abs(rel), nil
}

// RemoveAll deletes rel and everything under it, inside the workspace
// only: a link in it is removed, never followed.
func (w *Workspace) RemoveAll(rel string) (err error) {
	defer w.explain(rel, &err)
	r, name, err := w.rootAt(rel, false)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.RemoveAll(name); err != nil {
		return opError("remove", rel, err)
	}
	return nil
}

// AppendFile appends data to the workspace file rel (created if missing,
// its folder too) and fsyncs it: for logs that only grow, such as a
// journal's record of finished steps.
func (w *Workspace) AppendFile(rel string, data []byte) (err error) {
	defer w.explain(rel, &err)
	r, name, err := w.rootFor(rel, true)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(filepath.Dir(name), newDirMode); err != nil {
		return opError("mkdir", path.Dir(rel), err)
	}
	if st, err := r.Lstat(name); err == nil && !st.Mode().IsRegular() {
		return &ParseError{Path: rel, Err: fmt.Errorf("%w (%s)", ErrNotRegular, modeName(st.Mode()))}
	}
	f, err := r.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, newFileMode)
	if err != nil {
		return opError("append to", rel, err)
	}
	return writeClose(f, data)
}

// rootFor checks a workspace path that tmem writes and opens the root to
// reach it by; name is rel in the system's form. The caller closes r.
func (w *Workspace) rootFor(rel string, create bool) (r *os.Root, name string, err error) {
	if err := checkRel(rel); err != nil {
		return nil, "", err
	}
	return w.rootAt(rel, create)
}
