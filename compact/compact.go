package compact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// LockName is the workspace-wide advisory lock a compaction holds.
const LockName = "compact"

// ErrLocked is returned when another compaction holds the workspace lock.
var ErrLocked = errors.New("another tmem compact is running on this workspace")

// Options configure a compaction. The zero value of every field but Now
// has a sensible default.
type Options struct {
	Teammates []string // empty means every teammate
	Episodic  bool     // daily → weekly → monthly
	Semantic  bool     // typed memories → WISDOM.md
	// DryRun plans without touching anything (a pending journal is
	// reported, not applied).
	DryRun bool

	Summarizer Summarizer // nil means Extractive{}
	Similarity Similarity // nil means Shingles{}
	Now        func() time.Time
	Log        io.Writer // progress lines; nil means none

	// KeepWeeks is how many weeks a weekly summary lives before it is
	// folded into its monthly; 0 means 52.
	KeepWeeks int
	// KeepRecentDays keeps dailies this recent even once their week has
	// a weekly summary, because the context builder injects them
	// directly; they are deleted by a later run. 0 means
	// layout.RecentDays; negative means none.
	KeepRecentDays int
	// WisdomBudget is WISDOM.md's size limit in tokens (chars/4); over it,
	// merges are proposed. 0 means 2000.
	WisdomBudget int
	// MinCluster is how many similar typed memories make a pattern; 0
	// means 2.
	MinCluster int
	// Threshold is the similarity at which a fact joins an existing typed
	// memory and memories cluster; 0 means 0.35.
	Threshold float64
	// EvolvingDays: typed memories changed this recently (or with
	// frontmatter status: active) are still evolving and never deleted;
	// 0 means 14.
	EvolvingDays int
	// WisdomTypes are the typed-memory types that distil into wisdom;
	// empty means feedback and project.
	WisdomTypes []string

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
	if o.Summarizer == nil {
		o.Summarizer = Extractive{Similarity: o.Similarity}
	}
	if o.Similarity == nil {
		o.Similarity = Shingles{}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.KeepWeeks == 0 {
		o.KeepWeeks = 52
	}
	if o.KeepRecentDays == 0 {
		o.KeepRecentDays = layout.RecentDays
	}
	if o.WisdomBudget == 0 {
		o.WisdomBudget = 2000
	}
	if o.MinCluster == 0 {
		o.MinCluster = 2
	}
	if o.Threshold == 0 {
		o.Threshold = 0.3
	}
	if o.EvolvingDays == 0 {
		o.EvolvingDays = 14
	}
	if len(o.WisdomTypes) == 0 {
		o.WisdomTypes = []string{"feedback", "project"}
	}
	return nil
}

// Plan is what a compaction will do: units applied in order.
type Plan struct {
	Units []Unit `json:"units"`
	// Failed are units that could not be planned (a summarizer error or
	// invalid output); their sources are kept.
	Failed []Failure `json:"failed,omitempty"`
	// Kept are files left in place on purpose, with why.
	Kept []Kept `json:"kept,omitempty"`
	// Proposals are WISDOM.md merges suggested because it is over budget.
	Proposals []Proposal `json:"proposals,omitempty"`
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
// since planning is kept and merged by a later run.
type Delete struct {
	Path string `json:"path"`
	SHA  string `json:"sha256"`
}

// Failure is a unit that was not done.
type Failure struct {
	Unit  string `json:"unit"`
	Error string `json:"error"`
}

// Kept is a file left in place on purpose.
type Kept struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Proposal suggests merging WISDOM.md entries to get under budget.
type Proposal struct {
	Teammate string   `json:"teammate"`
	Entries  []string `json:"entries"`
	Reason   string   `json:"reason"`
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
}

// Run compacts the workspace: it takes the workspace lock (or fails at
// once with ErrLocked), finishes any interrupted run's journal, plans,
// writes the plan to the journal and applies it. Recall re-syncs its index
// from the files on its next query, so nothing else needs telling.
func Run(ctx context.Context, ws *layout.Workspace, opts Options) (*Result, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	unlock, ok, err := ws.TryLock(LockName)
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	if !ok {
		return nil, ErrLocked
	}
	defer unlock()
	res := &Result{DryRun: opts.DryRun, Written: []string{}, Deleted: []string{}}
	j := journal{ws: ws, step: opts.afterStep}
	pending, err := j.load()
	if err != nil {
		return nil, err
	}
	if pending != nil {
		if opts.DryRun {
			res.Plan = pending
			res.Resumed = true
			return res, nil
		}
		fmt.Fprintf(opts.Log, "resuming an interrupted compaction (%d units)\n", len(pending.Units))
		if err := j.apply(ctx, pending, res); err != nil {
			return res, err
		}
		res.Resumed = true
	}
	names, err := teammates(ws, opts.Teammates)
	if err != nil {
		return res, err
	}
	p := &Plan{Units: []Unit{}}
	for _, name := range names {
		if err := planTeammate(ctx, ws, &opts, name, p); err != nil {
			return res, err
		}
	}
	res.Plan = p
	res.Kept = append(res.Kept, p.Kept...)
	if !opts.DryRun && len(p.Units) > 0 {
		if err := j.begin(p); err != nil {
			return res, err
		}
		if err := j.apply(ctx, p, res); err != nil {
			return res, err
		}
	}
	if n := len(p.Failed) + len(res.Failed); n > 0 {
		all := append(append([]Failure{}, p.Failed...), res.Failed...)
		return res, fmt.Errorf("compact: %d unit(s) failed, their sources are kept: %s: %s", n, all[0].Unit, all[0].Error)
	}
	return res, nil
}

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

// sum is the hex SHA-256 of b.
func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// fileSum returns the hash of the workspace file rel, "" when it does not
// exist.
func fileSum(ws *layout.Workspace, rel string) (string, []byte, error) {
	b, err := os.ReadFile(ws.Abs(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return sum(b), b, nil
}
