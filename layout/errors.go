package layout

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/tmemhq/tmem/internal/quote"
)

// ErrNoWorkspace is returned when no .teammates folder can be found.
var ErrNoWorkspace = errors.New("no .teammates workspace found")

// ErrExists is returned when a write would replace a file it must not.
var ErrExists = errors.New("file already exists")

// ParseError reports a problem in a memory file at a given line.
type ParseError struct {
	Path string // relative to the workspace root where known
	Line int    // 1-based; 0 when the problem is with the whole file
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", quote.IfNeeded(e.Path), e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", quote.IfNeeded(e.Path), e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ReadError reports a failure to read the workspace file rel as a
// *ParseError that names rel and drops the absolute path an *fs.PathError
// repeats: "beacon/GOALS.md: cannot read: permission denied".
// An error that already names its file is that error.
func ReadError(rel string, err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	return &ParseError{Path: rel, Err: fmt.Errorf("cannot read: %w", withoutPath(err))}
}

// withoutPath drops the absolute path an *fs.PathError repeats.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
