//go:build !windows

package onnxrt

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps a whole file read-only.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 || fi.Size() != int64(int(fi.Size())) {
		return nil, fmt.Errorf("%d bytes, not a model", fi.Size())
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map: %w", err)
	}
	adviseHuge(data)
	return data, nil
}

// unmap undoes mapFile.
func unmap(data []byte) error { return syscall.Munmap(data) }
