package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/recall"
)

func newEvalCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval FILE",
		Short: "Score recall on a labelled question set",
		Long: `Run the questions in FILE (questions.json, next to the .teammates folder
it asks about) and print recall@1, recall@5, recall@10 and MRR for BM25-only,
vector-only and hybrid retrieval (with --verbose, also per tag and the
questions missed). Vector modes need an embedding model
(--model); without one only BM25 is scored. The workspace is copied to a
temporary folder, so no index is left beside the set.`,
		Example: `  tmem eval testdata/eval/questions.json
  tmem eval --json testdata/eval/questions.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.indexOptions(f.model, nil)
			if err != nil {
				return err
			}
			opts.SyncEmbed = 0 // every chunk embedded before the questions run
			scratch, err := os.MkdirTemp("", "tmem-eval-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(scratch)
			rep, err := recall.Evaluate(background(cmd), args[0], recall.EvalOptions{Index: opts, Scratch: scratch})
			if err != nil {
				return err
			}
			if f.json {
				return f.printJSON(rep)
			}
			if _, err := fmt.Fprint(f.stdout, rep.String()); err != nil {
				return err
			}
			if f.verbose {
				_, err = fmt.Fprint(f.stdout, "\n"+rep.Details())
			}
			return err
		},
	}
	return cmd
}
