package layout

import (
	"fmt"
	"os"
)

// OpenRegular opens path for reading if it is a regular file (a symlink to
// one will do): for files that live beside a workspace rather than in it,
// such as a model folder's. Like the workspace's own reads, it never
// blocks on a named pipe, and refuses one (or a folder, device or socket)
// with an error wrapping ErrNotRegular that names path and what it is.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, modeName(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
