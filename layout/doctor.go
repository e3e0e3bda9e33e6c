package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/tmemhq/tmem/internal/bytesize"
	"github.com/tmemhq/tmem/internal/quote"
)

// Severity of a doctor finding.
const (
	SevError   = "error"
	SevWarning = "warning"
	SevInfo    = "info" // not a problem with a file; never fails doctor
)

// Finding is one problem doctor found in a file.
type Finding struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func (f Finding) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", quote.IfNeeded(f.Path), f.Line, f.Severity, f.Message)
	}
	return fmt.Sprintf("%s: %s: %s", quote.IfNeeded(f.Path), f.Severity, f.Message)
}

// Check reads every memory file of the workspace and reports what is
// wrong: frontmatter that does not parse, unknown or missing types,
// misnamed files, empty files, invalid UTF-8, byte order marks, oversized
// files, secrets, merge conflict markers, lines such as "##Heading" that
// were surely meant as headings. It never stops at the first bad
// file. It also walks the folders (see checkTree) for files that are not
// regular, links that lead outside and temp files left behind.
func (w *Workspace) Check() ([]Finding, error) {
	mates, err := w.teammates()
	if err != nil {
		return nil, err
	}
	w.noteSoulProblems(mates, false) // each is a finding here
	var all []File
	if f, ok := w.CrossTeam(); ok {
		all = append(all, f)
	}
	for _, t := range mates {
		fs, err := w.Files(t.Name)
		if err != nil {
			return nil, err
		}
		all = append(all, fs...)
	}
	var out []Finding
	for _, f := range all {
		out = append(out, w.checkFile(f)...)
	}
	out = append(out, w.checkFolderNames()...)
	out = append(out, w.checkTemplates()...)
	out = append(out, w.checkAliases()...)
	tree, err := w.checkTree()
	return append(out, tree...), err
}

// checkFolderNames reports the folders holding a SOUL.md under a name no
// teammate can have: Teammates skips them, so their memory is never read.
// templates/ is left alone: a SOUL.md there overrides the template.
func (w *Workspace) checkFolderNames() []Finding {
	ents, err := w.ReadDir("")
	if err != nil {
		return nil // Teammates has read this folder already
	}
	var out []Finding
	for _, e := range ents {
		name := e.Name()
		if name == "templates" || strings.HasPrefix(name, ".") || ValidateName(name) == nil || !w.isDir(e) {
			continue
		}
		// Lstat: a SOUL.md that is a link outside still marks the folder.
		if _, err := w.Lstat(name + "/SOUL.md"); err != nil {
			continue
		}
		out = append(out, Finding{Path: name + "/SOUL.md", Severity: SevError,
			Message: fmt.Sprintf("%q is not a teammate name (lowercase letters, digits, '-' and '_', starting with a letter or digit): tmem skips this folder; rename it", name)})
	}
	return out
}

// checkAliases reports the links to a teammate's folder under a second
// name: Teammates skips them, as one folder is one teammate.
func (w *Workspace) checkAliases() []Finding {
	ents, err := w.ReadDir("")
	if err != nil {
		return nil // Teammates has read this folder already
	}
	_, aliases := w.teamFolders(ents)
	var out []Finding
	for _, a := range aliases {
		if _, err := w.Stat(a.target + "/SOUL.md"); err != nil {
			continue
		}
		out = append(out, Finding{Path: a.name, Severity: SevWarning,
			Message: fmt.Sprintf("symlink to %s, the folder of teammate %q: one folder is one teammate, so tmem skips this name; remove the link", a.target, a.target)})
	}
	return out
}

func (w *Workspace) checkFile(f File) []Finding {
	add := func(line int, sev, format string, args ...interface{}) Finding {
		return Finding{Path: f.Path, Line: line, Severity: sev, Message: fmt.Sprintf(format, args...)}
	}
	var out []Finding
	if f.NameErr != "" {
		out = append(out, add(0, SevError, "%s", f.NameErr))
	}
	if f.Kind == KindArchive && f.Month != "" {
		return append(out, w.checkArchive(f)...)
	}
	if f.Size > MaxFileSize {
		return append(out, add(0, SevError, "file is %s, over the %s limit for memory files: split it", bytesize.Format(f.Size), bytesize.Format(MaxFileSize)))
	}
	src, err := w.ReadFile(f.Path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return out // gone since it was listed (a compaction running): nothing to check
	}
	if err != nil {
		return append(out, add(0, SevError, "%v", withoutFile(err)))
	}
	if len(strings.TrimSpace(string(src))) == 0 {
		return append(out, add(0, SevWarning, "empty file"))
	}
	out = append(out, checkBOM(f.Path, src)...)
	out = append(out, conflictFindings(f.Path, src)...)
	out = append(out, secretFindings(f.Path, src)...)
	d, err := Parse(f.Path, src)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return append(out, add(pe.Line, SevError, "%v", pe.Err))
		}
		return append(out, add(0, SevError, "%v", err))
	}
	out = append(out, repeatedKeyFindings(f.Path, d)...)
	out = append(out, headingSlipFindings(f.Path, d)...)
	switch f.Kind {
	case KindDaily:
		if !f.Date.IsZero() && TitleNamesAnotherDay(d.Title, f.Date.Format(DateLayout)) {
			out = append(out, add(d.TitleLine, SevError, "title %q does not match the file name's date %s", d.Title, f.Date.Format(DateLayout)))
		}
	case KindTyped:
		out = append(out, checkTyped(f, d, add)...)
		out = append(out, w.topicFindings(f)...)
	case KindWeekly, KindMonthly:
		out = append(out, checkSummary(f, d, add)...)
	}
	return out
}

func checkTyped(f File, d *Doc, add func(int, string, string, ...interface{}) Finding) []Finding {
	var out []Finding
	typ, at, shape := d.Get("type"), d.fieldLine("type"), d.notOne("type")
	switch {
	case !d.HasMeta:
		out = append(out, add(1, SevError, "typed memory has no frontmatter (want name, description, type)"))
	case shape != "":
		out = append(out, add(at, SevError, "frontmatter type is %s (want one of %s)", shape, strings.Join(Types, ", ")))
	case typ == "":
		out = append(out, add(at, SevError, "frontmatter has no type (want one of %s)", strings.Join(Types, ", ")))
	case !KnownType(typ):
		out = append(out, add(at, SevWarning, "unknown memory type %q (known: %s); the file is kept and indexed as is", typ, strings.Join(Types, ", ")))
	}
	switch {
	case d.HasMeta && d.notOne("name") != "":
		out = append(out, add(d.fieldLine("name"), SevWarning, "frontmatter name is %s (want one line of text)", d.notOne("name")))
	case d.HasMeta && d.Get("name") == "":
		out = append(out, add(d.fieldLine("name"), SevWarning, "frontmatter has no name"))
	}
	if typ != "" && f.Type != "" && typ != f.Type {
		out = append(out, add(at, SevWarning, "file name says type %q but frontmatter says %q", f.Type, typ))
	}
	return append(out, dateFindings(d, add)...)
}

// dateFindings warns about a frontmatter date that Date ignores.
func dateFindings(d *Doc, add func(int, string, string, ...interface{}) Finding) []Finding {
	s, kind := d.Get("date"), d.notOne("date")
	if s != "" {
		if _, err := time.Parse(DateLayout, s); err != nil {
			kind = fmt.Sprintf("%q", s)
		}
	}
	if kind == "" {
		return nil
	}
	return []Finding{add(d.fieldLine("date"), SevWarning, "%s", redacted(fmt.Sprintf("frontmatter date is %s, not a date (want YYYY-MM-DD): tmem ignores it", kind)))}
}

// fieldLine is the line of the file where frontmatter field key is set,
// else that of the opening "---"; 1 without frontmatter.
func (d *Doc) fieldLine(key string) int {
	if d.fm == nil {
		return 1
	}
	open := strings.Count(d.fm.lead, "\n") + 1
	if k, _ := d.fm.pair(key); k != nil {
		return open + k.Line
	}
	return open
}

// notOne says what a frontmatter field that should be one value holds
// instead ("a list"); "" when it is one value or absent.
func (d *Doc) notOne(key string) string {
	switch v := d.fm.value(key); {
	case v == nil:
		return ""
	case v.Kind == yaml.SequenceNode:
		return "a list"
	case v.Kind == yaml.MappingNode:
		return "a mapping"
	}
	return ""
}

// repeatedKeyFindings warns about each frontmatter key set twice, at the
// line of the repeat.
func repeatedKeyFindings(path string, d *Doc) []Finding {
	if d.fm == nil {
		return nil
	}
	var out []Finding
	open := d.fieldLine("") // the line of the opening ---
	for _, r := range d.fm.repeatedKeys() {
		out = append(out, Finding{Path: path, Line: open + r.line, Severity: SevWarning,
			Message: fmt.Sprintf("frontmatter sets %q again (first at line %d): tmem reads the first value and other tools may take the last; keep one", r.key, open+r.first)})
	}
	return out
}

func checkSummary(f File, d *Doc, add func(int, string, string, ...interface{}) Finding) []Finding {
	var out []Finding
	want, key, val := "weekly", "week", f.Week
	if f.Kind == KindMonthly {
		want, key, val = "monthly", "month", f.Month
	}
	if !d.HasMeta {
		return append(out, add(1, SevWarning, "%s summary has no frontmatter (want type, %s, teammate, period)", want, key))
	}
	if t := d.Get("type"); t != want {
		out = append(out, add(d.fieldLine("type"), SevWarning, "frontmatter type is %q, want %q", t, want))
	}
	if v := d.Get(key); v != "" && v != val {
		out = append(out, add(d.fieldLine(key), SevError, "frontmatter %s %q does not match the file name (%s)", key, v, val))
	}
	if p := d.Get("period"); p != "" {
		if _, _, err := ParsePeriod(p); err != nil {
			out = append(out, add(d.fieldLine("period"), SevError, "%v", err))
		}
	}
	return out
}

// Date returns the date a file speaks for: its own for dailies and
// summaries, else the frontmatter `date` or the end of its `period`.
func (d *Doc) Date() time.Time {
	if s := d.Get("date"); s != "" {
		if t, err := time.Parse(DateLayout, s); err == nil {
			return t
		}
	}
	if p := d.Get("period"); p != "" {
		if _, to, err := ParsePeriod(p); err == nil {
			return to
		}
	}
	return time.Time{}
}

// conflictFindings reports the conflict markers a merge left in a file.
func conflictFindings(path string, src []byte) []Finding {
	var out []Finding
	for _, ln := range ConflictMarkers(src) {
		out = append(out, Finding{Path: path, Line: ln, Severity: SevError,
			Message: "merge conflict marker left in the file: keep the right version, delete the markers (recall and context skip these lines meanwhile)"})
	}
	return out
}

// withoutFile drops the path a *ParseError repeats, for a finding that
// names the file already.
func withoutFile(err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return withoutPath(err)
}

// checkArchive checks an archive month file: it reads, holds no secret,
// and each section still restores the file it keeps. Secrets are looked
// for even when the file does not parse.
func (w *Workspace) checkArchive(f File) []Finding {
	src, err := w.ReadFile(f.Path, MaxArchiveSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // gone since it was listed
	}
	if err != nil {
		return []Finding{archiveError(f.Path, err)}
	}
	secs, err := ParseArchive(f.Path, src)
	if err != nil {
		return append(archiveSecretFindings(f.Path, src, nil), archiveError(f.Path, err))
	}
	out := conflictFindings(f.Path, src)
	out = append(out, archiveSecretFindings(f.Path, src, secs)...)
	for _, s := range secs {
		if s.Edited || !s.Part && !s.Verify() {
			out = append(out, Finding{Path: f.Path, Line: s.Header, Severity: SevWarning,
				Message: fmt.Sprintf("the archived %s was changed by hand: it no longer restores the original (sha256 %s…); if that was meant (a secret taken out, say), 'tmem doctor --accept-archive-edits' records it as it now is", s.Source, s.SHA[:12])})
		}
	}
	return out
}

// archiveError is the finding for an archive file that cannot be read or
// parsed, at the line of the trouble when known.
func archiveError(path string, err error) Finding {
	var pe *ParseError
	if errors.As(err, &pe) {
		return Finding{Path: path, Line: pe.Line, Severity: SevError, Message: pe.Err.Error()}
	}
	return Finding{Path: path, Severity: SevError, Message: err.Error()}
}
