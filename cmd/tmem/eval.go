package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/minilm"
)

type evalOptions struct {
	k int
}

func newEvalCmd(f *factory) *cobra.Command {
	o := &evalOptions{}
	cmd := &cobra.Command{
		Use:   "eval FILE",
		Short: "Score recall on a labelled question set",
		Long: `Run the questions in FILE (next to the .teammates folder it asks about)
and print, for BM25-only, vector-only and hybrid retrieval, recall@k (the
share of each question's answers in the top k hits), hit@k (the share of
questions with one in the top k) and tokens@k (what the top k hits' text
costs, bytes/4) at k = 1, 5, 10 and -k, and MRR. With --verbose, the same per
tag or category, and the questions missed.

FILE is questions.json ({"now", "questions": [{"id", "teammate", "query",
"answers": [paths], "tags"}]}: an answer is a file) or a queries.jsonl file,
one {"id", "question", "category_name", "evidence": ["D1:3", ...]} a line:
an answer is a line tagged "[D1:3]", found when a hit's text or the lines it
points at hold it. A set without a "now" is asked on --now if given, else
seven days after its newest dated file, so that every daily is indexed.

Vector modes need an embedding model (--model); without one only BM25 is
scored. The workspace is copied to a temporary folder, so no index is left
beside the set.`,
		Example: `  tmem eval testdata/eval/questions.json
  tmem eval -k 20 --verbose path/to/queries.jsonl
  tmem eval --json testdata/eval/questions.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.k < 1 || o.k > 1000 {
				return usageErrorf("-k %d: want a number of hits from 1 to 1000", o.k)
			}
			return runEval(cmd, f, o, args[0])
		},
	}
	cmd.Flags().IntVarP(&o.k, "k", "k", 10, "hits per question: the deepest cut-off scored")
	return cmd
}

func runEval(cmd *cobra.Command, f *factory, o *evalOptions, path string) error {
	opts, err := f.indexOptions(f.model, minilm.WorkloadBulk, nil)
	if err != nil {
		return err
	}
	opts.SyncEmbed = 0 // every chunk embedded before the questions run
	eo := recall.EvalOptions{Index: opts, K: o.k}
	if f.now != "" || f.getenv("TMEM_NOW") != "" {
		if eo.Now, err = f.Now(); err != nil {
			return err
		}
	}
	scratch, err := os.MkdirTemp("", "tmem-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	eo.Scratch = scratch
	rep, err := recall.Evaluate(background(cmd), path, eo)
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
}
