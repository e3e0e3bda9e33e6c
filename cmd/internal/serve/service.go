package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

// Options configure a Service.
type Options struct {
	Workspace *layout.Workspace
	// Index is the recall index the service searches; the service does
	// not close it.
	Index *recall.Index
	// Now is the clock; required.
	Now func() time.Time
	// Location is the time zone of "today" in memory_context; nil means
	// Now's own.
	Location *time.Location
	// Teammate binds the session to one teammate; "" serves everyone.
	Teammate string
	// Lead lets a bound session read every teammate; a teammate whose
	// SOUL.md says "lead: true" is a lead without it.
	Lead bool
	// FileClock, when set, is the wall clock (never a fixed one) that
	// lets memory_context keep parsed files between calls under their stat
	// data (see memctx.Cache); nil reads them on every call.
	FileClock func() time.Time
	// Warn receives notices (a watcher that could not start, a context
	// build that lost something); nil discards them.
	Warn func(msg string)
	// Version is reported to clients.
	Version string
	// IndexWait bounds memory_context's wait for an index another call or
	// process holds; 0 means memctx.DefaultIndexWait.
	IndexWait time.Duration
}

// Service answers memory tool calls for one workspace.
type Service struct {
	ws    *layout.Workspace
	ix    *recall.Index
	now   func() time.Time
	loc   *time.Location
	wait  time.Duration // memory_context's wait for an index
	scope scope
	warn  func(string)
	ver   string
	fresh *freshness
	files *memctx.Cache // nil without Options.FileClock
	// barrier, set by Watch, makes sure the watcher has reported every
	// change made before a search that would skip its sync.
	barrier *barrier

	mu        sync.Mutex
	toks      map[string]memctx.Tokenizer // loaded once: a BPE vocabulary costs ~30 ms
	closing   bool                        // Close began: no new writes
	writes    sync.WaitGroup              // writes under way
	stopWatch func()                      // stops the watcher, if one runs
	backlog   *backlog                    // the background embedder, if one runs
}

// New checks the options (the bound teammate must exist) and returns a
// Service. Call Watch to follow file changes instead of syncing on every
// search.
func New(opts Options) (*Service, error) {
	if opts.Workspace == nil || opts.Index == nil || opts.Now == nil {
		return nil, errors.New("serve: workspace, index and clock are required")
	}
	sc := scope{teammate: opts.Teammate, lead: opts.Lead}
	if sc.bound() {
		if _, err := opts.Workspace.Teammate(opts.Teammate); err != nil {
			return nil, fmt.Errorf("serve --teammate: %w", err)
		}
		sc.lead = sc.lead || IsLead(opts.Workspace, opts.Teammate)
	}
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	s := &Service{
		ws: opts.Workspace, ix: opts.Index, now: opts.Now, loc: opts.Location, wait: opts.IndexWait, scope: sc,
		warn: warn, ver: opts.Version, fresh: newFreshness(), toks: map[string]memctx.Tokenizer{},
	}
	if opts.FileClock != nil {
		s.files = memctx.NewCache(opts.FileClock)
	}
	return s, nil
}

// Teammate is the teammate the session is bound to ("" for none), and
// Lead whether it may read every teammate.
func (s *Service) Teammate() string { return s.scope.teammate }

// Lead reports whether the session may read every teammate's memory.
func (s *Service) Lead() bool { return !s.scope.bound() || s.scope.lead }

// tokenizer returns the named tokenizer, loading it once.
func (s *Service) tokenizer(name string) (memctx.Tokenizer, error) {
	if name == "" {
		name = memctx.DefaultTokenizer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.toks[name]; ok {
		return t, nil
	}
	t, err := memctx.NewTokenizer(name)
	if err != nil {
		return nil, err
	}
	s.toks[name] = t
	return t, nil
}

// checkTeammate says whether name is a teammate of the workspace.
func (s *Service) checkTeammate(name string) error {
	if err := layout.ValidateName(name); err != nil {
		return err
	}
	_, err := s.ws.Teammate(name)
	return err
}

// search runs a recall query, syncing the index first only when files
// changed since the last sync of the same teammates (or always, when
// nothing watches the files).
func (s *Service) search(ctx context.Context, q recall.Query) ([]recall.Hit, error) {
	key, gen, clean := s.fresh.check(q.Teammates, s.now())
	if clean && s.barrier.pass() {
		key, gen, clean = s.fresh.check(q.Teammates, s.now())
	} else {
		clean = false
	}
	q.NoSync = clean
	hits, err := s.ix.Search(ctx, q)
	if err == nil && !clean {
		s.fresh.synced(key, gen)
		s.pokeBacklog() // the sync may have left chunks without vectors
	}
	return hits, err
}

func (s *Service) pokeBacklog() {
	s.mu.Lock()
	b := s.backlog
	s.mu.Unlock()
	b.poke()
}

// recaller adapts the service's search to the context builder.
type recaller struct{ s *Service }

func (r recaller) Search(ctx context.Context, q recall.Query) ([]recall.Hit, error) {
	return r.s.search(ctx, q)
}

func (r recaller) HasVectors() bool { return r.s.ix.HasVectors() }

// Warm syncs the index of the teammates the session searches by default,
// so that the first call does not pay for it. A failure is left for that
// call to report.
func (s *Service) Warm(ctx context.Context) {
	names, err := s.scope.searchable(nil)
	if err != nil {
		return
	}
	key, gen, _ := s.fresh.check(names, s.now())
	if _, err := s.ix.Sync(ctx, names); err == nil {
		s.fresh.synced(key, gen)
	}
	s.pokeBacklog()
}

// localNow is the clock in the server's zone: memory_log writes to the
// daily of the day memory_context calls today.
func (s *Service) localNow() time.Time {
	if s.loc != nil {
		return s.now().In(s.loc)
	}
	return s.now()
}
