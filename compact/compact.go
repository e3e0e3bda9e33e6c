package compact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"syscall"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// LockName is the workspace-wide advisory lock a compaction holds alone
// while it plans and applies, and dry runs share while they plan.
const LockName = "compact"

// RunLockName is the workspace-wide lock a compaction that writes holds
// from its start, so that a second one fails at once rather than waiting
// as it does for dry runs.
const RunLockName = "compact-run"

// dryRunWait bounds how long a compaction waits for the dry runs under
// way (they only read, and take seconds at most) to let go of LockName.
const dryRunWait = time.Minute

// ErrLocked is returned when another compaction holds the workspace lock.
var ErrLocked = errors.New("another tmem compact is running on this workspace")

// Options configure a compaction. The zero value of every field but Now
// has a sensible default.
type Options struct {
	Teammates []string // empty means every teammate
	Episodic  bool     // daily → weekly → monthly
	Semantic  bool     // typed memories → WISDOM.md
	// DryRun plans without touching anything (a pending journal is
	// reported, not applied). A summarizer that runs a program or calls
	// an endpoint is not used: the plan shows extractive summaries.
	DryRun bool
	// NoArchive deletes what compaction removes instead of keeping it in
	// memory/archive/ (the spec's plain deletion).
	NoArchive bool

	Summarizer Summarizer // nil means Extractive{}
	Similarity Similarity // nil means Shingles{}
	Now        func() time.Time
	// FileClock is the real clock that file times are compared with
	// (Now may be set to another day); nil means time.Now.
	FileClock func() time.Time
	Log       io.Writer // progress lines; nil means none

	// KeepWeeks is how many weeks a weekly summary lives before it is
	// folded into its monthly; 0 means 52.
	KeepWeeks int
	// KeepRecentDays keeps dailies this recent even once their week has
	// a weekly summary, because the context builder injects them
	// directly; they are deleted by a later run. 0 means
	// layout.RecentDays; negative means none.
	KeepRecentDays int
	// KeepStubDays is how old a compacted daily's stub (see
	// layout.DailyStub) gets before a run deletes it: until then a git
	// merge of an entry another machine appended to that day runs the
	// merge driver instead of stopping on a modify/delete conflict. 0
	// means 28; negative means no stubs (compacted dailies are deleted).
	KeepStubDays int
	// WisdomBudget is WISDOM.md's size limit in tokens (chars/4); over it,
	// merges are suggested. 0 means 2000.
	WisdomBudget int
	// WeeklyBudget and MonthlyBudget limit a summary's size in tokens
	// (chars/4); 0 means DefaultWeeklyBudget and DefaultMonthlyBudget.
	WeeklyBudget, MonthlyBudget int
	// MinCluster is how many similar typed memories make a pattern; 0
	// means 2.
	MinCluster int
	// Threshold is the similarity at which typed memories cluster into a
	// WISDOM.md entry; 0 means 0.3.
	Threshold float64
	// FactThreshold is the similarity at which an extracted fact is added
	// to an existing typed memory instead of starting its own: facts merge
	// only when they say the same thing. 0 means 0.8.
	FactThreshold float64
	// EvolvingDays: typed memories changed this recently (or with
	// frontmatter status: active) are still evolving and never deleted;
	// 0 means 14.
	EvolvingDays int
	// WisdomTypes are the typed-memory types that distil into wisdom;
	// empty means feedback and project.
	WisdomTypes []string
	// MaxFailures is how many summarizer calls may fail in a row (an
	// endpoint down, a program missing) before the run stops asking; 0
	// means 3.
	MaxFailures int

	// only, when set, restricts planning to one unit (applying a
	// proposal); replay answers its summaries.
	only   string
	replay map[string]string
	held   map[string]held // answers kept in proposals
	// summarizer is Summarizer, or its stand-in for a dry run.
	summarizer Summarizer
	failures   int
	// afterStep, when set, is called after each durable step of the
	// apply phase (tests kill the process there).
	afterStep func(step int)
}

func (o *Options) defaults() error {
	if o.Now == nil {
		return errors.New("compact: Options.Now is required")
	}
	if !o.Episodic && !o.Semantic {
		o.Episodic, o.Semantic = true, true
	}
	if o.Similarity == nil {
		o.Similarity = Shingles{}
	}
	if o.Summarizer == nil {
		o.Summarizer = Extractive{Similarity: o.Similarity}
	}
	o.summarizer = o.Summarizer
	if o.DryRun && !o.trusted() {
		o.summarizer = Extractive{Similarity: o.Similarity}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.FileClock == nil {
		o.FileClock = time.Now
	}
	setDefault(&o.KeepWeeks, 52)
	setDefault(&o.KeepRecentDays, layout.RecentDays)
	setDefault(&o.KeepStubDays, 28)
	setDefault(&o.WisdomBudget, 2000)
	setDefault(&o.WeeklyBudget, DefaultWeeklyBudget)
	setDefault(&o.MonthlyBudget, DefaultMonthlyBudget)
	setDefault(&o.MinCluster, 2)
	setDefault(&o.EvolvingDays, 14)
	setDefault(&o.MaxFailures, 3)
	if o.Threshold == 0 {
		o.Threshold = 0.3
	}
	if o.FactThreshold == 0 {
		o.FactThreshold = 0.8
	}
	if len(o.WisdomTypes) == 0 {
		o.WisdomTypes = []string{"feedback", "project"}
	}
	return nil
}

func setDefault(v *int, d int) {
	if *v == 0 {
		*v = d
	}
}

// trusted reports whether summaries come from the extractive summarizer,
// whose text is the sources' own words.
func (o *Options) trusted() bool { return isExtractive(o.Summarizer) }

func (o *Options) archive() bool { return !o.NoArchive }

// stopped reports whether the summarizer failed too often to go on.
func (o *Options) stopped() bool { return o.failures >= o.MaxFailures }

// plans reports whether the unit id is to be planned in this run.
func (o *Options) plans(id string) bool { return o.only == "" || o.only == id }

// Plan is what a compaction will do: units applied in order.
type Plan struct {
	Units []Unit `json:"units"`
	// Failed are units that could not be planned (a summarizer error or
	// invalid output) and files that could not be read; their sources
	// are kept.
	Failed []Failure `json:"failed,omitempty"`
	// Kept are files left in place on purpose, with why.
	Kept []Kept `json:"kept,omitempty"`
	// Proposals are units held back because a model wrote text its
	// sources do not support; a person applies one with
	// `tmem compact --apply ID`.
	Proposals []Proposal `json:"proposals,omitempty"`
	// Merges are WISDOM.md merges suggested because it is over budget.
	Merges []MergeSuggestion `json:"merge_suggestions,omitempty"`
	// Notes say what planning left out on purpose (a secret a summary
	// would have quoted).
	Notes []string `json:"notes,omitempty"`
}

// Unit is one step of a plan that succeeds or fails as a whole: its
// writes land first, then its deletes, under the teammate's lock.
type Unit struct {
	ID       string   `json:"id"`   // "beacon/weekly/2026-W11"
	Kind     Kind     `json:"kind"` // weekly, monthly, wisdom
	Teammate string   `json:"teammate"`
	Writes   []Write  `json:"writes,omitempty"`
	Deletes  []Delete `json:"deletes,omitempty"`
}

// Write replaces Path, whose content hash must still be Before ("" for a
// file that must not exist), with Content.
type Write struct {
	Path    string `json:"path"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after"`
	Content string `json:"content,omitempty"`
}

// Delete removes Path if its content hash is still SHA; a file that changed
// since planning is kept and merged by a later run. When Archive is set,
// the file is deleted only once that archive file holds a copy that
// restores it exactly. When Stub is set, the file is replaced by it
// instead of removed (a compacted daily's stub, see layout.DailyStub).
type Delete struct {
	Path    string `json:"path"`
	SHA     string `json:"sha256"`
	Archive string `json:"archive,omitempty"`
	Stub    string `json:"stub,omitempty"`
}

// Failure is a unit that was not done.
type Failure struct {
	Unit  string `json:"unit"`
	Error string `json:"error"`
	// locked: a teammate left out because another process held its lock
	locked bool
	// after is, for a unit not applied because an earlier one of its
	// teammate failed, that unit.
	after string
}

// Kept is a file left in place on purpose.
type Kept struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// MergeSuggestion suggests merging WISDOM.md entries to get under budget.
type MergeSuggestion struct {
	Teammate string `json:"teammate"`
	// Kind is "merge" (the two Entries) or "shorten" (the one entry,
	// like no other, by hand).
	Kind    string   `json:"kind"`
	Entries []string `json:"entries"`
	Reason  string   `json:"reason"`
}

// String is the suggestion as compact prints it: a merge of two entries,
// or one entry like no other to shorten by hand.
func (m MergeSuggestion) String() string {
	if m.Kind == "shorten" {
		return fmt.Sprintf("suggest shortening %s's WISDOM.md entry %q: %s", m.Teammate, m.Entries[0], m.Reason)
	}
	return fmt.Sprintf("suggest merging %s's WISDOM.md entries %q: %s", m.Teammate, m.Entries, m.Reason)
}

// Result is what a compaction did.
type Result struct {
	DryRun  bool     `json:"dry_run"`
	Resumed bool     `json:"resumed"` // an interrupted run's journal was finished first
	Plan    *Plan    `json:"plan"`
	Written []string `json:"written"`
	Deleted []string `json:"deleted"`
	// Failed adds units aborted while applying (a file changed under
	// them) to the plan's failures.
	Failed []Failure `json:"failed,omitempty"`
	Kept   []Kept    `json:"kept,omitempty"`
	// Cleaned are temp files of interrupted writes that were removed.
	Cleaned []string `json:"cleaned,omitempty"`
	// Notes say what the run did differently from what was asked.
	Notes []string `json:"notes,omitempty"`
	// Pending are proposals kept from earlier runs that this run did not
	// hold again (a run with another summarizer, a dry run).
	Pending []Proposal `json:"pending,omitempty"`
}

// ErrStopped is wrapped by the error of a run that stopped asking its
// summarizer after Options.MaxFailures failures in a row.
var ErrStopped = errors.New("the summarizer failed too many times in a row")

// Run compacts the workspace: it takes the workspace lock (or fails at
// once with ErrLocked), finishes any interrupted run's journal, plans,
// writes the plan to the journal and applies it. Recall re-syncs its index
// from the files on its next query, so nothing else needs telling.
func Run(ctx context.Context, ws *layout.Workspace, opts Options) (*Result, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	res := &Result{DryRun: opts.DryRun, Plan: &Plan{Units: []Unit{}}, Written: []string{}, Deleted: []string{}}
	unlock, err := lockRun(ctx, ws, &opts, res)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if opts.DryRun && opts.summarizer != opts.Summarizer {
		res.Notes = append(res.Notes, "dry run: summaries are shown as the extractive summarizer writes them; the configured summarizer was not run")
	}
	j := journal{ws: ws, step: opts.afterStep}
	if done, err := resume(ctx, &j, &opts, res); done || err != nil {
		return res, err
	}
	names, err := teammates(ws, opts.Teammates)
	if err != nil {
		return res, err
	}
	if !opts.DryRun {
		if names, err = cleanAndSkipLocked(ctx, ws, names, opts.FileClock(), res); err != nil {
			return res, err
		}
	}
	if opts.only == "" && !opts.DryRun {
		if opts.held, err = loadHeld(ws); err != nil {
			res.Notes = append(res.Notes, err.Error())
		}
	}
	stop := plan(ctx, ws, &opts, names, res.Plan)
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("compact: stopped before writing anything: %w", err)
	}
	res.Kept = append(res.Kept, res.Plan.Kept...)
	res.Notes = append(res.Notes, res.Plan.Notes...)
	if !opts.DryRun {
		if err := saveProposals(ws, res.Plan); err != nil {
			return res, err
		}
		if len(res.Plan.Units) > 0 {
			if err := j.begin(res.Plan); err != nil {
				return res, err
			}
			if err := j.apply(ctx, res.Plan, res); err != nil {
				return res, err
			}
		}
	}
	if err := settleProposals(ws, res); err != nil {
		res.Notes = append(res.Notes, err.Error())
	}
	if stop != nil {
		return res, stop
	}
	return res, failures(res)
}

// lockRun takes the locks of a run. Dry runs share LockName (see
// lockDryRun). A compaction takes RunLockName (ErrLocked at once while
// another compaction runs), then LockName alone, waiting up to dryRunWait
// for the dry runs under way, so that a plan asked for as a cron job
// starts does not make the job fail.
func lockRun(ctx context.Context, ws *layout.Workspace, opts *Options, res *Result) (unlock func(), err error) {
	if opts.DryRun {
		return lockDryRun(ws, res)
	}
	fl, err := ws.WorkspaceLock(LockName)
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	unlockRun, ok, err := ws.TryLockWorkspace(RunLockName)
	if err != nil || !ok {
		return nil, lockFailed(err)
	}
	ok, err = fl.TryLock()
	if err == nil && !ok {
		fmt.Fprintf(opts.Log, "compact: waiting for the dry runs under way (at most %s)\n", dryRunWait)
		err = layout.WaitLock(ctx, fl, false, dryRunWait, dryRunWait, func() {})
	}
	if err != nil {
		unlockRun()
		if errors.Is(err, layout.ErrLocked) {
			return nil, fmt.Errorf("%w: waited %s for %s/.tmp/locks/workspace-%s.lock, held by dry runs or an older tmem", ErrLocked, dryRunWait, layout.DirName, LockName)
		}
		return nil, fmt.Errorf("compact: %w", err)
	}
	return func() { fl.Unlock(); unlockRun() }, nil
}

// lockDryRun shares LockName with other dry runs, so that plans asked for
// at the same time (by agents over MCP, say) do not refuse each other, and
// fails at once (ErrLocked) while a compaction holds it. In a workspace
// this user cannot write (a read-only checkout, another user's folder),
// where the lock file cannot be made or opened, it plans without the
// lock, since a dry run writes nothing, and notes so in res.
func lockDryRun(ws *layout.Workspace, res *Result) (unlock func(), err error) {
	fl, err := ws.WorkspaceLock(LockName)
	ok := false
	if err == nil {
		ok, err = fl.TryRLock()
	}
	switch {
	case err != nil && unwritable(err):
		res.Notes = append(res.Notes, fmt.Sprintf("the workspace cannot be written (%v): planned without the compaction lock, so a compaction running meanwhile can make this plan out of date", err))
		return func() {}, nil
	case err != nil || !ok:
		return nil, lockFailed(err)
	}
	return func() { fl.Unlock() }, nil
}

// lockFailed is the error of a lock not taken: ErrLocked when another
// process holds it.
func lockFailed(err error) error {
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	return ErrLocked
}

// unwritable reports whether err means the workspace cannot be written:
// permissions or a read-only mount.
func unwritable(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// resume finishes an interrupted run's journal first; under DryRun it only
// reports it. done is true when the run should stop there.
func resume(ctx context.Context, j *journal, opts *Options, res *Result) (done bool, err error) {
	pending, err := j.load()
	if err != nil || pending == nil {
		return false, err
	}
	res.Resumed = true
	if opts.DryRun {
		res.Plan = pending
		return true, nil
	}
	fmt.Fprintf(opts.Log, "resuming an interrupted compaction (%d units)\n", len(pending.Units))
	if err := j.apply(ctx, pending, res); err != nil {
		return true, fmt.Errorf("%w\nthe interrupted compaction could not be finished; if this keeps failing, 'tmem compact --drop-journal' drops it safely (no source was deleted without its archive copy)", err)
	}
	if len(res.Failed) > 0 {
		return true, failures(res) // the next run plans them afresh
	}
	return false, nil
}

// plan plans every teammate into p. It returns an error only when the
// summarizer failed too often to go on; what was planned until then is
// still in p.
func plan(ctx context.Context, ws *layout.Workspace, opts *Options, names []string, p *Plan) error {
	for _, name := range names {
		if ctx.Err() != nil {
			return nil // Run sees it
		}
		err := planTeammate(ctx, ws, opts, name, p)
		if opts.stopped() || errors.Is(err, ErrStopped) {
			last := "?"
			if n := len(p.Failed); n > 0 {
				last = p.Failed[n-1].Error
			}
			return fmt.Errorf("compact: stopped after %d summarizer failures in a row; what was planned before is applied, everything else is kept for the next run: %s", opts.failures, last)
		}
		if err != nil {
			p.Failed = append(p.Failed, Failure{Unit: name, Error: err.Error()})
		}
	}
	return nil
}

// failures turns what failed into the run's error.
func failures(res *Result) error {
	all := append(append([]Failure{}, res.Plan.Failed...), res.Failed...)
	if len(all) == 0 {
		return nil
	}
	err := fmt.Errorf("compact: 1 unit or file failed, its sources are kept: %s", all[0])
	if len(all) > 1 {
		err = fmt.Errorf("compact: %d units or files failed, their sources are kept; the first: %s", len(all), all[0])
	}
	for _, f := range all {
		if f.locked {
			return lockedError{err}
		}
	}
	return err
}

// lockedError is the error of a run that left a teammate out because
// another process held its lock: it is layout.ErrLocked too, so that the
// run exits as locked (4) once it has compacted the others.
type lockedError struct{ error }

func (e lockedError) Unwrap() []error { return []error{e.error, layout.ErrLocked} }

func teammates(ws *layout.Workspace, want []string) ([]string, error) {
	if len(want) > 0 {
		for _, n := range want {
			if _, err := ws.Teammate(n); err != nil {
				return nil, err
			}
		}
		out := append([]string(nil), want...)
		sort.Strings(out)
		return out, nil
	}
	all, err := ws.Teammates()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range all {
		out = append(out, t.Name)
	}
	return out, nil
}

// fileSum returns the hash of the workspace file rel, "" when it does not
// exist.
func fileSum(ws *layout.Workspace, rel string) (string, []byte, error) {
	b, err := ws.ReadFile(rel, layout.MaxArchiveSize)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return sum(b), b, nil
}
