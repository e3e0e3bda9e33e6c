//go:build unix

package layout

import (
	"io/fs"
	"syscall"
)

// ownerOf returns the user ID that owns a file.
func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
