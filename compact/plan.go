package compact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/secrets"
	"github.com/tmemhq/tmem/layout"
)

// planner holds one teammate's files while its units are planned. Files
// that units write (typed memories, WISDOM.md, archive files) are kept in
// an overlay of planned content, so that later units see earlier units'
// writes and chain their compare-and-swap hashes.
type planner struct {
	ctx  context.Context
	ws   *layout.Workspace
	o    *Options
	name string
	now  time.Time
	p    *Plan

	files   []layout.File
	overlay map[string]*memFile // by workspace-relative path

	committed map[string]time.Time // see commitTimes
	gitRead   bool

	answers  map[string]string // this unit's summaries, by request key
	doubtful []string          // this unit's model sentences without support
}

// memFile is a file as planned: Content is what it will hold.
type memFile struct {
	Path    string
	Content []byte
	Exists  bool
	ModTime time.Time
	Fresh   bool // written by this plan
	// Last is the hash the file has once the units planned so far are
	// applied ("" for absent): the Before of the next unit's write.
	Last string
}

// dayFile is a daily log read for planning.
type dayFile struct {
	layout.File
	Body []byte
	SHA  string
}

func planTeammate(ctx context.Context, ws *layout.Workspace, o *Options, name string, p *Plan) error {
	files, unusable, err := ws.FilesChecked(name)
	if err != nil {
		return fmt.Errorf("compact %s: %w", name, err)
	}
	pl := &planner{ctx: ctx, ws: ws, o: o, name: name, now: o.Now(), p: p, files: files, overlay: map[string]*memFile{}}
	pl.skipUnusable(unusable)
	for _, f := range files {
		if f.Kind == layout.KindTyped && f.NameErr == "" || f.Kind == layout.KindWisdom {
			mf, err := pl.file(f.Path)
			if err == nil && f.Kind == layout.KindTyped {
				err = unresolved(f.Path, mf.Content)
			}
			if err != nil {
				pl.skip(f.Path, err)
			}
		}
	}
	if o.Episodic {
		if err := pl.episodic(); err != nil {
			return err
		}
	}
	if o.Semantic {
		if err := pl.semantic(); err != nil {
			return err
		}
	}
	return nil
}

// file returns the planned state of a workspace file, reading it on first
// use. A file that does not exist is returned with Exists false.
func (pl *planner) file(rel string) (*memFile, error) {
	if mf := pl.overlay[rel]; mf != nil {
		return mf, nil
	}
	mf := &memFile{Path: rel}
	b, err := pl.ws.ReadFile(rel, layout.MaxArchiveSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		mf.Content, mf.Exists, mf.Last = b, true, sum(b)
		if st, err := pl.ws.Stat(rel); err == nil {
			mf.ModTime = st.ModTime()
		}
	}
	pl.overlay[rel] = mf
	return mf, nil
}

// skip records a file that could not be read or parsed; it is left as it
// is and the run fails at its end.
func (pl *planner) skip(rel string, err error) {
	pl.p.Failed = append(pl.p.Failed, Failure{Unit: rel, Error: err.Error()})
}

// skipOnce is skip for a file that may be looked at more than once in a
// plan: it is recorded the first time.
func (pl *planner) skipOnce(rel string, err error) {
	for _, f := range pl.p.Failed {
		if f.Unit == rel {
			return
		}
	}
	pl.skip(rel, err)
}

// skipUnusable records the memory files that cannot be read (not regular
// files, links leading outside) and the dailies and weeklies whose names
// are not real dates or weeks: each is left as it is, and the run fails at
// its end.
func (pl *planner) skipUnusable(unusable []error) {
	for _, err := range unusable {
		var pe *layout.ParseError
		if errors.As(err, &pe) {
			pl.skip(pe.Path, fmt.Errorf("%w; left as it is", pe.Err))
		} else {
			pl.skip(pl.name, err)
		}
	}
	for _, f := range pl.files {
		if f.NameErr != "" && (f.Kind == layout.KindDaily || f.Kind == layout.KindWeekly) {
			pl.skip(f.Path, fmt.Errorf("%s; left as it is: rename it to the %s it holds", f.NameErr, map[layout.Kind]string{layout.KindDaily: "day", layout.KindWeekly: "week"}[f.Kind]))
		}
	}
}

// fail records a unit that could not be planned; its sources are kept.
func (pl *planner) fail(id string, err error) {
	pl.p.Failed = append(pl.p.Failed, Failure{Unit: id, Error: err.Error()})
}

// memRel is a path relative to the teammate's memory folder.
func (pl *planner) memRel(path string) string {
	return strings.TrimPrefix(path, pl.name+"/memory/")
}

func (pl *planner) recent(day time.Time) bool {
	return pl.o.KeepRecentDays > 0 && layout.InRecentWindow(day, pl.now, pl.o.KeepRecentDays)
}

// unit collects one unit's writes and deletes. Writes go through the
// overlay; each file's Before is its planned hash when the unit first
// touches it.
type unit struct {
	pl     *planner
	u      Unit
	before map[string]string
	saved  map[string]memFile // each touched file as it was, to undo
	order  []string
}

func (pl *planner) newUnit(id string, kind Kind) *unit {
	pl.answers, pl.doubtful = map[string]string{}, nil
	return &unit{pl: pl, u: Unit{ID: id, Kind: kind, Teammate: pl.name}, before: map[string]string{}, saved: map[string]memFile{}}
}

// write plans rel's new content.
func (ub *unit) write(rel string, content []byte) error {
	mf, err := ub.pl.file(rel)
	if err != nil {
		return err
	}
	if mf.Exists && !archiveFile(rel) {
		if err := unresolved(rel, mf.Content); err != nil {
			return err
		}
	}
	if _, ok := ub.before[rel]; !ok {
		ub.before[rel] = mf.Last
		ub.saved[rel] = *mf
		ub.order = append(ub.order, rel)
	}
	// A file saved with CRLF keeps them; archive files are left alone:
	// their sections hold their sources' bytes exactly.
	if mf.Exists && !archiveFile(rel) {
		content = layout.KeepLineEndings(mf.Content, content)
	}
	mf.Content, mf.Exists, mf.Fresh = content, true, true
	return nil
}

// remove plans deleting rel if its hash is still sha, once its archive
// copy (a workspace-relative path, "" for none) is checked; with a stub,
// rel is replaced by it instead.
func (ub *unit) remove(rel, sha, archive string, stub []byte) {
	ub.u.Deletes = append(ub.u.Deletes, Delete{Path: rel, SHA: sha, Archive: archive, Stub: string(stub)})
}

// done adds the unit to the plan (or, when a model's text lacked support,
// holds it as a proposal) and returns whether it was added.
func (ub *unit) done() bool {
	pl := ub.pl
	for _, rel := range ub.order {
		mf := pl.overlay[rel]
		if after := sum(mf.Content); after != ub.before[rel] {
			ub.u.Writes = append(ub.u.Writes, Write{Path: rel, Before: ub.before[rel], After: after, Content: string(mf.Content)})
		}
	}
	if len(ub.u.Writes)+len(ub.u.Deletes) == 0 {
		ub.abandon()
		return false
	}
	if len(pl.doubtful) > 0 {
		pl.propose(ub.u, pl.answers, pl.doubtful)
		ub.abandon()
		return false
	}
	for _, w := range ub.u.Writes {
		pl.overlay[w.Path].Last = w.After
	}
	pl.p.Units = append(pl.p.Units, ub.u)
	return true
}

// abandon drops the unit: every file it touched is planned as before.
func (ub *unit) abandon() {
	for rel, mf := range ub.saved {
		*ub.pl.overlay[rel] = mf
	}
}

// summarize asks the summarizer, checks what comes back and notes model
// sentences that have no support in the sources. An answer kept in a
// proposal (or being applied from one) is used instead of asking again.
// After MaxFailures failures in a row it stops asking: the error wraps
// ErrStopped.
func (pl *planner) summarize(req Request) (string, error) {
	key := req.key()
	if out, ok := pl.o.replay[key]; ok {
		pl.answers[key] = out
		return strings.TrimSpace(out) + "\n", nil
	}
	if h, ok := pl.o.held[key]; ok {
		pl.answers[key] = h.text
		pl.doubtful = append(pl.doubtful, h.unsupported...)
		return strings.TrimSpace(h.text) + "\n", nil
	}
	if pl.o.failures >= pl.o.MaxFailures {
		return "", fmt.Errorf("%w; not asked", ErrStopped)
	}
	fmt.Fprintf(pl.o.Log, "summarize %s %s %s (%d sources)\n", pl.name, req.Kind, req.Unit, len(req.Sources))
	out, err := pl.o.summarizer.Summarize(pl.ctx, req)
	if err != nil && !errors.Is(err, ErrInvalidOutput) {
		if pl.o.failures++; pl.o.failures >= pl.o.MaxFailures {
			return "", fmt.Errorf("%w (%d): %v", ErrStopped, pl.o.failures, err)
		}
		return "", err
	}
	pl.o.failures = 0
	if err != nil {
		return "", err
	}
	if !isExtractive(pl.o.summarizer) {
		if err := Validate(req, out); err != nil {
			return "", err
		}
		pl.doubtful = append(pl.doubtful, unsupported(req, out)...)
		out = keepMarked(req, out)
	} else if strings.TrimSpace(out) == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalidOutput)
	}
	out = pl.redact(req, out)
	pl.answers[key] = out
	return strings.TrimSpace(out) + "\n", nil
}

// redact replaces every secret a summary would quote by [REDACTED:kind]:
// compaction moves a secret to the archive with its log, and never
// spreads it to a summary or WISDOM.md.
func (pl *planner) redact(req Request, out string) string {
	red, found := secrets.Redact(out)
	for _, f := range found {
		at := ""
		if where := pl.secretSource(req, out[f.Start:f.End]); where != "" {
			at = " that " + where + " holds and"
		}
		what := strings.TrimSpace(string(req.Kind) + " " + req.Unit) // a wisdom request may have no unit
		pl.p.Notes = append(pl.p.Notes, fmt.Sprintf("%s: left out a secret (%s)%s the summary would have quoted", what, f.Rule, at))
	}
	return red
}

// secretSource names the first source of req that holds secret, as
// "path:line" ("path" when its text holds it but its file, as planned,
// no longer does); "" when none does.
func (pl *planner) secretSource(req Request, secret string) string {
	for _, src := range req.Sources {
		if !strings.Contains(src.Text, secret) {
			continue
		}
		b := pl.planned(src.Path)
		if i := bytes.Index(b, []byte(secret)); i >= 0 {
			return fmt.Sprintf("%s:%d", src.Path, bytes.Count(b[:i], []byte("\n"))+1)
		}
		return src.Path
	}
	return ""
}

// planned is the content of rel as planned so far, without reading it
// into the overlay; nil when it cannot be read.
func (pl *planner) planned(rel string) []byte {
	if mf := pl.overlay[rel]; mf != nil {
		return mf.Content
	}
	b, _ := pl.ws.ReadFile(rel, layout.MaxArchiveSize)
	return b
}

func isExtractive(s Summarizer) bool {
	_, ok := s.(Extractive)
	return ok
}

// keepMarked appends to a model's weekly or monthly summary every marked
// paragraph of its sources that the model dropped or reworded, so that
// decisions and lessons survive word for word whatever the backend.
func keepMarked(req Request, out string) string {
	if req.Kind == KindWisdom {
		return out
	}
	var missing []string
	seen := map[string]bool{}
	for _, src := range append([]Source{{Path: "existing", Text: req.Existing}}, req.Sources...) {
		d, err := layout.Parse(src.Path, []byte(src.Text))
		if err != nil {
			continue
		}
		for _, en := range d.Entries {
			for _, m := range markedTexts(en) {
				if !seen[m] && !strings.Contains(out, m) {
					seen[m] = true
					missing = append(missing, "- "+m)
				}
			}
		}
	}
	if len(missing) == 0 {
		return out
	}
	return strings.TrimSpace(out) + "\n\n## Decisions and lessons (word for word)\n\n" + strings.Join(missing, "\n") + "\n"
}

// markedTexts are an entry's marked paragraphs, and its heading when the
// heading itself is marked.
func markedTexts(en layout.Entry) []string {
	var out []string
	if markedPrefixOf(en.Heading) != "" {
		out = append(out, en.Heading)
	}
	for _, b := range entryBlocks(en.Heading, en.Text) {
		if b.Mark != "" {
			out = append(out, b.Text)
		}
	}
	return out
}

// teammateFiles returns the teammate's files of one kind.
func (pl *planner) filesOf(kind layout.Kind) []layout.File {
	var out []layout.File
	for _, f := range pl.files {
		if f.Kind == kind && f.NameErr == "" {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
