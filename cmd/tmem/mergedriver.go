package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout/merge"
)

func newMergeDriverCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS PATH",
		Short: "Merge a memory file for git, entry by entry",
		Long: `The merge driver git runs for memory files (git passes %O %A %B %P): it
merges BASE, OURS and THEIRS three ways and writes the result over OURS.
Entries, stamped appends and frontmatter fields added on either side are
kept, once, stamped ones in time order; archive month files keep every
section once. An entry changed on both sides stays a conflict, with
markers around that entry only, and the command exits 1 so git reports it.

Set it up once per repository with 'tmem init --git' or 'tmem doctor
--fix' (they write the repository's local git config, never the global
one); 'tmem init' writes the .gitattributes that sends *.md files in
.teammates/ to it.`,
		Args: cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := merge.Driver(args[0], args[1], args[2], args[3])
			if err != nil {
				return err
			}
			for _, n := range res.Notes {
				f.warnf("%s", n)
			}
			if res.Conflicts > 0 {
				return fmt.Errorf("%s: %d conflict(s) left between markers", args[3], res.Conflicts)
			}
			return nil
		},
	}
}
