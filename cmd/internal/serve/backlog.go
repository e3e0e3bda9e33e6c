package serve

import (
	"context"
	"fmt"
	"sync"

	"github.com/tmemhq/tmem/recall"
)

// backlogBatch is how many chunks the background worker embeds at once.
// ONNX Runtime spreads a batch over a worker per core, four texts each:
// a batch of four keeps the worker on one core and leaves the other to
// searches; the pure-Go backend runs one batch at a time, so a query
// waits at most for four chunks.
const backlogBatch = 4

// backlog embeds, in the background, the chunks a sync left without
// vectors: a search never waits for them, and finds them by BM25 until
// they are done. It runs after Warm and after every search that synced,
// and one run at a time; a kick during a run brings another after it.
type backlog struct {
	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}

	mu      sync.Mutex
	idle    *sync.Cond
	running bool
	kicked  bool
}

// EmbedInBackground starts the worker that embeds the recall backlog of
// the teammates the session reads, beside the searches; the index must
// have been opened with recall.Options.SyncLeavesBacklog, so that syncs
// leave that work to it. Close stops it.
func (s *Service) EmbedInBackground() {
	if !s.ix.HasVectors() {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	b := &backlog{kick: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	b.idle = sync.NewCond(&b.mu)
	s.mu.Lock()
	s.backlog = b
	s.mu.Unlock()
	go s.embedLoop(ctx, b)
	b.poke()
}

func (s *Service) embedLoop(ctx context.Context, b *backlog) {
	defer close(b.done)
	names, err := s.scope.searchable(nil)
	if err != nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
		}
		b.set(true)
		_, err := s.ix.EmbedBacklog(ctx, names, recall.BacklogOptions{Batch: backlogBatch})
		if err != nil && ctx.Err() == nil {
			s.warn(fmt.Sprintf("serve: embedding in the background: %v; the next change tries again", err))
		}
		b.set(false)
	}
}

// poke asks for a run; nil (no worker) ignores it.
func (b *backlog) poke() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kicked = true
	select {
	case b.kick <- struct{}{}:
	default: // a run is asked for already
	}
}

// set records whether a run is under way; a run's start took its kick,
// and another may be waiting already.
func (b *backlog) set(running bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running = running
	if running {
		b.kicked = len(b.kick) > 0
	}
	b.idle.Broadcast()
}

// wait returns once no run is under way or asked for.
func (b *backlog) wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.running || b.kicked {
		b.idle.Wait()
	}
}

// close stops the worker, cancelling a run under way, and waits for it.
func (b *backlog) close() {
	if b == nil {
		return
	}
	b.stop()
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running, b.kicked = false, false
	b.idle.Broadcast()
}
