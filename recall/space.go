package recall

import (
	"fmt"
	"syscall"

	"github.com/tmemhq/tmem/internal/bytesize"
)

// A sync changes bleve's files in place (root.bolt) before the segments it
// writes reach the disk, so on a full disk it fails half way and the index
// must be rebuilt. A sync that surely cannot finish is therefore not
// started: the scope is searched as it is instead (see readonly.go).
const (
	syncSpaceBase   = 1 << 20 // bolt pages, the manifest, the vector file's rename
	syncSpacePerSrc = 4       // index bytes per byte of Markdown indexed, generously
)

// checkSyncSpace fails with ENOSPC when the file system holding dir has
// less room than a sync indexing src bytes of Markdown needs.
func checkSyncSpace(dir string, src int64) error {
	free, ok := freeSpace(dir)
	need := syncSpaceBase + syncSpacePerSrc*src
	if !ok || free >= need {
		return nil
	}
	return fmt.Errorf("%s free, a sync needs about %s: %w", bytesize.Format(free), bytesize.Format(need), syscall.ENOSPC)
}
