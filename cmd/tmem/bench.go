package main

import (
	"errors"
	"fmt"
	"math"

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

// Bounds of tmem bench gen: 25 teammates over 6 years make 100,000
// chunks, so these leave room and still stop a typo from filling a disk.
const (
	maxBenchTeammates = 1000
	maxBenchYears     = 100
)

// checkBenchGen checks the flags of tmem bench gen and sets opts.End from
// end; the history must start in year 1 or later.
func checkBenchGen(opts *benchgen.Options, end string) error {
	if opts.Teammates < 1 || opts.Teammates > maxBenchTeammates {
		return usageErrorf("--teammates %d: want 1 to %d", opts.Teammates, maxBenchTeammates)
	}
	if opts.Years < 1 || opts.Years > maxBenchYears {
		return usageErrorf("--years %d: want 1 to %d", opts.Years, maxBenchYears)
	}
	if math.IsNaN(opts.Compacted) || math.IsInf(opts.Compacted, 0) || opts.Compacted > 1 {
		return usageErrorf("--compacted %g: want a share from 0 to 1, or a negative number for none", opts.Compacted)
	}
	if end == "" {
		return nil
	}
	t, err := parseTime("--end", end)
	if err != nil {
		return err
	}
	if t.AddDate(-opts.Years, 0, 1).Year() < 1 {
		return usageErrorf("--end %s --years %d: the history would start before year 1", end, opts.Years)
	}
	opts.End = t
	return nil
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
			if err := checkBenchGen(&opts, end); err != nil {
				return err
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
