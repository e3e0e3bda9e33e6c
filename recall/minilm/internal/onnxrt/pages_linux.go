package onnxrt

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseHuge asks for the mapping of a model file to be backed by huge
// pages where the page cache has them (see DropCachedPages). A session's
// first run touches every weight, some 40 MB on MiniLM: in 4 KiB pages that
// is about 10,000 first touches, each a fault or a miss that some virtual
// machines serve slowly (30 ms in all on the 2-vCPU VM measured), in 2 MiB
// pages a few dozen. It only costs speed when it fails.
func adviseHuge(data []byte) {
	_ = unix.Madvise(data, unix.MADV_HUGEPAGE)
}

// DropCachedPages drops the pages of the file at path from the page cache,
// once they are on disk. A file just written sits in the cache in the pages
// it was written in; dropped, it is read back by the first session that
// maps it, and in huge pages, which later sessions map as they are. Errors
// are ignored: they cost only speed.
func DropCachedPages(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if f.Sync() == nil {
		_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	}
}
