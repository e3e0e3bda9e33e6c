package serve

import (
	"context"
	"errors"
	"io"
)

// errClosing refuses a write that arrives while the server shuts down.
var errClosing = errors.New("the server is shutting down; nothing was written")

// beginWrite registers a write, so that Close waits for it; it fails once
// Close began. The write itself runs to its end even when the client's
// request is cancelled, so a shutdown never leaves it half done.
func (s *Service) beginWrite() (done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, errClosing
	}
	s.writes.Add(1)
	return s.writes.Done, nil
}

// Close stops the watcher and the background embedder, and waits for the
// writes under way. The recall index stays open: it belongs to the caller.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closing = true
	stop, bl := s.stopWatch, s.backlog
	s.stopWatch, s.backlog = nil, nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	bl.close()
	s.writes.Wait()
	return nil
}

// ServeStdio serves one MCP session over r and w (newline-delimited
// JSON-RPC, an agent CLI's stdin and stdout) until the client closes r or
// ctx is cancelled; either is a clean end. At the end of r the requests
// already read are answered first; a line that is not a JSON-RPC message
// is answered with an error and the session goes on.
func (s *Service) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	err := s.Server().Run(ctx, &stdioTransport{r: r, w: w})
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return err
}
