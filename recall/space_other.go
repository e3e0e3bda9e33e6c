//go:build !linux && !darwin

package recall

// freeSpace cannot tell the free space here: every sync is tried.
func freeSpace(string) (int64, bool) { return 0, false }
