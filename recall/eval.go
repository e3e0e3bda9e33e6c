package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/quote"
	"github.com/tmemhq/tmem/layout"
)

// EvalSet is a labelled set of recall questions over a workspace that
// sits next to it (the questions file beside .teammates/).
type EvalSet struct {
	// Now is the day the questions are asked (YYYY-MM-DD); empty means
	// layout.RecentDays after the newest dated file, so that every daily
	// is indexed.
	Now       string         `json:"now"`
	Questions []EvalQuestion `json:"questions"`
}

// EvalQuestion is one query and what answers it: whole files (Answers)
// or tagged lines (Evidence).
type EvalQuestion struct {
	ID       string   `json:"id"`
	Teammate string   `json:"teammate"` // empty means every teammate
	Query    string   `json:"query"`
	Answers  []string `json:"answers"` // workspace-relative paths
	// Evidence lists the ids of the lines that answer ("D1:3"), each
	// written in its line as "[D1:3]". A hit finds one when its text, or
	// the file lines it points at, hold the tag.
	Evidence []string `json:"evidence,omitempty"`
	Tags     []string `json:"tags"`
}

// targets is what a question asks to be found: its evidence lines when
// it names any, else its files.
func (q EvalQuestion) targets() []string {
	if len(q.Evidence) > 0 {
		return q.Evidence
	}
	return q.Answers
}

// AtK are the scores of the top k hits, averaged over questions: Recall
// is the share of a question's answers found, Hit the share of questions
// with at least one found, Tokens what the hits' text costs (bytes/4).
type AtK struct {
	K      int     `json:"k"`
	Recall float64 `json:"recall"`
	Hit    float64 `json:"hit"`
	Tokens float64 `json:"tokens"`
}

// EvalScores are the averages over a set of questions at each cut-off,
// smallest first, and the mean reciprocal rank of the first answer.
type EvalScores struct {
	Questions int     `json:"questions"`
	Cutoffs   []AtK   `json:"cutoffs"`
	MRR       float64 `json:"mrr"`
}

// At returns the scores at cut-off k (zero when k was not scored).
func (s EvalScores) At(k int) AtK {
	for _, a := range s.Cutoffs {
		if a.K == k {
			return a
		}
	}
	return AtK{K: k}
}

// EvalResult is one retrieval mode's scores, overall and per tag.
type EvalResult struct {
	Mode string `json:"mode"`
	EvalScores
	ByTag  map[string]EvalScores `json:"by_tag"`
	Misses []string              `json:"misses"` // question IDs with no answer in the top k
}

// EvalReport is what Evaluate returns: one result per mode that could run.
type EvalReport struct {
	K       int          `json:"k"` // the deepest cut-off: hits asked for per question
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
	// K is how many hits each question asks for, the deepest cut-off
	// scored (also 1, 5 and 10 when smaller); 0 means 10.
	K int
	// Now is the day asked on when the set names none; zero means the
	// set's default (see EvalSet.Now).
	Now time.Time
}

// MaxEvalSetBytes bounds a questions file: the largest sets in use are a
// few MiB.
const MaxEvalSetBytes = 64 << 20

// OpenEvalFile opens a questions file for reading: only a regular file (a
// named pipe would block the load, a device never end) of at most
// MaxEvalSetBytes.
func OpenEvalFile(path string) (*os.File, error) {
	f, err := layout.OpenRegular(path)
	if errors.Is(err, layout.ErrNotRegular) {
		return nil, fmt.Errorf("eval set %s: not a regular file: give a questions file (a folder, a named pipe or a device is never read)", quote.IfNeeded(path))
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("eval set %s: %w", quote.IfNeeded(path), pe.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("eval set: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.Size() > MaxEvalSetBytes {
		f.Close()
		return nil, fmt.Errorf("eval set %s: file is %d MiB, over the %d MiB limit for questions files", quote.IfNeeded(path), st.Size()>>20, MaxEvalSetBytes>>20)
	}
	return f, nil
}

// LoadEvalSet reads a questions file: a JSON EvalSet, or, for a file
// named *.jsonl, one evidence question a line (see LoadEvidence).
func LoadEvalSet(path string) (*EvalSet, error) {
	var s EvalSet
	if strings.HasSuffix(path, ".jsonl") {
		qs, err := LoadEvidence(path)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			s.Questions = append(s.Questions, q.evalQuestion())
		}
	} else {
		f, err := OpenEvalFile(path)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("load eval set: %w", err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, jsonError(path, b, err)
		}
	}
	if len(s.Questions) == 0 {
		return nil, fmt.Errorf("load eval set %s: no questions", quote.IfNeeded(path))
	}
	for i, q := range s.Questions {
		if len(q.Answers) == 0 && len(q.Evidence) == 0 {
			return nil, fmt.Errorf("load eval set %s: question %d (%q) has neither answers nor evidence", quote.IfNeeded(path), i+1, q.ID)
		}
	}
	return &s, nil
}

// jsonError names the line of src, the file path, where decoding it as
// JSON failed: "set.json:3: unexpected end of JSON input".
func jsonError(path string, src []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(src)) {
		return &layout.ParseError{Path: path, Err: err}
	}
	return &layout.ParseError{Path: path, Line: bytes.Count(src[:off], []byte("\n")) + 1, Err: err}
}

// Evaluate runs the eval set at path against the workspace beside it in
// each retrieval mode and scores the answers.
func Evaluate(ctx context.Context, path string, opts EvalOptions) (*EvalReport, error) {
	set, err := LoadEvalSet(path)
	if err != nil {
		return nil, err
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
	now, err := evalDay(ws, set, opts.Now)
	if err != nil {
		return nil, fmt.Errorf("eval set %s: %w", quote.IfNeeded(path), err)
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
	rep := &EvalReport{K: opts.K}
	if rep.K <= 0 {
		rep.K = 10
	}
	modes := opts.Modes
	if len(modes) == 0 {
		modes = []string{ModeBM25, ModeVector, ModeHybrid}
		if !ix.HasVectors() {
			modes = []string{ModeBM25}
			rep.Note = "no embedding model: vector and hybrid modes not run"
		}
	}
	for _, m := range modes {
		r, err := evalMode(ctx, ix, set, m, rep.K)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// evalDay is the day the questions are asked: the set's, else fallback,
// else layout.RecentDays after the newest dated file of the workspace.
func evalDay(ws *layout.Workspace, set *EvalSet, fallback time.Time) (time.Time, error) {
	if set.Now != "" {
		now, err := time.Parse(layout.DateLayout, set.Now)
		if err != nil {
			return now, fmt.Errorf("now %q: %w", set.Now, err)
		}
		return now, nil
	}
	if !fallback.IsZero() {
		return layout.Day(fallback), nil
	}
	mates, err := ws.Teammates()
	if err != nil {
		return time.Time{}, err
	}
	var newest time.Time
	for _, m := range mates {
		fs, err := ws.Files(m.Name)
		if err != nil {
			return time.Time{}, err
		}
		for _, f := range fs {
			if f.Date.After(newest) {
				newest = f.Date
			}
		}
	}
	if newest.IsZero() {
		return time.Time{}, fmt.Errorf("no dated file to ask after: put a \"now\" date in the set")
	}
	return newest.AddDate(0, 0, layout.RecentDays), nil
}

// cutoffs are the depths scored when k hits are asked for.
func cutoffs(k int) []int {
	var out []int
	for _, c := range []int{1, 5, 10} {
		if c < k {
			out = append(out, c)
		}
	}
	return append(out, k)
}

func evalMode(ctx context.Context, ix *Index, set *EvalSet, mode string, k int) (EvalResult, error) {
	res := EvalResult{Mode: mode, ByTag: map[string]EvalScores{}, Misses: []string{}}
	var all []qScore
	byTag := map[string][]qScore{}
	lines := newFileLines(ix.ws)
	for _, q := range set.Questions {
		var mates []string
		if q.Teammate != "" {
			mates = []string{q.Teammate}
		}
		hits, err := ix.Search(ctx, Query{Text: q.Query, Teammates: mates, K: k, NoSync: true, Mode: mode})
		if err != nil {
			return res, fmt.Errorf("eval %s: %w", q.ID, err)
		}
		s := scoreHits(hits, q, k, lines)
		all = append(all, s)
		for _, t := range q.Tags {
			byTag[t] = append(byTag[t], s)
		}
		if s.found(k) == 0 {
			res.Misses = append(res.Misses, q.ID)
		}
	}
	res.EvalScores = average(all, cutoffs(k))
	for t, ss := range byTag {
		res.ByTag[t] = average(ss, cutoffs(k))
	}
	sort.Strings(res.Misses)
	return res, nil
}

// qScore is one question's result: the rank (1-based) of the first hit
// holding each target, 0 when none of the hits does, and the tokens of
// each hit.
type qScore struct {
	ranks  []int
	tokens []int
}

// found counts the targets in the top k.
func (s qScore) found(k int) int {
	n := 0
	for _, r := range s.ranks {
		if r > 0 && r <= k {
			n++
		}
	}
	return n
}

func scoreHits(hits []Hit, q EvalQuestion, k int, lines *fileLines) qScore {
	if len(hits) > k {
		hits = hits[:k]
	}
	var s qScore
	for _, h := range hits {
		s.tokens = append(s.tokens, len(h.Text)/4)
	}
	for _, t := range q.targets() {
		r := 0
		for i, h := range hits {
			if holds(h, t, len(q.Evidence) > 0, lines) {
				r = i + 1
				break
			}
		}
		s.ranks = append(s.ranks, r)
	}
	return s
}

// holds reports whether hit h finds target t: its file, or for evidence
// the tagged line, in its text or its lines.
func holds(h Hit, t string, evidence bool, lines *fileLines) bool {
	if !evidence {
		return h.Path == t
	}
	tag := "[" + t + "]"
	if strings.Contains(h.Text, tag) {
		return true
	}
	ls := lines.of(h.Path)
	for n := max(h.StartLine, 1); n <= h.EndLine && n <= len(ls); n++ {
		if strings.Contains(ls[n-1], tag) {
			return true
		}
	}
	return false
}

func average(ss []qScore, ks []int) EvalScores {
	out := EvalScores{Questions: len(ss)}
	if len(ss) == 0 {
		return out
	}
	n := float64(len(ss))
	for _, k := range ks {
		a := AtK{K: k}
		for _, s := range ss {
			f := s.found(k)
			if len(s.ranks) > 0 {
				a.Recall += float64(f) / float64(len(s.ranks))
			}
			if f > 0 {
				a.Hit++
			}
			for i := 0; i < k && i < len(s.tokens); i++ {
				a.Tokens += float64(s.tokens[i])
			}
		}
		a.Recall, a.Hit, a.Tokens = a.Recall/n, a.Hit/n, a.Tokens/n
		out.Cutoffs = append(out.Cutoffs, a)
	}
	for _, s := range ss {
		first := 0
		for _, r := range s.ranks {
			if r > 0 && (first == 0 || r < first) {
				first = r
			}
		}
		if first > 0 {
			out.MRR += 1 / float64(first)
		}
	}
	out.MRR /= n
	return out
}

// fileLines reads workspace files once each, as lines; a file that
// cannot be read has none.
type fileLines struct {
	ws    *layout.Workspace
	files map[string][]string
}

func newFileLines(ws *layout.Workspace) *fileLines {
	return &fileLines{ws: ws, files: map[string][]string{}}
}

func (f *fileLines) of(rel string) []string {
	if ls, ok := f.files[rel]; ok {
		return ls
	}
	var ls []string
	if b, err := f.ws.ReadFile(rel, 0); err == nil {
		ls = strings.Split(string(b), "\n")
	}
	f.files[rel] = ls
	return ls
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
		return copyFile(p, target)
	})
}

// copyFile copies the regular file src to dst, streaming.
func copyFile(src, dst string) error {
	in, err := layout.OpenRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// String formats the report as a table: recall, hit rate and tokens at
// each cut-off, and MRR.
func (r *EvalReport) String() string {
	var b strings.Builder
	b.WriteString(scoreHeader("mode", r.K))
	for _, x := range r.Results {
		b.WriteString(scoreRow(x.Mode, x.EvalScores))
	}
	if r.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", r.Note)
	}
	return b.String()
}

// Details formats each mode's scores per tag and its missed questions.
func (r *EvalReport) Details() string {
	var b strings.Builder
	b.WriteString(scoreHeader("mode/tag", r.K))
	for _, x := range r.Results {
		var tags []string
		for t := range x.ByTag {
			tags = append(tags, t)
		}
		sort.Strings(tags)
		for _, t := range tags {
			b.WriteString(scoreRow(x.Mode+" "+t, x.ByTag[t]))
		}
		if len(x.Misses) > 0 {
			fmt.Fprintf(&b, "%s missed in the top %d: %s\n", x.Mode, r.K, strings.Join(x.Misses, " "))
		}
	}
	return b.String()
}

// scoreHeader and scoreRow lay out one column group each for recall, hit
// rate and tokens, one number per cut-off.
func scoreHeader(first string, k int) string {
	ks := cutoffs(k)
	at := atLabel(ks)
	w := colWidth(ks)
	return fmt.Sprintf("%-22s %4s  %-*s %-*s %-*s %6s\n", first, "n", w, "recall"+at, w, "hit"+at, w, "tokens"+at, "MRR")
}

func scoreRow(name string, s EvalScores) string {
	var ks []int
	var rec, hit, tok []string
	for _, a := range s.Cutoffs {
		ks = append(ks, a.K)
		rec = append(rec, fmt.Sprintf("%.3f", a.Recall))
		hit = append(hit, fmt.Sprintf("%.3f", a.Hit))
		tok = append(tok, fmt.Sprintf("%.0f", a.Tokens))
	}
	w := colWidth(ks)
	return fmt.Sprintf("%-22s %4d  %-*s %-*s %-*s %6.3f\n", name, s.Questions,
		w, strings.Join(rec, " "), w, strings.Join(hit, " "), w, strings.Join(tok, " "), s.MRR)
}

func atLabel(ks []int) string {
	var b strings.Builder
	for i, k := range ks {
		if i == 0 {
			b.WriteString("@")
		} else {
			b.WriteString("/")
		}
		fmt.Fprint(&b, k)
	}
	return b.String()
}

func colWidth(ks []int) int { return max(6*len(ks), len(atLabel(ks))+6) }
