package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/internal/quote"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/minilm"
)

type recallOptions struct {
	teammates    []string
	all          bool
	k            int
	noSync       bool
	recencyDepth int
	boost        map[string]string
	tz           string
	loc          *time.Location
	filter       recall.Filter
}

func newRecallCmd(f *factory) *cobra.Command {
	opts := &recallOptions{}
	cmd := &cobra.Command{
		Use:   "recall --teammate NAME [-k 10] [--no-sync] QUERY",
		Short: "Search a teammate's memories (BM25 plus vectors when a model is set)",
		Long: `Search memories for QUERY: the teammates' typed memories, weekly and monthly
summaries, WISDOM.md sections, daily logs but today's (which tmem context
shows whole), the archive, and the shared CROSS-TEAM.md. The index is synced with the files first unless
--no-sync. Each hit is printed as a block headed path:start-end; --json prints
an array of hits. Secrets found in the files are shown as [REDACTED:kind]. Without an embedding model (see tmem model) the search is BM25 only.

Ranking: BM25 and vector scores are fused, typed memories are boosted over
episodic summaries, each hit is a passage (several may come from one file;
neighbouring chunks of an entry that both rank merge into one), shown as the
whole lines it covers plus one short line of context before and after
within its entry (its heading is in the hit's header, not repeated below),
a copy compaction made of a line shown once (the same words on two days
are two hits), and the --recency-depth most recent weekly summaries are
always included. --kind, --since and --until keep only hits of those kinds
and days, the recency pass's too; they filter every chunk before the best
are kept.`,
		Example: `  tmem recall --teammate beacon "search alias cutover"
  tmem recall --teammate beacon,quill -k 5 --json "kestrel demo"
  tmem recall --all --no-sync "release freeze"
  tmem recall --teammate beacon --kind weekly,monthly --since 2026-10-01 "backfill"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.perTaskGC()
			f.startTiming()
			defer f.printTiming()
			if err := opts.check(); err != nil {
				return err
			}
			text, err := f.readArg(args)
			if err != nil {
				return err
			}
			if strings.TrimSpace(text) == "" {
				return usageErrorf("the query is empty")
			}
			return f.printRecall(background(cmd), opts, text)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.teammates, "teammate", nil, "teammates to search (comma-separated or repeated)")
	fl.BoolVar(&opts.all, "all", false, "search every teammate")
	fl.IntVarP(&opts.k, "k", "k", 10, "number of hits")
	fl.BoolVar(&opts.noSync, "no-sync", false, "search the index as it is, without syncing it with the files")
	fl.IntVar(&opts.recencyDepth, "recency-depth", recall.DefaultRanking.RecencyDepth, "most recent weekly summaries always included (0: none)")
	fl.StringVar(&opts.tz, "tz", "", "time zone of today (whose daily is not searched) and of relative dates in QUERY, an IANA name (default: local)")
	fl.StringSliceVar(&opts.filter.Kinds, "kind", nil, "only hits of these kinds: "+strings.Join(recall.HitKinds, ", ")+" (comma-separated or repeated)")
	fl.StringVar(&opts.filter.Since, "since", "", "only hits of days on or after this day, YYYY-MM-DD: a daily's day, a summary's whole period, another memory's date (undated ones are left out)")
	fl.StringVar(&opts.filter.Until, "until", "", "only hits of days on or before this day, YYYY-MM-DD, as for --since")
	fl.StringToStringVar(&opts.boost, "boost", nil, "score multiplier per kind, e.g. typed=1.3,daily=0.9; a kind not given keeps its default")
	// The flag starts empty and rankingFlag lays what it is given over the
	// defaults: help shows those, once, where it shows every default.
	fl.Lookup("boost").DefValue = boostDefaults()
	cmd.MarkFlagsMutuallyExclusive("teammate", "all")
	return cmd
}

func (o *recallOptions) check() error {
	if o.k <= 0 {
		return usageErrorf("-k %d: want a positive number of hits", o.k)
	}
	if o.recencyDepth < 0 {
		return usageErrorf("--recency-depth %d: want 0 (none) or more", o.recencyDepth)
	}
	if err := o.filter.Check(); err != nil {
		return usageErrorf("%v", err)
	}
	var err error
	o.loc, err = zoneFlag(o.tz)
	return err
}

// printRecall searches the teammates' memories for text and prints the hits.
func (f *factory) printRecall(ctx context.Context, opts *recallOptions, text string) error {
	endWS := f.stages.begin(stageWorkspace)
	ws, err := f.Workspace()
	endWS()
	if err != nil {
		return err
	}
	names, err := f.teammateList(ws, opts.teammates, opts.all)
	if err != nil {
		return err
	}
	ix, err := f.openRanked(ws, opts.boost)
	if err != nil {
		return err
	}
	defer ix.Close()
	depth := opts.recencyDepth
	if depth == 0 {
		depth = -1 // the flag's 0 means none; the library's 0 means default
	}
	clock, err := f.ClockIn(opts.loc)
	if err != nil {
		return err
	}
	hits, err := ix.Search(ctx, recall.Query{Text: text, Teammates: names, K: opts.k, NoSync: opts.noSync, RecencyDepth: depth, Now: clock().In(opts.loc), Filter: &opts.filter})
	if err != nil {
		return err
	}
	defer f.stages.begin(stagePrint)()
	if f.json {
		if hits == nil {
			hits = []recall.Hit{}
		}
		return f.printJSON(hits)
	}
	return recall.WriteHits(f.stdout, hits)
}

// openRanked opens the recall index for queries, ranking with the
// --boost multipliers over the defaults.
func (f *factory) openRanked(ws *layout.Workspace, boost map[string]string) (*recall.Index, error) {
	ranking, err := rankingFlag(boost)
	if err != nil {
		return nil, err
	}
	iopts, err := f.indexOptions(f.model, minilm.WorkloadQueries, nil)
	if err != nil {
		return nil, err
	}
	iopts.Ranking = ranking
	return recall.Open(ws, iopts)
}

// maxBoost bounds a --boost multiplier: the defaults are near 1, and a
// huge one would overflow scores to infinity.
const maxBoost = 1000

// rankingFlag turns --boost KIND=X pairs into a ranking over the
// defaults; nil when none are given.
func rankingFlag(boost map[string]string) (*recall.Ranking, error) {
	if len(boost) == 0 {
		return nil, nil
	}
	r := recall.DefaultRanking
	r.KindBoost = map[string]float64{}
	for k, v := range recall.DefaultRanking.KindBoost {
		r.KindBoost[k] = v
	}
	for k, v := range boost {
		if _, ok := recall.DefaultRanking.KindBoost[k]; !ok {
			return nil, usageErrorf("--boost %s: want one of %s", quote.IfNeeded(k), boostKinds())
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x > 0 && x <= maxBoost) { // NaN fails both
			return nil, usageErrorf("--boost %s: want a positive number up to %d", quote.IfNeeded(k+"="+v), maxBoost)
		}
		r.KindBoost[k] = x
	}
	return &r, nil
}

func boostKinds() string {
	var ks []string
	for k := range recall.DefaultRanking.KindBoost {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

func boostDefaults() string {
	var out []string
	for _, k := range strings.Split(boostKinds(), ", ") {
		out = append(out, fmt.Sprintf("%s=%g", k, recall.DefaultRanking.KindBoost[k]))
	}
	return strings.Join(out, ",")
}

// teammateList checks --teammate/--all: names must exist; --all (or, when
// allowEmpty, neither flag) means every teammate.
func (f *factory) teammateList(ws *layout.Workspace, names []string, all bool) ([]string, error) {
	if all {
		return nil, nil
	}
	if len(names) == 0 {
		return nil, usageErrorf("--teammate or --all is required")
	}
	for _, n := range names {
		if _, err := f.teammate(ws, n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// openIndex opens the recall index with the global clock, warnings on
// stderr (unless --quiet) and the embedder from --model, set up for the
// command's workload.
func (f *factory) openIndex(ws *layout.Workspace, model string, w minilm.Workload, progress func(recall.Progress)) (*recall.Index, error) {
	opts, err := f.indexOptions(model, w, progress)
	if err != nil {
		return nil, err
	}
	return recall.Open(ws, opts)
}

func (f *factory) indexOptions(model string, w minilm.Workload, progress func(recall.Progress)) (recall.Options, error) {
	clock, err := f.Clock()
	if err != nil {
		return recall.Options{}, err
	}
	emb, err := openEmbedder(f, model, w)
	if err != nil {
		return recall.Options{}, err
	}
	var warn io.Writer
	if !f.quiet {
		warn = f.stderr
	}
	opts := recall.Options{Embedder: emb, Now: clock, Warn: warn, Progress: progress, SyncEmbed: recall.DefaultSyncEmbed, LockTimeout: f.lockWait}
	if f.stages != nil {
		opts.Trace = f.stages.trace
	}
	return opts, nil
}

// background is the context for library calls outside cobra's.
func background(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
