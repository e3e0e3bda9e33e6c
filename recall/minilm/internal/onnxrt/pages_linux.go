package onnxrt

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseHuge asks for the mapping of a model file to be backed by huge
// pages where the page cache has them (see RecacheHuge). A session's
// first run touches every weight, some 40 MB on MiniLM: in 4 KiB pages that
// is about 10,000 first touches, each a fault or a miss that some virtual
// machines serve slowly (30 ms in all on the 2-vCPU VM measured), in 2 MiB
// pages a few dozen. It only costs speed when it fails.
func adviseHuge(data []byte) {
	_ = unix.Madvise(data, unix.MADV_HUGEPAGE)
}

// RecacheHuge drops the pages of the file at path from the page cache, once
// they are on disk, and reads them back in huge pages. A file just written
// sits in the cache in the pages it was written in; recached, every later
// session maps it as it is, in huge pages. Errors are ignored: they cost
// only speed.
func RecacheHuge(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 || f.Sync() != nil || unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED) != nil {
		return
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return
	}
	defer unix.Munmap(data)
	adviseHuge(data)
	// Without MADV_POPULATE_READ (Linux 5.14) the first session reads it.
	_ = unix.Madvise(data, unix.MADV_POPULATE_READ)
}
