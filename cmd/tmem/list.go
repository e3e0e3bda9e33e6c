package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/internal/quote"
	"github.com/tmemhq/tmem/layout"
)

type listOptions struct {
	teammate string
	kind     string
}

func newListCmd(f *factory) *cobra.Command {
	opts := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list [--teammate NAME] [--kind KIND]",
		Short: "List memory files, one per line",
		Long: `List the workspace's memory files, one per line: path (relative to the
workspace root), kind, type, date and name; --json adds the teammate and the
size. KIND is one of soul, goals, wisdom, daily, typed, weekly, monthly,
crossteam, archive. A file that does not parse is still listed, with its
error on stderr.`,
		Example: `  tmem list --teammate beacon --kind typed
  tmem list --json | jq -r '.[].path'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notEmpty(cmd, "teammate", "kind"); err != nil {
				return err
			}
			if opts.kind != "" && !layout.ValidKind(opts.kind) {
				return usageErrorf("--kind %q: want one of %s", opts.kind, layout.KindNames())
			}
			return f.list(opts)
		},
	}
	cmd.Flags().StringVar(&opts.teammate, "teammate", "", "only this teammate's files")
	cmd.Flags().StringVar(&opts.kind, "kind", "", "only files of this kind")
	return cmd
}

// list prints the memory files the flags pick, one per line (a table)
// or as JSON; a file that does not parse is listed, its error on stderr.
func (f *factory) list(opts *listOptions) error {
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	items, err := ws.List(opts.teammate, layout.Kind(opts.kind))
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Error != "" {
			f.warnf("%s", it.Error)
		}
	}
	if f.json {
		return f.printJSON(items)
	}
	tw := tabwriter.NewWriter(f.stdout, 0, 4, 2, ' ', 0)
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", quote.IfNeeded(it.Path), it.Kind, dash(it.Type), dash(it.Date), dash(it.Name))
	}
	return tw.Flush()
}

// dash shows a cell of the table: "-" when empty, quoted when a line
// break, a tab or a terminal escape would forge or hide a row.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return quote.IfNeeded(s)
}
