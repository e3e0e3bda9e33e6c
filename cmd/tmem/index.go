package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/minilm"
)

type indexOptions struct {
	teammates []string
	all       bool
	rebuild   bool
}

func newIndexCmd(f *factory) *cobra.Command {
	opts := &indexOptions{}
	cmd := &cobra.Command{
		Use:   "index [--teammate NAME|--all] [--rebuild]",
		Short: "Sync (or rebuild) the recall index with the memory files",
		Long: `Bring the recall index up to date with the memory files: new and changed
files are indexed, deleted ones dropped. --rebuild throws the index away and
builds it again. Chunks a search's sync left without vectors (after a big
change: a compaction, a git pull, a new model) are embedded too; searches
answer meanwhile. Without --teammate, every teammate is indexed. The index
lives in <teammate>/.index/ and .index/ (the shared scope) and is never
committed. On a terminal a progress bar shows files, chunks, chunks/s and
an ETA.`,
		Example: `  tmem index
  tmem index --teammate beacon --rebuild`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notEmpty(cmd, "teammate"); err != nil {
				return err
			}
			f.startTiming()
			defer f.printTiming()
			return f.index(background(cmd), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.teammates, "teammate", nil, "teammates to index (default: all)")
	fl.BoolVar(&opts.all, "all", false, "index every teammate (the default)")
	fl.BoolVar(&opts.rebuild, "rebuild", false, "rebuild from scratch")
	cmd.MarkFlagsMutuallyExclusive("teammate", "all")
	return cmd
}

// index syncs or rebuilds the indexes of the teammates (all without
// --teammate), embeds what that left without vectors and reports it.
func (f *factory) index(ctx context.Context, opts *indexOptions) error {
	endWS := f.stages.begin(stageWorkspace)
	ws, err := f.Workspace()
	endWS()
	if err != nil {
		return err
	}
	names := opts.teammates
	if len(names) > 0 {
		if names, err = f.teammateList(ws, names, false); err != nil {
			return err
		}
	}
	bar, progress := f.newProgress()
	iopts, err := f.indexOptions(f.model, minilm.WorkloadBulk, progress)
	if err != nil {
		return err
	}
	iopts.Stopwatch = time.Now // the phases' times, for --json and -v
	ix, err := recall.Open(ws, iopts)
	if err != nil {
		return err
	}
	defer ix.Close()
	run := ix.Sync
	if opts.rebuild {
		run = ix.Rebuild
	}
	endIndex := f.stages.begin(stageIndex)
	st, err := run(ctx, names)
	if err == nil {
		err = embedBacklog(ctx, ix, names, &st)
	}
	endIndex()
	bar.done()
	if err != nil {
		return err
	}
	if err := f.printIndexed(st, bar != nil); err != nil {
		return err
	}
	return f.notIndexed(st.Errors)
}

// notIndexed fails an index run that left files out (recall cannot find
// them), after naming each: the sync's notices do, unless -q silenced
// them.
func (f *factory) notIndexed(errs []string) error {
	if len(errs) == 0 {
		return nil
	}
	if f.quiet {
		for _, e := range errs {
			f.errorf("recall: not indexed: %s", e)
		}
	}
	return fmt.Errorf("index: %d file(s) left out, named above: recall cannot find them (see 'tmem doctor')", len(errs))
}

// printIndexed reports an index run: JSON under --json, else a summary on
// stderr, silent unless someone is watching (a terminal) or asked.
func (f *factory) printIndexed(st recall.SyncStats, onTerminal bool) error {
	if f.json {
		return f.printJSON(st)
	}
	if onTerminal || f.verbose {
		fmt.Fprintf(f.stderr, "indexed %d files: %d added, %d changed, %d deleted, %d unchanged; %d chunks indexed, %d embedded\n",
			st.Files, st.Added, st.Changed, st.Deleted, st.Unchanged, st.Chunks, st.Embedded)
		if st.Backlog > 0 {
			fmt.Fprintf(f.stderr, "%d chunks are still without vectors: their files changed while they were embedded, or cannot be read\n", st.Backlog)
		}
	}
	return nil
}

// embedBacklog embeds what the sync left without vectors and adds it to
// the sync's stats.
func embedBacklog(ctx context.Context, ix *recall.Index, names []string, st *recall.SyncStats) error {
	bs, err := ix.EmbedBacklog(ctx, names, recall.BacklogOptions{})
	st.Embedded += bs.Embedded
	st.Cached += bs.Cached
	st.Backlog = bs.Left
	return err
}
