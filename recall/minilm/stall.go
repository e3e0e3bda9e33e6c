package minilm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/tmemhq/tmem/internal/bytesize"
)

// DefaultIdleTimeout is how long a download waits for the server's next
// byte (or its answer) before it gives up; what arrived is kept, and the
// next pull resumes there.
const DefaultIdleTimeout = time.Minute

// speedLimit is the slowest a body may arrive, as curl's --speed-limit
// and --speed-time: fewer than Rate bytes a second on average over a
// window gives the download up. The idle timeout alone would let a server
// that sends one byte a minute hold a pull for ever.
type speedLimit struct {
	rate   int64 // bytes a second
	window time.Duration
}

// defaultSpeedLimit is 1 KiB/s over a minute: a link that slow would take
// a day for the model, and any real mirror is far faster.
var defaultSpeedLimit = speedLimit{rate: 1 << 10, window: time.Minute}

// perWindow is the fewest bytes a window must bring.
func (l speedLimit) perWindow() int64 {
	return int64(float64(l.rate) * l.window.Seconds())
}

// fetcher makes a pull's requests: with its client, giving up on a server
// that sends nothing for idle or sends slower than slow, and on a file
// without a pinned size that is longer than max.
type fetcher struct {
	client *http.Client
	idle   time.Duration
	slow   speedLimit
	max    int64
}

// newFetcher is a fetcher with c, idle, slow and most; nil and zeros mean
// http.DefaultClient, DefaultIdleTimeout, defaultSpeedLimit and
// maxUnpinnedSize.
func newFetcher(c *http.Client, idle time.Duration, slow speedLimit, most int64) fetcher {
	if c == nil {
		c = http.DefaultClient
	}
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	if slow.rate <= 0 || slow.window <= 0 {
		slow = defaultSpeedLimit
	}
	if most <= 0 {
		most = maxUnpinnedSize
	}
	return fetcher{client: c, idle: idle, slow: slow, max: most}
}

// errStalled is the cause of a request cancelled by its stall watch.
var errStalled = errors.New("stalled")

// tooSlow is the cause of a request cancelled for its speed: got bytes
// came in the last window.
type tooSlow struct{ got int64 }

func (tooSlow) Error() string { return "too slow" }

// stallWatch cancels a request when no byte has come for idle, or when a
// window of its body brings fewer bytes than the speed limit allows: a
// server that accepts and never answers, stops sending halfway or sends a
// byte now and then would hang the pull for ever otherwise (nothing else
// bounds a body that may take hours on a slow link).
type stallWatch struct {
	idle   time.Duration
	slow   speedLimit
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	timer  *time.Timer // fires after idle without a byte
	speed  *time.Timer // fires at the end of each window; nil before the body
	got    int64       // bytes in the current window
	done   bool
}

// watch returns ctx, cancelled with errStalled after f.idle without a
// call to touch, or with tooSlow once the body is slower than f.slow, and
// the watch; stop releases it.
func watch(ctx context.Context, f fetcher) (context.Context, *stallWatch, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &stallWatch{idle: f.idle, slow: f.slow, cancel: cancel}
	w.timer = time.AfterFunc(f.idle, func() { cancel(errStalled) })
	return ctx, w, w.stop
}

func (w *stallWatch) stop() {
	w.mu.Lock()
	w.done = true
	w.timer.Stop()
	if w.speed != nil {
		w.speed.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}

func (w *stallWatch) touch(n int) {
	w.mu.Lock()
	w.got += int64(n)
	w.timer.Reset(w.idle)
	w.mu.Unlock()
}

// endWindow gives the request up when the window that ends now brought
// too few bytes, else starts the next one.
func (w *stallWatch) endWindow() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if w.got < w.slow.perWindow() {
		w.cancel(tooSlow{got: w.got})
		return
	}
	w.got = 0
	w.speed.Reset(w.slow.window)
}

// body is a response body that touches its watch on every byte read; the
// speed windows start with it, once the server has answered.
func (w *stallWatch) body(r io.Reader) io.Reader {
	w.mu.Lock()
	w.speed = time.AfterFunc(w.slow.window, w.endWindow)
	w.mu.Unlock()
	return &watchedReader{r: r, w: w}
}

type watchedReader struct {
	r io.Reader
	w *stallWatch
}

func (wr *watchedReader) Read(p []byte) (int, error) {
	n, err := wr.r.Read(p)
	if n > 0 {
		wr.w.touch(n)
	}
	return n, err
}

// explain says what a request to url cancelled by its watch waited for;
// other errors pass unchanged.
func (w *stallWatch) explain(ctx context.Context, err error, url string) error {
	if err == nil {
		return nil
	}
	var slow tooSlow
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errStalled):
		return fmt.Errorf("%w: the server sent nothing for %s", ErrDownload, w.idle)
	case errors.As(cause, &slow):
		got := int64(float64(slow.got) / w.slow.window.Seconds())
		return fmt.Errorf("%w: GET %s: too slow: %s in %s (%s/s), below the minimum of %s/s", ErrDownload, url,
			bytesize.Format(slow.got), w.slow.window, bytesize.Format(got), bytesize.Format(w.slow.rate))
	}
	return err
}
