package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/benchgen"
)

func newBenchCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Tools for measuring recall on large workspaces",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBenchGenCmd(f))
	return cmd
}

func newBenchGenCmd(f *factory) *cobra.Command {
	opts := benchgen.Options{}
	var end string
	cmd := &cobra.Command{
		Use:   "gen [--teammates 5] [--years 3] DIR",
		Short: "Write a synthetic workspace for benchmarks",
		Long: `Write a synthetic workspace into DIR/.teammates: teammates with years of
daily logs, typed memories, weekly and monthly summaries and WISDOM.md. The
oldest share of weeks (--compacted) has summaries instead of dailies. The
same options and --seed always give the same files. About 5 teammates over
3 years make 10,000 chunks; 25 over 6 years make 100,000. A DIR that already
holds a .teammates folder is refused unless --force.`,
		Example: `  tmem bench gen --teammates 5 --years 3 /tmp/bench
  tmem --dir /tmp/bench index`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Teammates <= 0 || opts.Years <= 0 {
				return usageErrorf("--teammates and --years must be positive")
			}
			if end != "" {
				t, err := parseNow(end)
				if err != nil {
					return err
				}
				opts.End = t
			}
			st, err := benchgen.Generate(args[0], opts)
			if errors.Is(err, layout.ErrExists) {
				return fmt.Errorf("%w; pass --force to write over it, or name a new folder", err)
			}
			if err != nil {
				return err
			}
			if f.json {
				return f.printJSON(st)
			}
			_, err = fmt.Fprintf(f.stdout, "wrote %d files: %d dailies, %d typed, %d weekly, %d monthly; %d entries\n",
				st.Files, st.Dailies, st.Typed, st.Weekly, st.Monthly, st.Entries)
			return err
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Teammates, "teammates", 5, "number of teammates")
	fl.IntVar(&opts.Years, "years", 3, "years of history")
	fl.Uint64Var(&opts.Seed, "seed", 1, "random seed")
	fl.Float64Var(&opts.Compacted, "compacted", 0.3, "share of the oldest weeks already compacted into summaries (negative: none)")
	fl.StringVar(&end, "end", "", "last day of history, YYYY-MM-DD (default 2026-11-20)")
	fl.BoolVar(&opts.Force, "force", false, "write into a folder that already holds a workspace, replacing files of the same names")
	return cmd
}
