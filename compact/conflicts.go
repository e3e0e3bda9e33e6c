package compact

import (
	"bytes"
	"errors"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// ErrUnresolved is wrapped by the error for a memory file that holds merge
// conflict markers. Compaction never summarises, rewrites or removes such
// a file: which side of the conflict is right is for a person to say, and
// a summary would keep both sides as if both were true.
var ErrUnresolved = errors.New("merge conflict marker left in the file; left as it is until the conflict is resolved (keep the right version, delete the markers)")

// unresolved returns an error naming the first conflict marker in src, the
// content of the workspace file rel; nil when there is none.
func unresolved(rel string, src []byte) error {
	if !bytes.Contains(src, []byte("<<<<<<<")) {
		return nil
	}
	if lines := layout.ConflictMarkers(src); len(lines) > 0 {
		return &layout.ParseError{Path: rel, Line: lines[0], Err: ErrUnresolved}
	}
	return nil
}

// archiveFile reports whether rel is in a memory archive, whose sections
// hold their sources' bytes exactly, markers and all.
func archiveFile(rel string) bool {
	return strings.Contains(rel, "/memory/"+layout.ArchiveDir+"/")
}
