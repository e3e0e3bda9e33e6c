package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm"
)

type compactOptions struct {
	teammate    string
	all         bool
	episodic    bool
	semantic    bool
	dryRun      bool
	summarizer  string
	apply       string
	discard     string
	dropJournal bool
}

func newCompactCmd(f *factory) *cobra.Command {
	opts := &compactOptions{}
	cmd := &cobra.Command{
		Use:   "compact [--teammate NAME | --all] [--episodic] [--semantic] [--dry-run] [--summarizer extractive|command|openai]",
		Short: "Roll daily logs into weekly/monthly summaries and memories into WISDOM.md",
		Long: `Compact memory. The episodic pipeline turns each completed ISO week's daily
logs into memory/weekly/YYYY-Wnn.md (the current week is never touched),
files marked facts and lessons as typed memories, and folds weeklies older
than 52 weeks into memory/monthly/YYYY-MM.md. The semantic pipeline distils
typed memories that say the same thing into WISDOM.md entries. With neither
--episodic nor --semantic, both run.

What each mode keeps. By default nothing is lost: every daily, weekly and
typed memory that compaction takes out of memory/ is first copied, byte for
byte, into memory/archive/ (a file per month, and archive/typed/ for
absorbed memories), checked, and only then deleted; recall searches the
archive, and summaries and WISDOM.md cite where each source now is. With
compact.archive: false in .teammates/tmem.yaml, compaction deletes them as
the Teammates spec says: the summaries, typed memories and WISDOM.md are
then all that remains (and git history).

Summaries are honest: one bullet per entry (its heading and first full
sentence, never cut), decisions, lessons and facts word for word. A model
summarizer's text that its sources do not support is never written: the
unit is held as a proposal under .teammates/.tmp/compact/proposals/ and
listed; apply it with --apply ID or drop it with --discard ID.

Sources are deleted only after their summary is written and read back, and a
daily that gained an entry meanwhile is kept and merged by the next run. The
plan is journalled in .teammates/.tmp/compact/ first, so a run that was
killed is finished by the next one; --drop-journal drops an interrupted plan
that cannot be finished (always safe). Only one compaction runs per
workspace: a second one exits with code 4 at once.

Silent on success unless -v; exit 1 when anything failed (each failure is
named on stderr). SIGINT or SIGTERM stop the summarizer program and all it
started, and the run at a safe point (exit 130 or 143). Cron-friendly:
  17 3 * * 1  cd /path/to/project && tmem compact --all`,
		Example: `  tmem compact --all --dry-run
  tmem compact --teammate beacon --episodic -v
  tmem compact --all --summarizer command --json
  tmem compact --apply beacon/weekly/2026-W11`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notEmpty(cmd, "teammate", "apply", "discard", "summarizer"); err != nil {
				return err
			}
			if err := opts.check(); err != nil {
				return err
			}
			return f.runCompact(background(cmd), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.teammate, "teammate", "", "compact one teammate")
	fl.BoolVar(&opts.all, "all", false, "compact every teammate (the default)")
	fl.BoolVar(&opts.episodic, "episodic", false, "run the daily → weekly → monthly pipeline")
	fl.BoolVar(&opts.semantic, "semantic", false, "run the typed memories → WISDOM.md pipeline")
	fl.BoolVar(&opts.dryRun, "dry-run", false, "print the plan without touching anything (no summarizer program or endpoint is called)")
	fl.StringVar(&opts.summarizer, "summarizer", "", "extractive, command or openai (default: compact.summarizer in tmem.yaml, else extractive)")
	fl.StringVar(&opts.apply, "apply", "", "apply a held proposal (its unit ID, as listed)")
	fl.StringVar(&opts.discard, "discard", "", "drop a held proposal (its unit ID, as listed)")
	fl.BoolVar(&opts.dropJournal, "drop-journal", false, "drop an interrupted compaction that cannot be finished (safe: no source is deleted without its copy)")
	return cmd
}

func (o *compactOptions) check() error {
	if o.teammate != "" && o.all {
		return usageErrorf("--teammate and --all exclude each other")
	}
	if o.summarizer != "" && !slices.Contains(compact.Summarizers, o.summarizer) {
		return usageErrorf("--summarizer %q: want one of %s", o.summarizer, strings.Join(compact.Summarizers, ", "))
	}
	n := 0
	for _, on := range []bool{o.apply != "", o.discard != "", o.dropJournal} {
		if on {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("--apply, --discard and --drop-journal exclude each other")
	}
	return nil
}

// runCompact does what the flags ask: drop an interrupted journal, discard
// or apply a held proposal, or compact; SIGINT and SIGTERM stop it at a
// safe point.
func (f *factory) runCompact(parent context.Context, opts *compactOptions) error {
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	switch {
	case opts.dropJournal:
		return f.dropJournal(ws)
	case opts.discard != "":
		return compact.DiscardProposal(ws, opts.discard)
	}
	ctx, stop := f.stopOnSignal(parent)
	defer stop()
	o, vectors, err := f.compactOptions(ctx, ws, opts)
	if err != nil {
		return err
	}
	var res *compact.Result
	if opts.apply != "" {
		res, err = compact.ApplyProposal(ctx, ws, opts.apply, o)
	} else {
		res, err = compact.Run(ctx, ws, o)
	}
	if ierr := interrupted(ctx); ierr != nil {
		return fmt.Errorf("compact: %w (the next run takes up where it stopped)", ierr)
	}
	if vectors != nil && vectors.Err() != nil {
		f.warnf("compact: embedding model failed, clustered by word overlap instead: %v", vectors.Err())
	}
	if errors.Is(err, compact.ErrLocked) {
		return fmt.Errorf("%w: %v (try again when it finishes)", errLocked, err)
	}
	if perr := f.printCompact(res); perr != nil && err == nil {
		err = perr
	}
	return err
}

// compactOptions builds the library options from the flags, tmem.yaml and
// the embedding model (memories cluster by meaning when one is installed).
func (f *factory) compactOptions(ctx context.Context, ws *layout.Workspace, opts *compactOptions) (compact.Options, *compact.Vectors, error) {
	var names []string
	if opts.teammate != "" {
		if _, err := f.teammate(ws, opts.teammate); err != nil {
			return compact.Options{}, nil, err
		}
		names = []string{opts.teammate}
	}
	clock, err := f.Clock()
	if err != nil {
		return compact.Options{}, nil, err
	}
	cfg, err := compact.LoadConfig(ws)
	if err != nil {
		return compact.Options{}, nil, err
	}
	f.warnUnknownKeys(cfg)
	store, _ := trustStore() // none: nothing is trusted, and the refusal says so
	o, err := cfg.Options(ws, opts.summarizer, compact.SummarizerEnv{Getenv: f.getenv, Trust: store, DryRun: opts.dryRun})
	var ue *compact.UntrustedError
	if errors.As(err, &ue) {
		return compact.Options{}, nil, untrusted(err)
	}
	if err != nil {
		return compact.Options{}, nil, usageError{err}
	}
	o.Teammates, o.Episodic, o.Semantic, o.DryRun, o.Now = names, opts.episodic, opts.semantic, opts.dryRun, clock
	if f.verbose && !f.quiet {
		o.Log = f.stderr
	}
	emb, err := openEmbedder(f, f.model, minilm.WorkloadBulk)
	if err != nil || emb == nil {
		return o, nil, err
	}
	vectors := compact.NewVectors(ctx, emb)
	o.Similarity = vectors
	return o, vectors, nil
}

// warnUnknownKeys names on stderr each key of tmem.yaml that tmem ignores
// (unless -q, like compact's other notes): a typo there changes nothing,
// silently, on every run.
func (f *factory) warnUnknownKeys(cfg compact.Config) {
	for _, k := range cfg.UnknownKeys() {
		f.warnf("%s:%d: %s", k.Path, k.Line, k.Message)
	}
}

func (f *factory) dropJournal(ws *layout.Workspace) error {
	dropped, err := compact.DropJournal(ws)
	if errors.Is(err, compact.ErrLocked) {
		return fmt.Errorf("%w: %v (try again when it finishes)", errLocked, err)
	}
	if err == nil && dropped {
		f.infof("dropped the interrupted compaction; the next run plans afresh")
	} else if err == nil {
		f.infof("no interrupted compaction to drop")
	}
	return err
}

// printCompact reports a compaction: JSON under --json, the plan on stdout
// for --dry-run, and on stderr every failure (a dry run's too) and every
// proposal this run held (under -q too: a person must act on each, and
// cron mails only what is printed), then notes, and the rest under -v
// only.
func (f *factory) printCompact(res *compact.Result) error {
	switch {
	case res == nil:
		return nil
	case f.json:
		f.printFailures(res) // people read stderr, programs the JSON
		return f.printJSON(res)
	case res.DryRun:
		err := res.WriteDryRun(f.stdout)
		f.printFailures(res)
		return err
	}
	plan := res.Plan
	if plan == nil {
		plan = &compact.Plan{}
	}
	f.printFailures(res)
	for _, p := range plan.Proposals {
		f.errorf("compact %s: held: a model wrote %d sentence(s) its sources do not support (see %s); apply with 'tmem compact --apply %s' or drop with --discard", p.ID, len(p.Unsupported), p.File, p.ID)
	}
	for _, p := range res.Pending {
		f.warnf("compact %s: a model's summary is held for review in %s (tmem compact --apply %s, or --discard)", p.ID, p.File, p.ID)
	}
	for _, n := range res.Notes {
		f.warnf("compact: %s", n)
	}
	f.reportApplied(res, plan)
	return nil
}

// printFailures names on stderr every unit or file that failed.
func (f *factory) printFailures(res *compact.Result) {
	for _, l := range res.FailureLines() {
		f.errorf("compact %s", l)
	}
}

// reportApplied says under -v what a compaction did, and warns (unless
// -q) of an over-budget WISDOM.md: it goes whole into every prompt.
func (f *factory) reportApplied(res *compact.Result, plan *compact.Plan) {
	if res.Resumed {
		f.infof("finished an interrupted compaction")
	}
	f.infof("compacted: %d units, %d files written, %d deleted", len(plan.Units), len(res.Written), len(res.Deleted))
	for _, c := range res.Cleaned {
		f.infof("removed %s, left by an interrupted write", c)
	}
	for _, k := range res.Kept {
		f.infof("kept %s: %s", k.Path, k.Reason)
	}
	for _, m := range plan.Merges {
		f.warnf("%s", m) // WISDOM.md goes whole into every prompt
	}
}
