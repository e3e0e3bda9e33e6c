package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	memctx "github.com/tmemhq/tmem/context"
)

type contextOptions struct {
	teammate  string
	budget    int
	tokenizer string
	format    string
	tz        string

	// Set by check from the flags above.
	asJSON bool
	tok    memctx.Tokenizer
	loc    *time.Location
}

func newContextCmd(f *factory) *cobra.Command {
	opts := &contextOptions{}
	cmd := &cobra.Command{
		Use:   "context --teammate NAME [--budget N] [--tokenizer NAME] [--format markdown|json] [TASK | -]",
		Short: "Print the prompt stack a teammate gets before a task",
		Long: `Print the prompt stack injected before a task, in this order: SOUL.md,
GOALS.md, WISDOM.md, memories recalled with the task text, recent daily
logs, session state, roster, memory update instructions, output protocol,
current date and time, and the task. With "-" the task is read from stdin.
Secrets found in the files are shown as [REDACTED:kind].

Recalled memories and daily logs share the memory budget (--budget tokens,
counted exactly with --tokenizer). Daily logs may use 3/4 of it: today's
log always goes in whole, then earlier entries newest first, whole, until
one does not fit; nothing older is tried after it. Recall gets the rest,
including what the daily logs leave unused; a memory that does not fit is
dropped whole. Every other section is outside the budget.

With --json (or --format json), print a manifest instead: each section with
its token count and sources, each daily entry and recalled memory with why
it was included or dropped, and the budget, with the stack itself in
"text", so one call gives both. The same input and --now give
byte-identical output.`,
		Example: `  tmem context --teammate beacon "Why are Norwave containers missing from search?"
  echo "Review the release notes" | tmem context --teammate quill --budget 16000 -
  tmem context --teammate atlas --json --now 2026-11-20T09:30:00Z --tz Europe/Berlin "Plan the demo"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.perTaskGC()
			f.startTiming()
			defer f.printTiming()
			if err := opts.check(f.json, cmd.Flags().Changed("format")); err != nil {
				return err
			}
			task, err := f.readArg(args)
			if err != nil {
				return err
			}
			return f.printStack(cmd.Context(), opts, task)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.teammate, "teammate", "", "teammate whose stack to build")
	fl.IntVar(&opts.budget, "budget", memctx.DefaultBudget, "memory budget in tokens, shared by recalled memories and daily logs")
	fl.StringVar(&opts.tokenizer, "tokenizer", memctx.DefaultTokenizer, "token counter: "+strings.Join(memctx.TokenizerNames(), ", ")+" (chars4 is a cheap estimate)")
	fl.StringVar(&opts.format, "format", "markdown", "output format: markdown or json (the manifest; same as --json)")
	fl.StringVar(&opts.tz, "tz", "", "time zone of today and of the stated time, an IANA name (default: local)")
	_ = cmd.RegisterFlagCompletionFunc("tokenizer", cobra.FixedCompletions(memctx.TokenizerNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"markdown", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// contextJSON is tmem context --json: the manifest, and the stack as text.
type contextJSON struct {
	memctx.Manifest
	Text string `json:"text"`
}

// check reads the flags: the budget, the output format (asJSON is --json;
// formatSet says --format was given), the tokenizer and the time zone.
func (o *contextOptions) check(asJSON, formatSet bool) error {
	if o.budget < memctx.MinBudget {
		return usageErrorf("--budget %d: want at least %d tokens", o.budget, memctx.MinBudget)
	}
	o.asJSON = asJSON
	switch o.format {
	case "markdown", "md":
		if asJSON && formatSet {
			return usageErrorf("--json and --format %s contradict each other", o.format)
		}
	case "json":
		o.asJSON = true
	default:
		return usageErrorf("--format %q: want markdown or json", o.format)
	}
	tok, err := memctx.NewTokenizer(o.tokenizer)
	if err != nil {
		return usageError{fmt.Errorf("--tokenizer: %w", err)}
	}
	o.tok = tok
	o.loc, err = zoneFlag(o.tz)
	return err
}

// zoneFlag reads a --tz value: the local zone when empty.
func zoneFlag(tz string) (*time.Location, error) {
	if tz == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, usageErrorf("--tz %q: not a time zone (want an IANA name such as Europe/Berlin, or UTC)", tz)
	}
	return loc, nil
}

// printStack builds the teammate's prompt stack for task and prints it. The
// builder's warnings go to stderr as they come; its other notes under -v.
func (f *factory) printStack(ctx context.Context, opts *contextOptions, task string) error {
	endWS := f.stages.begin(stageWorkspace)
	ws, err := f.workspaceFor(opts.teammate)
	endWS()
	if err != nil {
		return err
	}
	clock, err := f.ClockIn(opts.loc)
	if err != nil {
		return err
	}
	endIndex := f.stages.begin(stageIndex)
	rec, closeRecall, err := openRecaller(f, ws, task, opts.teammate)
	endIndex()
	if err != nil {
		return err
	}
	defer closeRecall()
	warned := map[string]bool{}
	endBuild := f.stages.begin(stageBuild)
	res, err := memctx.Build(ctx, ws, memctx.Options{
		Teammate: opts.teammate, Task: task, Budget: opts.budget, Tokenizer: f.stages.tokenizer(opts.tok),
		Now: clock, Location: opts.loc, Recaller: rec, IndexWait: f.lockWait,
		Warn: func(msg string) { warned[msg] = true; f.warnf("%s", msg) },
	})
	endBuild()
	if err != nil {
		return err
	}
	for _, n := range res.Manifest.Notes {
		if !warned[n] {
			f.infof("%s", n)
		}
	}
	defer f.stages.begin(stagePrint)()
	if opts.asJSON {
		return f.printJSON(contextJSON{Manifest: res.Manifest, Text: res.Text})
	}
	_, err = fmt.Fprint(f.stdout, res.Text)
	return err
}
