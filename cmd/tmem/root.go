package main

import (
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func newRootCmd(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "tmem",
		Short: "File-first Markdown memory for AI teammates",
		Long: `tmem keeps each teammate's memory in plain Markdown under .teammates/:
daily logs, typed memories, weekly and monthly summaries and WISDOM.md.
It recalls relevant memories, builds the prompt stack before each task,
and compacts old logs into summaries.

` + exitCodesHelp,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate(versionTemplate)
	root.SetOut(f.stdout)
	root.SetErr(f.stderr)
	root.SetIn(f.stdin)
	pf := root.PersistentFlags()
	pf.StringVar(&f.dir, "dir", "", "workspace: a .teammates folder or the folder holding one (default: $TMEM_DIR, else search upwards)")
	pf.BoolVar(&f.json, "json", false, "print machine-readable JSON on stdout")
	pf.StringVar(&f.now, "now", "", "the current time, RFC 3339 or YYYY-MM-DD (default: $TMEM_NOW, else the clock)")
	pf.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing but data and errors")
	pf.BoolVarP(&f.verbose, "verbose", "v", false, "print progress detail on stderr")
	pf.StringVar(&f.lockWaitFlag, "lock-wait", "", "how long to wait for a lock another tmem call or process holds, such as 5s; 0 tries once (default: $TMEM_LOCK_WAIT, else 30s for a teammate's files, 1m for an index, 5s for context's index)")
	pf.StringVar(&f.model, "model", "", "embedding model folder (default: $TMEM_MODEL, else the user cache folder; none installed means BM25-only recall)")
	root.MarkFlagsMutuallyExclusive("quiet", "verbose")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return f.checkGlobalFlags(cmd) }

	root.AddCommand(
		newInitCmd(f),
		newLogCmd(f),
		newRememberCmd(f),
		newListCmd(f),
		newShowCmd(f),
		newDoctorCmd(f),
		newMergeDriverCmd(f),
		newModelCmd(f),
		newContextCmd(f),
		newCompactCmd(f),
		newTrustCmd(f),
		newRecallCmd(f),
		newIndexCmd(f),
		newEvalCmd(f),
		newBenchCmd(f),
		newServeCmd(f),
	)
	root.InitDefaultCompletionCmd()
	refuseUnknownSubcommands(root)
	return root
}

// checkGlobalFlags refuses, whatever the command, a global flag that
// cannot mean what was meant: an empty --dir (an unset variable in --dir
// "$WS") would mean "search upwards" and reach whichever workspace is
// found there, an empty --now the wall clock, and an unreadable --now or
// $TMEM_NOW would pass unnoticed by commands that never read the clock.
func (f *factory) checkGlobalFlags(cmd *cobra.Command) error {
	if err := notEmpty(cmd, "dir", "now", "lock-wait"); err != nil {
		return err
	}
	if err := f.readLockWait(); err != nil {
		return err
	}
	_, err := f.Now() // --now, else $TMEM_NOW
	return err
}

// notEmpty refuses the named flags when given with an empty value: left
// out, they widen what a command does, and an unset variable in
// --teammate "$NAME" must not serve or compact every teammate.
func notEmpty(cmd *cobra.Command, names ...string) error {
	for _, name := range names {
		fl := cmd.Flags().Lookup(name)
		if fl == nil || !fl.Changed {
			continue
		}
		if v := fl.Value.String(); v == "" || v == "[]" && fl.Value.Type() == "stringSlice" {
			return usageErrorf("--%s is empty: give a value, or leave the flag out", name)
		}
	}
	return nil
}

// refuseUnknownSubcommands makes every command that only groups others
// (model, bench, completion) fail with a usage error on an unknown
// subcommand; cobra would print its help and exit 0.
func refuseUnknownSubcommands(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		refuseUnknownSubcommands(c)
	}
	if !cmd.HasParent() || !cmd.HasSubCommands() || cmd.Runnable() {
		return
	}
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErrorf("unknown command %q for %q (see '%s --help')", args[0], c.CommandPath(), c.CommandPath())
		}
		return c.Help()
	}
}

// run executes the command line and returns the exit code. A panic is
// reported in one line and exits 1 (2 means a usage error); -v adds the
// stack.
func run(f *factory, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = f.internalError(r, debug.Stack())
		}
	}()
	root := newRootCmd(f)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil && isCobraUsage(err) {
		err = usageError{err}
	}
	return f.exitCode(err)
}

// isCobraUsage recognises cobra's own argument and flag errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "required flag", "accepts ", "requires at least", "requires at most", "invalid argument", "if any flags in the group", "flag needs an argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// versionTemplate prints "tmem version V", or under --json {"version": "V"}
// (a version holds no character JSON and Go quote differently).
const versionTemplate = `{{if eq (.Flags.Lookup "json").Value.String "true"}}{"version": {{printf "%q" .Version}}}{{else}}tmem version {{.Version}}{{end}}
`
