package recall

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tmemhq/tmem/internal/filecache"
)

// storeFile records one file the index reads besides the manifest (the
// bleve files and vectors.bin) as the last sync left it. bleve maps its
// files and trusts what it reads, so a damaged file could make it panic,
// fault or answer wrongly: every open checks the files against these
// records first.
type storeFile struct {
	Path  string // relative to the scope folder, slash-separated
	Size  int64
	MTime int64  // ns
	CTime int64  // ns, 0 where the platform has none
	Ino   uint64 // 0 where the platform has none
	CRC   uint32 // CRC-32C of the content
}

// stamp is the stat data that moves whenever a file is written.
type stamp = filecache.Stamp

func stampOf(fi fs.FileInfo) stamp { return filecache.StampOf(fi) }

func (r *storeFile) stamp() stamp {
	return stamp{Size: r.Size, MTime: r.MTime, CTime: r.CTime, Ino: r.Ino}
}

func (r *storeFile) setStamp(st stamp) {
	r.Size, r.MTime, r.CTime, r.Ino = st.Size, st.MTime, st.CTime, st.Ino
}

// verifiedFiles remembers, per path, the stat data of files this process
// has checked by content, so that a long-lived Index reads each file
// once rather than on every search.
type verifiedFiles struct {
	mu sync.Mutex
	m  map[string]verifiedFile
}

type verifiedFile struct {
	st  stamp
	crc uint32
}

// crc returns the checksum found for path when its stat data was st.
func (v *verifiedFiles) crc(path string, st stamp) (uint32, bool) {
	if v == nil {
		return 0, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.m[path]
	return e.crc, ok && e.st == st
}

func (v *verifiedFiles) add(path string, st stamp, crc uint32) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[string]verifiedFile{}
	}
	v.m[path] = verifiedFile{st, crc}
}

// recordStore lists the files of the scope folder dir that the index
// reads besides the manifest (everything under bleve/, and vectors.bin),
// with their stat data and checksums. A file whose stat data equals its
// prior record keeps that record's checksum: the sync checked it under
// the same lock, and bleve never rewrites a segment in place.
func recordStore(dir string, prior []storeFile) ([]storeFile, error) {
	known := map[string]storeFile{}
	for _, r := range prior {
		known[r.Path] = r
	}
	var out []storeFile
	add := func(p string, fi fs.FileInfo) error {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file: %w", rel, errCorrupt)
		}
		r := storeFile{Path: rel}
		r.setStamp(stampOf(fi))
		if old, ok := known[rel]; ok && old.stamp() == r.stamp() {
			r.CRC = old.CRC
		} else if r.CRC, err = crcFile(p); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	}
	err := filepath.WalkDir(filepath.Join(dir, bleveDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return add(p, fi)
	})
	if err == nil {
		vp := filepath.Join(dir, vectorsFile)
		var fi fs.FileInfo
		if fi, err = os.Lstat(vp); err == nil {
			err = add(vp, fi)
		} else if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("record index files: %w", err)
	}
	return out, nil
}

// verifyStore checks the files of the scope folder dir against their
// records before anything opens them. A file of another size is damaged,
// and is never opened (so never mapped: reading a mapping past the end of
// a file faults). A file whose stat data matches its record, written
// before racyAfter, is trusted without reading it: any later write moves
// its ctime. Any other file is checksummed: one written in the same clock
// tick as racyAfter could have changed again without moving its stat
// data (git's "racy clean" problem), and one whose stat data moved
// (copied, restored, touched) may still be whole.
//
// Records of files that were read and matched get their stat data
// updated; rewrite says so, and a writer then saves the manifest, which
// also moves racyAfter on.
func verifyStore(dir string, recs []storeFile, racyAfter int64, seen *verifiedFiles) (rewrite bool, err error) {
	if len(recs) == 0 {
		return false, fmt.Errorf("no record of the index files: %w", errCorrupt)
	}
	for i := range recs {
		r := &recs[i]
		p := filepath.Join(dir, filepath.FromSlash(r.Path))
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false, fmt.Errorf("%s is missing: %w", r.Path, errCorrupt)
		case err != nil:
			return false, fmt.Errorf("check %s: %v: %w", r.Path, err, errCorrupt)
		case !fi.Mode().IsRegular():
			return false, fmt.Errorf("%s is not a regular file: %w", r.Path, errCorrupt)
		case fi.Size() != r.Size:
			return false, fmt.Errorf("%s has %d bytes, %d recorded: %w", r.Path, fi.Size(), r.Size, errCorrupt)
		}
		st := stampOf(fi)
		if st == r.stamp() && r.MTime < racyAfter && r.CTime < racyAfter {
			continue
		}
		sum, ok := seen.crc(p, st)
		if !ok {
			if sum, err = crcFile(p); err != nil {
				return false, fmt.Errorf("check %s: %v: %w", r.Path, err, errCorrupt)
			}
			seen.add(p, st, sum)
		}
		if sum != r.CRC {
			return false, fmt.Errorf("%s does not match its checksum: %w", r.Path, errCorrupt)
		}
		r.setStamp(st)
		rewrite = true
	}
	return rewrite, nil
}

// crcFile returns the CRC-32C of a file's content.
func crcFile(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.New(crcTable)
	if _, err := io.CopyBuffer(h, f, make([]byte, 256<<10)); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// readRegular reads a whole file that must be a regular file (never a
// FIFO that would block, nor a link), and returns its stat data too.
func readRegular(path string) ([]byte, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file: %w", filepath.Base(path), errCorrupt)
	}
	b, err := os.ReadFile(path)
	return b, fi, err
}
