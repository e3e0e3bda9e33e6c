package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
)

// LogInput is an entry for today's daily log.
type LogInput struct {
	Teammate string `json:"teammate,omitempty" jsonschema:"whose log; defaults to the teammate the session is bound to"`
	Heading  string `json:"heading,omitempty" jsonschema:"the entry's heading (one line); default: the first line of text"`
	Text     string `json:"text" jsonschema:"the entry: free text or Markdown bullets; text that looks like a secret is refused"`
}

// WriteOutput says which file a write went to.
type WriteOutput struct {
	Path string `json:"path" jsonschema:"the file written, relative to the workspace"`
	Mode string `json:"mode,omitempty"`
}

// Log appends an entry to today's daily log.
func (s *Service) Log(ctx context.Context, in LogInput) (WriteOutput, error) {
	name, err := s.writable(in.Teammate)
	if err != nil {
		return WriteOutput{}, err
	}
	heading, text, err := layout.SplitEntry(in.Heading, in.Text, "a heading")
	if err != nil {
		return WriteOutput{}, err
	}
	done, err := s.beginWrite()
	if err != nil {
		return WriteOutput{}, err
	}
	defer done()
	rel, err := s.ws.AppendDaily(context.WithoutCancel(ctx), name, s.localNow(), heading, text, layout.Stamped)
	s.fresh.changed()
	if err != nil {
		return WriteOutput{}, err
	}
	return WriteOutput{Path: rel}, nil
}

// RememberInput is a typed memory to write.
type RememberInput struct {
	Teammate    string `json:"teammate,omitempty" jsonschema:"who remembers; defaults to the teammate the session is bound to"`
	Type        string `json:"type" jsonschema:"user, feedback, project or reference"`
	Topic       string `json:"topic" jsonschema:"short topic, slugged into the file name memory/<type>_<topic>.md"`
	Name        string `json:"name,omitempty" jsonschema:"the memory's name (frontmatter), a short title; required but to append to a memory that exists, whose name is kept"`
	Description string `json:"description,omitempty" jsonschema:"one line saying what it is about (frontmatter)"`
	Body        string `json:"body" jsonschema:"the memory; for feedback and project: the rule or fact, then **Why:** and **How to apply:**"`
	Mode        string `json:"mode,omitempty" jsonschema:"create (default; refused when the memory exists), append (add the body to it) or overwrite"`
}

// Remember writes a typed memory.
func (s *Service) Remember(ctx context.Context, in RememberInput) (WriteOutput, error) {
	name, err := s.writable(in.Teammate)
	if err != nil {
		return WriteOutput{}, err
	}
	mode := layout.Mode(in.Mode)
	if in.Mode == "" {
		mode = layout.ModeCreate
	}
	switch {
	case !mode.Valid():
		return WriteOutput{}, fmt.Errorf("mode %q: want create, append or overwrite", in.Mode)
	case !layout.KnownType(in.Type):
		return WriteOutput{}, fmt.Errorf("type %q: want user, feedback, project or reference", in.Type)
	case strings.TrimSpace(in.Name) == "" && mode != layout.ModeAppend:
		return WriteOutput{}, errors.New("name is required: a short title for the memory")
	}
	if _, err := layout.Slug(in.Topic); err != nil {
		return WriteOutput{}, fmt.Errorf("topic: %w", err)
	}
	done, err := s.beginWrite()
	if err != nil {
		return WriteOutput{}, err
	}
	defer done()
	rel, err := s.ws.WriteMemory(context.WithoutCancel(ctx), name, layout.Memory{
		Type: in.Type, Topic: in.Topic, Name: in.Name, Description: in.Description, Body: in.Body, At: s.now(),
	}, mode, layout.Stamped)
	s.fresh.changed()
	if err != nil {
		return WriteOutput{}, err
	}
	return WriteOutput{Path: rel, Mode: string(mode)}, nil
}

// writable picks the teammate a write goes to and checks the session may
// write there.
func (s *Service) writable(asked string) (string, error) {
	name, err := s.scope.pick(asked)
	if err != nil {
		return "", err
	}
	if err := s.checkTeammate(name); err != nil {
		return "", err
	}
	if err := s.scope.canWrite(name); err != nil {
		return "", err
	}
	return name, nil
}

// ListInput picks the files to list.
type ListInput struct {
	Teammate string `json:"teammate,omitempty" jsonschema:"only this teammate's files; default: the session's own teammate, or everyone for an unbound or lead session"`
	Kind     string `json:"kind,omitempty" jsonschema:"only files of this kind: soul, goals, wisdom, daily, typed, weekly, monthly, crossteam, archive"`
}

// ListOutput lists memory files.
type ListOutput struct {
	Files []layout.Listing `json:"files"`
}

// List lists memory files within the session's scope.
func (s *Service) List(ctx context.Context, in ListInput) (ListOutput, error) {
	if in.Kind != "" && !layout.ValidKind(in.Kind) {
		return ListOutput{}, fmt.Errorf("kind %q: want one of %s", in.Kind, layout.KindNames())
	}
	name := in.Teammate
	if name == "" && s.scope.bound() && !s.scope.lead {
		name = s.scope.teammate
	}
	if name != "" {
		if err := s.checkTeammate(name); err != nil {
			return ListOutput{}, err
		}
		if err := s.scope.canRead(name); err != nil {
			return ListOutput{}, err
		}
	}
	files, err := s.ws.List(name, layout.Kind(in.Kind))
	if err != nil {
		return ListOutput{}, err
	}
	return ListOutput{Files: files}, nil
}

// CompactPlanInput picks whose compaction to plan.
type CompactPlanInput struct {
	Teammate string `json:"teammate,omitempty" jsonschema:"plan for this teammate only; default: the session's own teammate, or everyone for an unbound session"`
}

// CompactPlanOutput is what a compaction would do now. Nothing is changed:
// compaction itself stays with tmem compact, run by an operator or cron.
type CompactPlanOutput struct {
	Units  []PlannedUnit             `json:"units"`
	Failed []compact.Failure         `json:"failed,omitempty" jsonschema:"units and files that could not be planned, each with its error; the rest of the plan stands"`
	Kept   []compact.Kept            `json:"kept,omitempty"`
	Merges []compact.MergeSuggestion `json:"merge_suggestions,omitempty"`
	Notes  []string                  `json:"notes,omitempty"`
}

// PlannedUnit is one summary a compaction would write, with the files it
// would take out of memory/.
type PlannedUnit struct {
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Writes  []string `json:"writes"`
	Deletes []string `json:"deletes"`
}

// CompactPlan plans a compaction without touching anything.
func (s *Service) CompactPlan(ctx context.Context, in CompactPlanInput) (CompactPlanOutput, error) {
	name := in.Teammate
	if name == "" && s.scope.bound() {
		name = s.scope.teammate
	}
	var names []string
	if name != "" {
		if err := s.checkTeammate(name); err != nil {
			return CompactPlanOutput{}, err
		}
		if err := s.scope.canRead(name); err != nil {
			return CompactPlanOutput{}, err
		}
		names = []string{name}
	}
	cfg, err := compact.LoadConfig(s.ws)
	if err != nil {
		return CompactPlanOutput{}, err
	}
	opts := compact.Options{Teammates: names, DryRun: true, Now: s.now}
	cfg.Apply(&opts)
	res, err := compact.Run(ctx, s.ws, opts)
	if errors.Is(err, compact.ErrLocked) {
		return CompactPlanOutput{}, fmt.Errorf("a compaction is running on this workspace; plan again when it is done: %w", err)
	}
	if err != nil && !planned(ctx, res) {
		return CompactPlanOutput{}, err
	}
	out := planOutput(res, names)
	for _, k := range cfg.UnknownKeys() {
		out.Notes = append(out.Notes, fmt.Sprintf("%s:%d: %s", k.Path, k.Line, k.Message))
	}
	return out, nil
}

// planned reports whether a dry run that returned an error still made a
// plan: it did when units or files failed, which the plan lists, and the
// call was not cancelled.
func planned(ctx context.Context, res *compact.Result) bool {
	return ctx.Err() == nil && res != nil && res.Plan != nil && len(res.Plan.Failed)+len(res.Failed) > 0
}

// planOutput is res as a tool result, with only the teammates in names
// (all when nil). A dry run that finds an interrupted compaction's
// journal shows what is left of that plan, whoever it was for: a session
// must not see units of teammates it cannot read.
func planOutput(res *compact.Result, names []string) CompactPlanOutput {
	mine := func(teammate string) bool { return names == nil || contains(names, teammate) }
	owner := func(p string) string { t, _, _ := strings.Cut(p, "/"); return t }
	out := CompactPlanOutput{Units: []PlannedUnit{}, Notes: res.Notes}
	for _, u := range res.Plan.Units {
		if !mine(u.Teammate) {
			continue
		}
		pu := PlannedUnit{ID: u.ID, Kind: string(u.Kind), Writes: []string{}, Deletes: []string{}}
		for _, w := range u.Writes {
			pu.Writes = append(pu.Writes, w.Path)
		}
		for _, d := range u.Deletes {
			pu.Deletes = append(pu.Deletes, d.Path)
		}
		out.Units = append(out.Units, pu)
	}
	for _, f := range append(append([]compact.Failure{}, res.Plan.Failed...), res.Failed...) {
		if mine(owner(f.Unit)) {
			out.Failed = append(out.Failed, f)
		}
	}
	for _, k := range res.Plan.Kept {
		if mine(owner(k.Path)) {
			out.Kept = append(out.Kept, k)
		}
	}
	for _, m := range res.Plan.Merges {
		if mine(m.Teammate) {
			out.Merges = append(out.Merges, m)
		}
	}
	if res.Resumed {
		out.Notes = append(out.Notes, "an interrupted compaction is pending: these units are what is left of its plan, which the next tmem compact finishes before it plans anew")
	}
	return out
}

// SessionInput reads or replaces a teammate's session file.
type SessionInput struct {
	Teammate string  `json:"teammate,omitempty" jsonschema:"whose session file; defaults to the teammate the session is bound to"`
	Text     *string `json:"text,omitempty" jsonschema:"the file's new text, replacing it whole; leave it out to read the file"`
}

// SessionOutput is a session file.
type SessionOutput struct {
	Path    string `json:"path" jsonschema:"the session file, relative to the workspace"`
	Text    string `json:"text" jsonschema:"its text: what it holds, or was just given"`
	Written bool   `json:"written,omitempty"`
}

// Session reads or replaces the session file the stack names (scratch
// notes one task leaves for the next), for clients that reach memory only
// through the server. Like a write, it is for a teammate the session may
// write.
func (s *Service) Session(ctx context.Context, in SessionInput) (SessionOutput, error) {
	name, err := s.writable(in.Teammate)
	if err != nil {
		return SessionOutput{}, err
	}
	if in.Text == nil {
		rel, text, err := s.ws.ReadSession(name)
		return SessionOutput{Path: rel, Text: text}, err
	}
	done, err := s.beginWrite()
	if err != nil {
		return SessionOutput{}, err
	}
	defer done()
	rel, err := s.ws.WriteSession(name, *in.Text)
	if err != nil {
		return SessionOutput{}, err
	}
	return SessionOutput{Path: rel, Text: *in.Text, Written: true}, nil
}
