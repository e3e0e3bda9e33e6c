package main

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	memctx "github.com/tmemhq/tmem/context"
)

// The stages of a per-task call (tmem context, tmem recall) that -v times.
const (
	stageWorkspace = "workspace" // finding and opening the workspace
	stageIndex     = "index"     // opening, locking and syncing the recall indexes
	stageModel     = "model"     // loading the embedding model (aside), but for:
	stageRuntime   = "runtime"   // loading ONNX Runtime (aside)
	stageSession   = "session"   // starting its session (aside)
	stageTokenizer = "tokenizer" // waiting for the model's tokenizer (aside)
	stageEmbed     = "embed"     // embedding the query
	stageSearch    = "search"    // ranking and reading the hits
	stageTokens    = "tokens"    // counting tokens
	stageBuild     = "build"     // the rest of building the prompt stack
	stagePrint     = "print"     // writing the output
)

var stageOrder = []string{stageWorkspace, stageIndex, stageModel, stageRuntime, stageSession, stageTokenizer, stageEmbed, stageSearch, stageTokens, stageBuild, stagePrint}

// stages adds up the time spent in each stage, each exclusive of the
// stages that ran inside it, and the time of stages that may run aside,
// on another goroutine. A nil *stages times nothing.
type stages struct {
	started time.Time // when the process reached main
	mu      sync.Mutex
	open    []*frame
	d       map[string]time.Duration
	beside  map[string]time.Duration
}

type frame struct {
	start time.Time
	inner time.Duration // time in stages that ran inside this one
}

func newStages(started time.Time) *stages {
	return &stages{started: started, d: map[string]time.Duration{}, beside: map[string]time.Duration{}}
}

// aside starts a stage that may run on another goroutine, beside the
// others; the function it returns ends it. Its time is its own: it is not
// taken out of a stage that waits for it, nor out of "other".
func (s *stages) aside(name string) (end func()) {
	if s == nil {
		return func() {}
	}
	start := time.Now()
	return func() {
		d := time.Since(start)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.beside[name] += d
	}
}

// begin starts a stage; the function it returns ends it. Stages nest:
// one begun while another runs is counted in it, not in the outer one.
func (s *stages) begin(name string) (end func()) {
	if s == nil {
		return func() {}
	}
	fr := &frame{start: time.Now()}
	s.mu.Lock()
	s.open = append(s.open, fr)
	s.mu.Unlock()
	return func() {
		d := time.Since(fr.start)
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := len(s.open) - 1; i >= 0; i-- {
			if s.open[i] == fr {
				s.open = append(s.open[:i], s.open[i+1:]...)
				break
			}
		}
		s.d[name] += d - fr.inner
		if n := len(s.open); n > 0 {
			s.open[n-1].inner += d
		}
	}
}

// trace is recall's Options.Trace: its phases are stage names. What it
// runs in the background ("background embed": the query embedded ahead)
// overlaps the phases that wait for it and is not timed; the model's load
// in it is, aside.
func (s *stages) trace(phase string) (end func()) {
	if strings.HasPrefix(phase, "background ") {
		return func() {}
	}
	return s.begin(phase)
}

// line is the -v timing line: the time since main and each stage's
// share, in milliseconds; "other" is flag parsing and everything
// untimed. A stage timed aside shows its own time, which overlaps the
// others'.
func (s *stages) line() string {
	total := time.Since(s.started)
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	rest := total
	for _, name := range stageOrder {
		parts = append(parts, fmt.Sprintf("%s %s", name, ms(s.d[name]+s.beside[name])))
		rest -= s.d[name]
	}
	parts = append(parts, "other "+ms(rest))
	return fmt.Sprintf("timing: %s ms since main: %s", ms(total), strings.Join(parts, ", "))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

// perTaskGC readies the collector for a per-task call (context, recall):
// at twice the default GOGC the first collection waits for an 8 MB heap
// instead of 4 MB, which such a call on a typical workspace never
// reaches, so it exits without collecting; a larger workspace's heap
// peaks at three times what it holds live instead of two. tmem serve,
// whose every memory_context allocates a few MB, collects half as often
// for a few MB more RSS. A GOGC in the environment is left alone.
func (f *factory) perTaskGC() {
	if f.getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
}

// startTiming times this command's stages when -v is given.
func (f *factory) startTiming() {
	if f.verbose && !f.quiet {
		f.stages = newStages(f.started)
	}
}

// printTiming writes the timing line on stderr, when timing.
func (f *factory) printTiming() {
	if f.stages != nil {
		fmt.Fprintln(f.stderr, f.stages.line())
	}
}

// tokenizer times tok's counts as the tokens stage; without timing it is
// tok itself.
func (s *stages) tokenizer(tok memctx.Tokenizer) memctx.Tokenizer {
	if s == nil {
		return tok
	}
	return timedTokenizer{tok, s}
}

type timedTokenizer struct {
	memctx.Tokenizer
	s *stages
}

func (t timedTokenizer) Count(text string) int {
	defer t.s.begin(stageTokens)()
	return t.Tokenizer.Count(text)
}

// SplitsBetween passes tok's memctx.Splitter on, so that timing counts
// what an untimed call counts.
func (t timedTokenizer) SplitsBetween(left, right string) bool {
	s, ok := t.Tokenizer.(memctx.Splitter)
	return ok && s.SplitsBetween(left, right)
}
