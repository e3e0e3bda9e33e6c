package layout

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/tmemhq/tmem/internal/quote"
	"github.com/tmemhq/tmem/internal/secrets"
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

// Error names the file and line. The message is redacted: a parser's
// message may quote the file (YAML names an unknown anchor, a value of
// the wrong type), and errors reach stderr, logs and MCP clients.
func (e *ParseError) Error() string {
	msg := redacted(fmt.Sprint(e.Err))
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", quote.IfNeeded(e.Path), e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", quote.IfNeeded(e.Path), msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// redacted is msg with any secret in it shown as [REDACTED:kind].
func redacted(msg string) string {
	msg, _ = secrets.Redact(msg)
	return msg
}

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
