//go:build linux || darwin

package recall

import "syscall"

// freeSpace returns the bytes an unprivileged process may still write on
// the file system holding dir; ok is false when that cannot be told.
func freeSpace(dir string) (free int64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
