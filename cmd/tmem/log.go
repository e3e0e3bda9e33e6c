package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
)

type logOptions struct {
	teammate    string
	heading     string
	allowSecret bool
	tz          string
}

func newLogCmd(f *factory) *cobra.Command {
	opts := &logOptions{}
	cmd := &cobra.Command{
		Use:   "log --teammate NAME [--heading TEXT] [TEXT | -]",
		Short: "Append an entry to today's daily log",
		Long: `Append a "## heading" entry to memory/YYYY-MM-DD.md for today (see --now),
creating the file with its title. With "-" the text is read from stdin. The
heading defaults to the first line of the text. Concurrent appends from
several processes are serialised by a file lock and all land whole.
Text that looks like it holds a secret (a private key, a cloud or forge
token, a password) is refused unless --allow-secret.`,
		Example: `  tmem log --teammate beacon --heading "Fixed flaky sync test" "Root cause: mtime granularity."
  git log -1 --format=%B | tmem log --teammate beacon -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := teammateFlag(opts.teammate); err != nil {
				return err
			}
			text, err := f.readArg(args)
			if err != nil {
				return err
			}
			heading, text, err := layout.SplitEntry(opts.heading, text, "--heading")
			if err != nil {
				return usageError{err}
			}
			return f.log(cmd.Context(), opts, heading, text)
		},
	}
	cmd.Flags().StringVar(&opts.teammate, "teammate", "", "teammate whose log to append to")
	cmd.Flags().StringVar(&opts.heading, "heading", "", "the entry's heading")
	cmd.Flags().BoolVar(&opts.allowSecret, "allow-secret", false, "write the entry even if it looks like it holds a secret")
	cmd.Flags().StringVar(&opts.tz, "tz", "", "time zone of today, whose daily log the entry goes in, an IANA name (default: local); give tmem context the same")
	return cmd
}

// log appends the entry to the teammate's daily log of today.
func (f *factory) log(ctx context.Context, opts *logOptions, heading, text string) error {
	ws, err := f.workspaceFor(opts.teammate)
	if err != nil {
		return err
	}
	loc, err := zoneFlag(opts.tz)
	if err != nil {
		return err
	}
	clock, err := f.ClockIn(loc)
	if err != nil {
		return err
	}
	now := clock()
	rel, err := ws.AppendDaily(ctx, opts.teammate, now.In(loc), heading, text, writeOptions(opts.allowSecret)...)
	return f.reportWrite(rel, "appended to", err)
}
