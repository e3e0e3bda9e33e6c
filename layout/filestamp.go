package layout

import (
	"io/fs"
	"time"
)

// RacyWindow is how old a file's last change must be for its stat data
// to stand for its content: a coarse file-system clock can give two
// changes in quick succession the same times, and only their age tells
// that they are settled. Every stat-keyed cache uses it.
const RacyWindow = 2 * time.Second

// FileStamp is the stat data that changes whenever a file's content does:
// size, mtime and, where the platform has them, the inode change time
// (which utimes cannot set back) and the inode (a file replaced by a
// rename), times in nanoseconds.
type FileStamp struct {
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime_ns"`
	CTime int64  `json:"ctime_ns"`
	Ino   uint64 `json:"ino"`
}

// FileStampOf returns the stamp of fi.
func FileStampOf(fi fs.FileInfo) FileStamp {
	ctime, ino := StatID(fi)
	return FileStamp{fi.Size(), fi.ModTime().UnixNano(), ctime, ino}
}

// Settled says whether st can stand for the content at time now: the
// platform reports inode change times, and the last change is older than
// RacyWindow.
func (st FileStamp) Settled(now time.Time) bool {
	before := now.Add(-RacyWindow).UnixNano()
	return st.CTime != 0 && st.MTime < before && st.CTime < before
}
