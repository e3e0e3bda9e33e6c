package minilm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultIdleTimeout is how long a download waits for the server's next
// byte (or its answer) before it gives up; what arrived is kept, and the
// next pull resumes there.
const DefaultIdleTimeout = time.Minute

// fetcher makes a pull's requests: with its client, and giving up on a
// server that sends nothing for idle.
type fetcher struct {
	client *http.Client
	idle   time.Duration
}

func newFetcher(c *http.Client, idle time.Duration) fetcher {
	if c == nil {
		c = http.DefaultClient
	}
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return fetcher{client: c, idle: idle}
}

// errStalled is the cause of a request cancelled by its stall watch.
var errStalled = errors.New("stalled")

// stallWatch cancels a request when no byte has come for idle: a server
// that accepts and never answers, or stops sending halfway, would hang the
// pull for ever otherwise (nothing else bounds a body that may take hours
// on a slow link).
type stallWatch struct {
	idle  time.Duration
	mu    sync.Mutex
	timer *time.Timer
}

// watch returns ctx, cancelled with errStalled after idle without a call
// to touch, and the watch; stop releases it.
func watch(ctx context.Context, idle time.Duration) (context.Context, *stallWatch, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &stallWatch{idle: idle}
	w.timer = time.AfterFunc(idle, func() { cancel(errStalled) })
	return ctx, w, func() { w.timer.Stop(); cancel(nil) }
}

func (w *stallWatch) touch() {
	w.mu.Lock()
	w.timer.Reset(w.idle)
	w.mu.Unlock()
}

// body is a response body that touches its watch on every byte read.
func (w *stallWatch) body(r io.Reader) io.Reader { return &watchedReader{r: r, w: w} }

type watchedReader struct {
	r io.Reader
	w *stallWatch
}

func (wr *watchedReader) Read(p []byte) (int, error) {
	n, err := wr.r.Read(p)
	if n > 0 {
		wr.w.touch()
	}
	return n, err
}

// stallError says what a request cancelled by its watch waited for; other
// errors pass unchanged.
func stallError(ctx context.Context, err error, idle time.Duration) error {
	if err == nil || !errors.Is(context.Cause(ctx), errStalled) {
		return err
	}
	return fmt.Errorf("%w: the server sent nothing for %s", ErrDownload, idle)
}
