package compact

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// Options builds compaction options from the config: the summarizer
// (named, else configured, else extractive) and the retention settings.
func (c Config) Options(ws *layout.Workspace, summarizer string, env SummarizerEnv) (Options, error) {
	s, err := c.NewSummarizer(summarizer, ws, env)
	if err != nil {
		return Options{}, err
	}
	o := Options{Summarizer: s}
	c.Apply(&o)
	return o, nil
}

// WriteDryRun prints a dry run's result for people: that an interrupted
// compaction is pending, the notes, the proposals held by earlier runs,
// then the plan (see Plan.WriteText).
func (r *Result) WriteDryRun(w io.Writer) error {
	var b strings.Builder
	if r.Resumed {
		b.WriteString("an interrupted compaction is pending; the next run finishes it first:\n")
	}
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	for _, p := range r.Pending {
		fmt.Fprintf(&b, "pending %s: a model's summary held for review in %s (tmem compact --apply %s, or --discard)\n", p.ID, p.File, p.ID)
	}
	if _, err := io.WriteString(w, b.String()); err != nil || r.Plan == nil {
		return err
	}
	return r.Plan.WriteText(w)
}

// WriteText prints a plan for people: one line per unit, then what is
// kept on purpose, what failed and the WISDOM.md merge proposals.
func (p *Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(p.Units) == 0 {
		b.WriteString("nothing to compact\n")
	}
	for _, u := range p.Units {
		var parts []string
		for _, wr := range u.Writes {
			verb := "update"
			if wr.Before == "" {
				verb = "create"
			}
			parts = append(parts, verb+" "+wr.Path)
		}
		var deleted, stubbed []string
		for _, d := range u.Deletes {
			name := d.Path[strings.LastIndex(d.Path, "/")+1:]
			if d.Stub != "" {
				stubbed = append(stubbed, name)
			} else {
				deleted = append(deleted, name)
			}
		}
		if n := len(stubbed); n > 0 {
			parts = append(parts, fmt.Sprintf("leave %d as stubs (%s)", n, strings.Join(stubbed, ", ")))
		}
		if n := len(deleted); n > 0 {
			parts = append(parts, fmt.Sprintf("delete %d (%s)", n, strings.Join(deleted, ", ")))
		}
		fmt.Fprintf(&b, "%s: %s\n", u.ID, strings.Join(parts, "; "))
	}
	for _, k := range p.Kept {
		fmt.Fprintf(&b, "keep %s: %s\n", k.Path, k.Reason)
	}
	for _, f := range p.Failed {
		fmt.Fprintf(&b, "fail %s\n", f)
	}
	for _, pr := range p.Proposals {
		fmt.Fprintf(&b, "held %s: the model wrote %d sentence(s) its sources do not support, e.g. %q; read %s, then tmem compact --apply %s (or --discard)\n", pr.ID, len(pr.Unsupported), first(pr.Unsupported), pr.File, pr.ID)
	}
	for _, m := range p.Merges {
		fmt.Fprintln(&b, m)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FailureLines says what failed, a line each, for stderr: every unit or
// file that failed, except that the units of a teammate not applied after
// one of its own failed (a full disk fails every one after it) are
// counted in one line, after that unit's.
func (r *Result) FailureLines() []string {
	var all []Failure
	if r.Plan != nil {
		all = append(all, r.Plan.Failed...)
	}
	all = append(all, r.Failed...)
	followers := map[string]int{}
	for _, f := range all {
		if f.after != "" {
			followers[f.after]++
		}
	}
	var out []string
	for _, f := range all {
		if f.after != "" {
			continue
		}
		out = append(out, f.String())
		if n := followers[f.Unit]; n > 0 {
			out = append(out, fmt.Sprintf("%s: and %d more unit(s) of its teammate, not applied after it; the next run plans them again", f.Unit, n))
		}
	}
	return out
}

// String is the failure as a line names it: the unit, then the error,
// the unit said once when the error starts with it (a file with its line).
func (f Failure) String() string {
	if strings.HasPrefix(f.Error, f.Unit+":") {
		return f.Error
	}
	return f.Unit + ": " + f.Error
}

func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}
