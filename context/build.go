package context

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/templates"
)

// Budget defaults and bounds, in tokens.
const (
	// DefaultBudget is the memory budget shared by recalled memories and
	// the recent daily logs.
	DefaultBudget = 32000
	// MinBudget is the smallest budget Build accepts: below it even the
	// headings of the two memory sections would not fit.
	MinBudget = 256
	// DefaultRecallK is the fewest hits Build asks recall for; it asks for
	// one per RecallTokensPerHit tokens granted to recall when that is
	// more, up to MaxRecallK, so that recall can fill what the daily logs
	// leave.
	DefaultRecallK     = 20
	RecallTokensPerHit = 400
	MaxRecallK         = 100
)

// DefaultRecallFloor is the relevance floor of recalled memories: one
// scoring under this share of the best one's score is left out, whatever
// room is left (see the README for how it was chosen).
const DefaultRecallFloor = 0.1

// DefaultIndexWait is how long a build waits for a recall index that
// another call or process holds: the stack is asked for before every
// task, and does without recall rather than hold the task for as long as
// a search would wait (recall.DefaultLockTimeout). An everyday sync holds
// an index for well under a second.
const DefaultIndexWait = 5 * time.Second

// DailyShare is the part of the budget the recent daily logs may use:
// 24,000 of the default 32,000 tokens. Recall gets the rest plus whatever
// the daily logs leave unused. It is counted without multiplying the
// budget first, so that a budget near the largest int does not wrap round.
func DailyShare(budget int) int { return budget/4*3 + budget%4*3/4 }

// Recaller is the part of the recall index Build needs.
type Recaller interface {
	Search(ctx context.Context, q recall.Query) ([]recall.Hit, error)
	// HasVectors reports whether the index ranks with an embedding model
	// as well as BM25.
	HasVectors() bool
}

// Options configure Build.
type Options struct {
	Teammate string
	// Task is the user's message: the last section, and the recall query.
	Task string
	// Budget is the memory budget in tokens; 0 means DefaultBudget.
	Budget int
	// Tokenizer counts tokens; nil means NewTokenizer(DefaultTokenizer).
	Tokenizer Tokenizer
	// Now is the clock; required. It decides which daily logs are recent
	// and the date and time the stack states.
	Now func() time.Time
	// Location is the time zone of "today" and of the stated time; nil
	// means Now's own location.
	Location *time.Location
	// Recaller finds relevant memories; nil leaves that section empty and
	// says so in the manifest.
	Recaller Recaller
	// RecallK is how many hits to ask for; 0 scales it with the budget
	// (see DefaultRecallK).
	RecallK int
	// RecallFloor is the share of the best recalled memory's score below
	// which a memory is not injected; 0 means DefaultRecallFloor, a
	// negative value no floor.
	RecallFloor float64
	// IndexWait bounds the wait for a recall index another call or
	// process holds (a sync, a rebuild after a compaction) before the
	// stack is built without recalled memories; 0 means DefaultIndexWait.
	IndexWait time.Duration
	// Cache, when set, keeps parsed files between builds (see Cache);
	// nil reads every file on every build.
	Cache *Cache
	// Warn, when set, receives one line for each thing that made the stack
	// lose or bend something: a file left out or read leniently
	// ("path:line: why"), a session file that could not be created, a
	// template override that could not be read, a failed recall, an
	// exceeded budget. Each is also a manifest note.
	Warn func(msg string)
}

// Result is a built prompt stack.
type Result struct {
	Text     string // the Markdown document, sections in stack order
	Manifest Manifest
}

// Section names, in stack order.
const (
	SectionSoul         = "soul"
	SectionGoals        = "goals"
	SectionWisdom       = "wisdom"
	SectionRecall       = "recall"
	SectionDailies      = "dailies"
	SectionSession      = "session"
	SectionRoster       = "roster"
	SectionInstructions = "instructions"
	SectionProtocol     = "protocol"
	SectionNow          = "now"
	SectionTask         = "task"
)

// section is one part of the stack while it is being built.
type section struct {
	Section
	text string // "# heading\n\n…\n\n"; the last section ends in a single "\n"
}

// builder holds what the sections of one Build share.
type builder struct {
	ws      *layout.Workspace
	mate    layout.Teammate
	mates   []layout.Teammate // every teammate, for the roster
	now     time.Time
	tok     Tokenizer
	prefix  string            // shown before workspace-relative paths: ".teammates/"
	files   []layout.File     // the daily logs of the recent window
	fixed   map[string]string // path → section name, for SOUL, GOALS and WISDOM
	man     *Manifest
	dailies []dayLog
	warnFn  func(string)
	cache   *Cache
	// todayLeftOut is why today's log, which exists, is not in the stack.
	todayLeftOut string
	noRecall     block // counted once, when first needed
}

// Build assembles the prompt stack of one teammate for one task:
// SOUL.md, GOALS.md and WISDOM.md, recalled memories, recent daily logs,
// session state, roster, memory update instructions, output protocol,
// current date and time, and the task. Recalled memories and daily logs
// share the memory budget (see the package documentation for the rules);
// the other sections are outside it and reported with their sizes. Build
// creates the teammate's empty session file if it is missing, and writes
// nothing else.
func Build(ctx context.Context, ws *layout.Workspace, opts Options) (*Result, error) {
	// A task that is not UTF-8 would make the stack not UTF-8 either, and
	// its JSON text (where encoding/json replaces such bytes) disagree
	// with the manifest's offsets and counts.
	task := strings.ToValidUTF8(opts.Task, "\uFFFD")
	badTask := task != opts.Task
	opts.Task = task
	b, err := newBuilder(ws, opts)
	if err != nil {
		return nil, err
	}
	if badTask {
		b.warn("task: not valid UTF-8; each run of bytes that is not is shown as U+FFFD")
	}
	secs, err := b.sections(ctx, opts)
	if err != nil {
		return nil, err
	}
	return b.assemble(secs), nil
}

// newBuilder checks the options and gathers what every section needs: the
// teammates, the time, the daily logs of the recent window and an empty
// manifest.
func newBuilder(ws *layout.Workspace, opts Options) (*builder, error) {
	if opts.Now == nil {
		return nil, errors.New("build context: no clock (Options.Now is nil)")
	}
	budget, err := checkBudget(opts.Budget)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizerOr(opts.Tokenizer)
	if err != nil {
		return nil, err
	}
	mates, mate, err := teammates(ws, opts.Teammate)
	if err != nil {
		return nil, fmt.Errorf("build context: %w", err)
	}
	now := opts.Now()
	if opts.Location != nil {
		now = now.In(opts.Location)
	}
	files, err := ws.RecentDailies(mate.Name, now, layout.RecentDays)
	if err != nil {
		return nil, fmt.Errorf("build context for %s: %w", mate.Name, err)
	}
	b := &builder{
		ws: ws, mate: mate, mates: mates, now: now, tok: tok, files: files, warnFn: opts.Warn, cache: opts.Cache,
		prefix: filepath.Base(ws.Root) + "/",
		man: &Manifest{
			Teammate: mate.Name, Now: now.Format(time.RFC3339), TimeZone: zoneName(now),
			Tokenizer: tok.Name(), Notes: []string{}, Dailies: []DailyEntry{}, Redactions: []Redaction{},
		},
	}
	b.man.Budget = Budget{Total: budget, DailyShare: DailyShare(budget), RecallMin: budget - DailyShare(budget)}
	return b, nil
}

// checkBudget returns the budget to build with: DefaultBudget for 0, and
// none below MinBudget.
func checkBudget(budget int) (int, error) {
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget {
		return 0, fmt.Errorf("build context: budget of %d tokens is below the minimum of %d", budget, MinBudget)
	}
	return budget, nil
}

// tokenizerOr returns tok, or the default tokenizer when tok is nil.
func tokenizerOr(tok Tokenizer) (Tokenizer, error) {
	if tok != nil {
		return tok, nil
	}
	return NewTokenizer(DefaultTokenizer)
}

// sections renders the sections in stack order, but for the daily logs:
// they are chosen before recall, which gets what they leave of the budget.
func (b *builder) sections(ctx context.Context, opts Options) ([]section, error) {
	var secs []section
	for _, f := range []struct{ name, file, heading string }{
		{SectionSoul, "SOUL.md", "Identity"},
		{SectionGoals, "GOALS.md", "Goals"},
		{SectionWisdom, "WISDOM.md", "Wisdom"},
	} {
		s, err := b.fileSection(f.name, f.file, f.heading)
		if err != nil {
			return nil, err
		}
		secs = append(secs, s)
	}
	dailies := b.dailySection()
	rec, err := b.recallSection(ctx, opts)
	if err != nil {
		return nil, err
	}
	secs = append(secs, rec, dailies)
	session := b.sessionSection()
	secs = append(secs, session, b.rosterSection())
	for _, t := range []struct{ name, file, heading string }{
		{SectionInstructions, templates.Instructions, "Memory updates"},
		{SectionProtocol, templates.Protocol, "Output protocol"},
	} {
		s, err := b.templateSection(t.name, t.file, t.heading)
		if err != nil {
			return nil, err
		}
		secs = append(secs, s)
	}
	return append(secs, b.nowSection(), b.taskSection(opts.Task)), nil
}

// assemble joins the sections into the stack and completes the manifest:
// each section's place and size, the redactions, the budget used and the
// total count.
func (b *builder) assemble(secs []section) *Result {
	text, parts := b.join(secs)
	b.noteRedactions()
	b.settleBudget()
	b.man.TotalTokens = countJoined(b.tok, parts)
	return &Result{Text: text, Manifest: *b.man}
}

// join writes the sections one after the other, the last without its
// trailing blank line, and lists each in the manifest with its offset and
// size; a section outside the budget is counted here.
func (b *builder) join(secs []section) (string, []block) {
	var doc strings.Builder
	m := b.man
	parts := make([]block, len(secs))
	for i := range secs {
		s := &secs[i]
		if i == len(secs)-1 {
			s.text = strings.TrimSuffix(s.text, "\n")
		}
		if !s.InBudget {
			s.Tokens = b.tok.Count(s.text)
			m.Budget.OutsideBudget += s.Tokens
		}
		if s.Sources == nil {
			s.Sources = []string{}
		}
		s.Offset, s.Bytes = doc.Len(), len(s.text)
		doc.WriteString(s.text)
		parts[i] = block{s.text, s.Tokens}
		m.Sections = append(m.Sections, s.Section)
	}
	return doc.String(), parts
}

// settleBudget adds up the memory budget used and warns when today's log
// alone took more than all of it.
func (b *builder) settleBudget() {
	bu := &b.man.Budget
	bu.Used = bu.DailiesUsed + bu.RecallUsed
	if bu.Used > bu.Total {
		bu.Exceeded, bu.ExceededBy = true, bu.Used-bu.Total
		b.warn(fmt.Sprintf("budget exceeded by %d tokens: today's log alone takes %d of the %d-token budget, and it is always included whole", bu.ExceededBy, bu.DailiesUsed, bu.Total))
	}
}

// zoneName names t's zone: its IANA name when it has one, else its
// abbreviation.
func zoneName(t time.Time) string {
	if n := t.Location().String(); n != "" && n != "Local" {
		return n
	}
	abbr, _ := t.Zone()
	return abbr
}

// newSection renders "# heading\n\nbody\n\n".
func newSection(name, heading, body string, sources ...string) section {
	return section{
		Section: Section{Name: name, Heading: heading, Sources: sources},
		text:    "# " + heading + "\n\n" + strings.TrimSpace(body) + "\n\n",
	}
}

func (b *builder) show(rel string) string { return "`" + b.prefix + rel + "`" }

// warn adds a manifest note and passes it to Options.Warn.
func (b *builder) warn(msg string) {
	b.man.Notes = append(b.man.Notes, msg)
	if b.warnFn != nil {
		b.warnFn(msg)
	}
}

// readDoc reads and parses a workspace file for the stack, leniently (see
// layout.ParseLenient). A file that cannot be read or parsed is reported
// (path:line: why) and left out: doc is nil and why says so in a few words.
func (b *builder) readDoc(rel string) (doc *layout.Doc, why string, err error) {
	p, err := b.cache.parse(b.ws, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
		b.warn(layout.ReadError(rel, err).Error() + "; left out of the stack")
		switch {
		case errors.Is(err, layout.ErrTooLarge):
			return nil, "it is over the size limit", nil
		case errors.Is(err, layout.ErrNotRegular):
			return nil, "it is not a regular file", nil
		case errors.Is(err, layout.ErrOtherFolder):
			return nil, "it leads out of its teammate's folder", nil
		case errors.Is(err, layout.ErrOutside):
			return nil, "it leads outside the workspace", nil
		}
		return nil, "it cannot be read", nil
	}
	if p.err != nil {
		b.warn(p.err.Error() + "; left out of the stack")
		return nil, "it does not parse", nil
	}
	if p.problem != nil {
		b.warn(p.problem.Error() + "; its frontmatter was read as key: value lines")
	}
	return p.doc, "", nil
}

// fileSection renders SOUL.md, GOALS.md or WISDOM.md without frontmatter,
// its headings nested under the section's own.
func (b *builder) fileSection(name, file, heading string) (section, error) {
	rel := b.mate.Name + "/" + file
	if b.fixed == nil {
		b.fixed = map[string]string{}
	}
	b.fixed[rel] = name
	d, why, err := b.readDoc(rel)
	if errors.Is(err, fs.ErrNotExist) {
		s := newSection(name, heading+" — "+b.prefix+rel, "_"+b.show(rel)+" does not exist yet._")
		s.Note = "file missing"
		return s, nil
	}
	if d == nil { // one broken file must not cost the agent its whole stack
		s := newSection(name, heading+" — "+b.prefix+rel, "_"+b.show(rel)+" was left out: "+why+" (see `tmem doctor`)._")
		s.Note = "file left out: " + why
		return s, nil
	}
	text := d.ReadableBody() // no stamps, no conflict markers
	lead := len(text) - len(bytes.TrimLeft(text, " \t\r\n"))
	body, rs := redact(name, rel, d.BodyLine+bytes.Count(text[:lead], []byte("\n")), strings.TrimSpace(string(text)))
	b.man.Redactions = append(b.man.Redactions, rs...)
	if body == "" {
		body = "_" + b.show(rel) + " is empty._"
	}
	return newSection(name, heading+" — "+b.prefix+rel, demote(body, 1), rel), nil
}

// sessionSection points at the session file, creating it empty when
// missing so that the agent can open it straight away.
//
// In a workspace tmem cannot write to (a read-only checkout, another
// user's folder) the file is not created: the section says so and a
// warning names the error.
func (b *builder) sessionSection() section {
	abs := b.ws.SessionPath(b.mate.Name)
	rel := b.ws.Rel(abs)
	body := "Your session file is " + b.show(rel) + ". Read it when you start: it holds what " +
		"your previous task left for this one. Keep it up to date as you work (open threads, " +
		"working notes, next steps) and rewrite it before you finish, so that the next task " +
		"can pick up where you stopped (through tmem's MCP server, memory_session reads and rewrites it). " +
		"It is scratch space and never committed: anything that should last belongs in your memory files."
	s := newSection(SectionSession, "Session state", body, rel)
	if _, err := b.ws.Stat(rel); err != nil {
		if err := b.ws.CreateFile(rel, nil); err != nil && !errors.Is(err, layout.ErrExists) {
			b.warn(fmt.Sprintf("%s: cannot create the session file: %v", rel, err))
			s = newSection(SectionSession, "Session state", body+"\n\n_The file does not exist and tmem could not "+
				"create it (the workspace may be read-only): create it if you can, else keep what the next task "+
				"needs in your reply._", rel)
			s.Note = "session file could not be created"
		}
	}
	return s
}

// teammates lists the workspace's teammates and finds name among them,
// reading each SOUL.md once for both the check and the roster.
func teammates(ws *layout.Workspace, name string) ([]layout.Teammate, layout.Teammate, error) {
	all, err := ws.Teammates()
	if err != nil {
		return nil, layout.Teammate{}, err
	}
	for _, t := range all {
		if t.Name == name {
			return all, t, nil
		}
	}
	// Teammate says why name is none (or finds it, created meanwhile).
	t, err := ws.Teammate(name)
	if err != nil {
		return nil, layout.Teammate{}, err
	}
	all, err = ws.Teammates()
	return all, t, err
}

// rosterSection lists every teammate with its role.
func (b *builder) rosterSection() section {
	var lines, sources []string
	for _, t := range b.mates {
		l := "- **" + t.Name + "**"
		if t.Name == b.mate.Name {
			l += " (you)"
		} else if t.RoleProblem != nil { // the stack's own SOUL.md is reported as it is read
			b.warn(t.RoleProblem.Error() + "; its frontmatter was read as key: value lines for the roster")
		}
		if t.Role != "" {
			role, rs := redact(SectionRoster, t.Name+"/SOUL.md", 0, t.Role)
			b.man.Redactions = append(b.man.Redactions, rs...)
			l += " — " + role
		}
		lines = append(lines, l)
		sources = append(sources, t.Name+"/SOUL.md")
	}
	return newSection(SectionRoster, "Roster", strings.Join(lines, "\n"), sources...)
}

// templateSection renders a template, from the workspace's templates
// folder when it overrides the built-in one.
func (b *builder) templateSection(name, file, heading string) (section, error) {
	vars := map[string]string{"name": b.mate.Name, "memory_dir": b.prefix + b.mate.Name + "/memory"}
	src := "template:" + file
	out, err := templates.Render(b.ws.Templates(), file, vars)
	if err == nil {
		if _, err := b.ws.Stat("templates/" + file); err == nil {
			src = "templates/" + file
		}
		return newSection(name, heading, string(out), src), nil
	}
	// An override that cannot be read gives way to the built-in template.
	b.warn(layout.ReadError("templates/"+file, err).Error() + "; the built-in template is used instead")
	if out, err = templates.Render(nil, file, vars); err != nil {
		return section{}, fmt.Errorf("build context: %w", err)
	}
	text, rs := redact(name, src, 1, string(out))
	b.man.Redactions = append(b.man.Redactions, rs...)
	return newSection(name, heading, text, src), nil
}

// nowSection states the date, time and zone.
func (b *builder) nowSection() section {
	t := b.now
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	body := fmt.Sprintf("%s, %s (UTC%s%02d:%02d, %s)", t.Weekday(), t.Format("2006-01-02 15:04 MST"),
		sign, off/3600, off%3600/60, zoneName(t))
	return newSection(SectionNow, "Current date and time", body)
}

// taskSection is the user's message, verbatim.
func (b *builder) taskSection(task string) section {
	if strings.TrimSpace(task) == "" {
		return newSection(SectionTask, "Task", "_No task given._")
	}
	return newSection(SectionTask, "Task", task)
}
