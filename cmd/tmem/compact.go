package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/compact"
)

type compactOptions struct {
	teammate   string
	all        bool
	episodic   bool
	semantic   bool
	dryRun     bool
	summarizer string
}

func newCompactCmd(f *factory) *cobra.Command {
	opts := &compactOptions{}
	cmd := &cobra.Command{
		Use:   "compact [--teammate NAME | --all] [--episodic] [--semantic] [--dry-run] [--summarizer extractive|command|openai]",
		Short: "Roll daily logs into weekly/monthly summaries and memories into WISDOM.md",
		Long: `Compact memory. The episodic pipeline turns each completed ISO week's daily
logs into memory/weekly/YYYY-Wnn.md (the current week is never touched),
extracts durable facts and lessons as typed memories, and folds weeklies older
than 52 weeks into memory/monthly/YYYY-MM.md. The semantic pipeline distils
typed memories that say the same thing into WISDOM.md entries and deletes the
memories it fully absorbed. With neither --episodic nor --semantic, both run.

Sources are deleted only after their summary is written and read back, and a
daily that gained an entry meanwhile is kept and merged by the next run. The
plan is journalled in .teammates/.tmp/compact/ first, so a run that was
killed is finished by the next one. Only one compaction runs per workspace:
a second one exits with code 4 at once. Recall re-syncs its index from the
files on its next query.

The summarizer is extractive (offline, deterministic) unless --summarizer or
compact.summarizer in .teammates/tmem.yaml says command or openai.

Silent on success unless -v; cron-friendly:
  17 3 * * 1  cd /path/to/project && tmem compact --all`,
		Example: `  tmem compact --all --dry-run
  tmem compact --teammate beacon --episodic -v
  tmem compact --all --summarizer command --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.teammate != "" && opts.all {
				return usageErrorf("--teammate and --all exclude each other")
			}
			if opts.summarizer != "" && !slices.Contains(compact.Summarizers, opts.summarizer) {
				return usageErrorf("--summarizer %q: want one of %s", opts.summarizer, strings.Join(compact.Summarizers, ", "))
			}
			ws, err := f.Workspace()
			if err != nil {
				return err
			}
			var names []string
			if opts.teammate != "" {
				if _, err := f.teammate(ws, opts.teammate); err != nil {
					return err
				}
				names = []string{opts.teammate}
			}
			clock, err := f.Clock()
			if err != nil {
				return err
			}
			cfg, err := compact.LoadConfig(ws)
			if err != nil {
				return err
			}
			o, err := cfg.Options(ws, opts.summarizer, f.getenv)
			if err != nil {
				return usageError{err}
			}
			o.Teammates, o.Episodic, o.Semantic, o.DryRun, o.Now = names, opts.episodic, opts.semantic, opts.dryRun, clock
			// With a model installed, memories cluster by meaning; lines
			// within a week are still merged by word overlap, which is cheap.
			emb, err := openEmbedder(f, f.model)
			if err != nil {
				return err
			}
			var vectors *compact.Vectors
			if emb != nil {
				if o.Summarizer == nil {
					o.Summarizer = compact.Extractive{}
				}
				vectors = compact.NewVectors(cmd.Context(), emb)
				o.Similarity = vectors
			}
			if f.verbose && !f.quiet {
				o.Log = f.stderr
			}
			res, err := compact.Run(cmd.Context(), ws, o)
			if vectors != nil && vectors.Err() != nil {
				f.warnf("compact: embedding model failed, clustered by word overlap instead: %v", vectors.Err())
			}
			if errors.Is(err, compact.ErrLocked) {
				return fmt.Errorf("%w: %v (try again when it finishes)", errLocked, err)
			}
			if res != nil {
				if perr := f.printCompact(res); perr != nil && err == nil {
					err = perr
				}
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.teammate, "teammate", "", "compact one teammate")
	fl.BoolVar(&opts.all, "all", false, "compact every teammate (the default)")
	fl.BoolVar(&opts.episodic, "episodic", false, "run the daily → weekly → monthly pipeline")
	fl.BoolVar(&opts.semantic, "semantic", false, "run the typed memories → WISDOM.md pipeline")
	fl.BoolVar(&opts.dryRun, "dry-run", false, "print the plan without touching anything")
	fl.StringVar(&opts.summarizer, "summarizer", "", "extractive, command or openai (default: compact.summarizer in tmem.yaml, else extractive)")
	return cmd
}

// printCompact reports a compaction: JSON under --json, the plan on stdout
// for --dry-run, else a summary on stderr under -v only.
func (f *factory) printCompact(res *compact.Result) error {
	switch {
	case f.json:
		return f.printJSON(res)
	case res.DryRun:
		if res.Resumed {
			fmt.Fprintln(f.stdout, "an interrupted compaction is pending; the next run finishes it first:")
		}
		return res.Plan.WriteText(f.stdout)
	}
	for _, fl := range append(append([]compact.Failure{}, res.Plan.Failed...), res.Failed...) {
		f.warnf("compact %s: %s", fl.Unit, fl.Error)
	}
	if res.Resumed {
		f.infof("finished an interrupted compaction")
	}
	f.infof("compacted: %d units, %d files written, %d deleted", len(res.Plan.Units), len(res.Written), len(res.Deleted))
	for _, k := range res.Kept {
		f.infof("kept %s: %s", k.Path, k.Reason)
	}
	for _, p := range res.Plan.Proposals {
		f.infof("propose merging %s WISDOM.md entries %q: %s", p.Teammate, p.Entries, p.Reason)
	}
	return nil
}
