package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// EvalSet is a labelled set of recall questions over a workspace that
// sits next to it (questions.json beside .teammates/).
type EvalSet struct {
	Now       string         `json:"now"` // YYYY-MM-DD: the day the questions are asked
	Questions []EvalQuestion `json:"questions"`
}

// EvalQuestion is one query and the files that answer it.
type EvalQuestion struct {
	ID       string   `json:"id"`
	Teammate string   `json:"teammate"`
	Query    string   `json:"query"`
	Answers  []string `json:"answers"` // workspace-relative paths
	Tags     []string `json:"tags"`
}

// EvalScores are the averages over a set of questions. Recall@k is the
// share of a question's answers found in the top k, averaged.
type EvalScores struct {
	Questions  int     `json:"questions"`
	RecallAt1  float64 `json:"recall_at_1"`
	RecallAt5  float64 `json:"recall_at_5"`
	RecallAt10 float64 `json:"recall_at_10"`
	MRR        float64 `json:"mrr"`
}

// EvalResult is one retrieval mode's scores, overall and per tag.
type EvalResult struct {
	Mode string `json:"mode"`
	EvalScores
	ByTag  map[string]EvalScores `json:"by_tag"`
	Misses []string              `json:"misses"` // question IDs with no answer in the top 10
}

// EvalReport is what Evaluate returns: one result per mode that could run.
type EvalReport struct {
	Results []EvalResult `json:"results"`
	// Note says why modes are missing (no embedder), "" when none are.
	Note string `json:"note,omitempty"`
}

// EvalOptions configure Evaluate.
type EvalOptions struct {
	Index Options // Now is replaced by the set's date
	// Scratch, when set, is an empty folder the workspace is copied into
	// first, so the evaluation leaves no index beside the set.
	Scratch string
	// Modes to run; empty means every mode the embedder allows.
	Modes []string
}

// LoadEvalSet reads a questions file.
func LoadEvalSet(path string) (*EvalSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load eval set: %w", err)
	}
	var s EvalSet
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("load eval set %s: %w", path, err)
	}
	if len(s.Questions) == 0 {
		return nil, fmt.Errorf("load eval set %s: no questions", path)
	}
	return &s, nil
}

// Evaluate runs the eval set at path against the workspace beside it in
// each retrieval mode and scores the answers.
func Evaluate(ctx context.Context, path string, opts EvalOptions) (*EvalReport, error) {
	set, err := LoadEvalSet(path)
	if err != nil {
		return nil, err
	}
	now, err := time.Parse(layout.DateLayout, set.Now)
	if err != nil {
		return nil, fmt.Errorf("eval set %s: now %q: %w", path, set.Now, err)
	}
	dir := filepath.Join(filepath.Dir(path), layout.DirName)
	if opts.Scratch != "" {
		dst := filepath.Join(opts.Scratch, layout.DirName)
		if err := copyTree(dir, dst); err != nil {
			return nil, fmt.Errorf("copy eval workspace: %w", err)
		}
		dir = dst
	}
	ws, err := layout.Open(dir)
	if err != nil {
		return nil, err
	}
	io := opts.Index
	io.Now = func() time.Time { return now.Add(12 * time.Hour) }
	ix, err := Open(ws, io)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if _, err := ix.Sync(ctx, nil); err != nil {
		return nil, err
	}
	rep := &EvalReport{}
	modes := opts.Modes
	if len(modes) == 0 {
		modes = []string{ModeBM25, ModeVector, ModeHybrid}
		if !ix.HasVectors() {
			modes = []string{ModeBM25}
			rep.Note = "no embedding model: vector and hybrid modes not run"
		}
	}
	for _, m := range modes {
		r, err := evalMode(ctx, ix, set, m)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

func evalMode(ctx context.Context, ix *Index, set *EvalSet, mode string) (EvalResult, error) {
	res := EvalResult{Mode: mode, ByTag: map[string]EvalScores{}}
	var all []qScore
	byTag := map[string][]qScore{}
	for _, q := range set.Questions {
		hits, err := ix.Search(ctx, Query{Text: q.Query, Teammates: []string{q.Teammate}, K: 10, NoSync: true, Mode: mode})
		if err != nil {
			return res, fmt.Errorf("eval %s: %w", q.ID, err)
		}
		s := scoreHits(hits, q.Answers)
		all = append(all, s)
		for _, t := range q.Tags {
			byTag[t] = append(byTag[t], s)
		}
		if s.r10 == 0 {
			res.Misses = append(res.Misses, q.ID)
		}
	}
	res.EvalScores = average(all)
	for t, ss := range byTag {
		res.ByTag[t] = average(ss)
	}
	sort.Strings(res.Misses)
	return res, nil
}

type qScore struct{ r1, r5, r10, rr float64 }

func scoreHits(hits []Hit, answers []string) qScore {
	want := map[string]bool{}
	for _, a := range answers {
		want[a] = true
	}
	var s qScore
	found := 0
	for i, h := range hits {
		if i >= 10 {
			break
		}
		if !want[h.Path] {
			continue
		}
		found++
		if s.rr == 0 {
			s.rr = 1 / float64(i+1)
		}
		n := float64(len(want))
		if i < 1 {
			s.r1 += 1 / n
		}
		if i < 5 {
			s.r5 += 1 / n
		}
		s.r10 += 1 / n
	}
	return s
}

func average(ss []qScore) EvalScores {
	out := EvalScores{Questions: len(ss)}
	if len(ss) == 0 {
		return out
	}
	for _, s := range ss {
		out.RecallAt1 += s.r1
		out.RecallAt5 += s.r5
		out.RecallAt10 += s.r10
		out.MRR += s.rr
	}
	n := float64(len(ss))
	out.RecallAt1 /= n
	out.RecallAt5 /= n
	out.RecallAt10 /= n
	out.MRR /= n
	return out
}

// copyTree copies a workspace, leaving out index folders.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".index" || d.Name() == ".tmp") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// String formats the report as a table.
func (r *EvalReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %5s %8s %8s %9s %6s\n", "mode", "n", "recall@1", "recall@5", "recall@10", "MRR")
	for _, x := range r.Results {
		fmt.Fprintf(&b, "%-8s %5d %8.3f %8.3f %9.3f %6.3f\n", x.Mode, x.Questions, x.RecallAt1, x.RecallAt5, x.RecallAt10, x.MRR)
	}
	if r.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", r.Note)
	}
	return b.String()
}
