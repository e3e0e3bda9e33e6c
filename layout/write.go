package layout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/tmemhq/tmem/internal/bytesize"
)

// checkRel refuses paths that are not plain workspace-relative paths:
// empty, with a NUL byte, absolute, or leaving through "..".
func checkRel(rel string) error {
	if rel == "" || strings.ContainsRune(rel, 0) {
		return fmt.Errorf("path %q is not a valid workspace path", rel)
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return fmt.Errorf("path %q leaves the workspace", rel)
	}
	return nil
}

// WriteFile atomically replaces (or creates) the workspace file rel: the
// data goes to a temp file in the same folder, is fsynced and renamed over
// the target, and the folder is fsynced. A crash leaves the old file or the
// new one, never a mix. Nothing is written through a symlink, nor into a
// folder that a symlink leads outside the workspace.
func (w *Workspace) WriteFile(rel string, data []byte) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	return w.writeAtomic(rel, data)
}

// CreateFile writes rel only if it does not exist yet; it returns
// ErrExists otherwise.
func (w *Workspace) CreateFile(rel string, data []byte) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	if _, err := w.Lstat(rel); err == nil {
		return fmt.Errorf("%s: %w", rel, ErrExists)
	}
	return w.WriteFile(rel, data)
}

// Remove deletes the workspace file rel; a file that is already gone is
// not an error. The folder is fsynced so the removal is durable.
func (w *Workspace) Remove(rel string) (err error) {
	defer w.explain(rel, &err)
	r, name, err := w.rootFor(rel, false)
	if noTeamFolder(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return opError("remove", rel, err)
	}
	if err := syncRootDir(r, filepath.Dir(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Rename renames the workspace file from to to, both paths walked inside
// the workspace only (inside one teammate's folder, for its files), so
// nothing is moved into or out of a folder that a link leads outside.
func (w *Workspace) Rename(from, to string) (err error) {
	defer w.explain(from, &err)
	if err := checkRel(to); err != nil {
		return err
	}
	toName, err := nameBeside(from, to)
	if err != nil {
		return err
	}
	r, name, err := w.rootFor(from, false)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Rename(name, toName); err != nil {
		return opError("rename", from, err)
	}
	return nil
}

// WriteFileFrom is WriteFile for content too large to hold twice in
// memory: write writes it, through a buffer, straight to the temp file.
// An error from write leaves the file as it was.
func (w *Workspace) WriteFileFrom(rel string, write func(io.Writer) error) error {
	if err := checkRel(rel); err != nil {
		return err
	}
	return w.replace(rel, write, nil)
}

// WriteAtomic replaces the file at abs with data: a reader sees the old
// content or the new, never a mix, and after it returns the new content
// survives a crash. The file is created 0644.
func WriteAtomic(abs string, data []byte) error {
	dir := filepath.Dir(abs)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(abs)+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), abs); err != nil {
		return err
	}
	done = true
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return syncFolder(d, dir)
}

// TryLockWorkspace takes the workspace-wide lock named name (such as
// "compact") if it is free; ok is false when another process holds it.
// Workspace locks live in their own namespace, so no teammate name can
// collide with one.
func (w *Workspace) TryLockWorkspace(name string) (unlock func(), ok bool, err error) {
	fl, err := w.WorkspaceLock(name)
	if err != nil {
		return nil, false, err
	}
	ok, err = fl.TryLock()
	if err != nil || !ok {
		return nil, false, err
	}
	return func() { fl.Unlock() }, true, nil
}

// WorkspaceLock returns the workspace-wide lock named name (see
// TryLockWorkspace) without taking it, for a caller that shares it or
// waits for it.
func (w *Workspace) WorkspaceLock(name string) (*flock.Flock, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	return w.lockFile("workspace-" + name)
}

func (w *Workspace) lockFile(file string) (*flock.Flock, error) {
	return LockAt(w, ".tmp/locks/"+file+".lock")
}

// LockAt returns a lock on the workspace file rel, making its folder: the
// folder must stay inside the workspace, and rel must not be a symlink, so
// a lock never creates or opens a file elsewhere.
func LockAt(w *Workspace, rel string) (*flock.Flock, error) {
	if _, err := w.Dir(path.Dir(rel)); err != nil {
		return nil, err
	}
	if st, err := w.Lstat(rel); err == nil && !st.Mode().IsRegular() {
		// Lock files are tmem's own: a link or pipe in their place was put
		// there by someone else and is removed (the link itself, never
		// what it points to), so the lock is never taken through it.
		if st.IsDir() {
			return nil, fmt.Errorf("lock %s: %w (a folder)", rel, ErrNotRegular)
		}
		if err := w.Remove(rel); err != nil {
			return nil, fmt.Errorf("lock %s is %s and cannot be replaced: %w", rel, modeName(st.Mode()), err)
		}
	}
	return flock.New(w.Abs(rel), flock.SetPermissions(newFileMode)), nil
}

// AppendDaily appends an entry to the teammate's daily log for day,
// creating the file with its "# YYYY-MM-DD" title. It holds the
// teammate's lock across read, append and atomic rewrite, so concurrent
// appends from several processes all land, whole and in order. Headings of
// level 1 or 2 inside text are demoted to level 3, so the entry stays one
// entry. Text that looks like it holds a secret is refused with a
// *SecretError unless opts include AllowSecrets.
func (w *Workspace) AppendDaily(ctx context.Context, name string, day time.Time, heading, text string, opts ...WriteOption) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	if y := day.Year(); y < 1 || y > 9999 {
		return "", fmt.Errorf("date %s: a daily log's name holds a year from 0001 to 9999", day.Format(DateLayout))
	}
	heading, err := entryHeading(heading)
	if err != nil {
		return "", err
	}
	if err := checkSecrets(opts, field{"heading", heading, false}, field{"entry", text, true}); err != nil {
		return "", err
	}
	body := strings.TrimSpace(demoteHeadings(text))
	if err := checkText("entry", []byte(body)); err != nil {
		return "", err
	}
	rel := DailyPath(name, day)
	err = w.update(ctx, name, rel, func(old []byte, _ bool) ([]byte, error) {
		return appendEntry(old, day, heading, stamped(opts, day, body)), nil
	})
	if err != nil {
		return "", err
	}
	return rel, nil
}

// entryHeading is heading as an entry's "##" line holds it: its words
// joined by single spaces. It is refused when that line reads as a
// heading without text ("#", "###": a closing run of #), which would not
// start an entry of its own.
func entryHeading(heading string) (string, error) {
	heading = strings.Join(strings.Fields(heading), " ")
	if atxText([]byte("## "+heading), 2) == "" {
		return "", errors.New("entry heading is empty")
	}
	if err := checkContent("entry heading", []byte(heading)); err != nil {
		return "", err
	}
	return heading, nil
}

// stamped puts the stamp for t above body when opts ask for it.
func stamped(opts []WriteOption, t time.Time, body string) string {
	if !allowed(opts, Stamped) || t.IsZero() {
		return body
	}
	if body == "" {
		return Stamp(t)
	}
	return Stamp(t) + "\n\n" + body
}

// appendEntry returns a daily log with one more entry at its end (see
// appendBlock).
func appendEntry(old []byte, day time.Time, heading, body string) []byte {
	if len(bytes.TrimSpace(old)) == 0 {
		old = []byte("# " + day.Format(DateLayout) + lineEnding(old))
	}
	entry := "## " + heading
	if strings.HasPrefix(body, "<!-- tmem:at ") {
		entry += "\n" + body
	} else if body != "" {
		entry += "\n\n" + body
	}
	return appendBlock(old, entry)
}

// appendBlock returns text with block added at its end, after a blank
// line. The bytes of text stay as they are: a missing final newline is
// added, and a code fence or HTML block text leaves open is closed (see
// closerOf), so the block is read as a block of its own; block's lines
// end as text's lines do (CRLF or LF).
func appendBlock(text []byte, block string) []byte {
	var b bytes.Buffer
	eol := lineEnding(text)
	b.Write(text)
	if len(text) > 0 && !bytes.HasSuffix(text, []byte("\n")) {
		b.WriteString(eol)
	}
	if closer := closerOf(string(text)); closer != "" {
		b.WriteString(closer + eol)
	}
	if last := bytes.TrimSuffix(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\r")); len(bytes.TrimSpace(text)) > 0 && !bytes.HasSuffix(last, []byte("\n")) {
		b.WriteString(eol) // a blank line before the block
	}
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(block, "\r\n", "\n"), "\n", eol) + eol)
	return b.Bytes()
}

// KeepLineEndings returns text, a new version of the file old, with CRLF
// line endings when every line of old ends so (a file saved on Windows),
// so that a rewrite does not mix line endings; otherwise text as it is.
func KeepLineEndings(old, text []byte) []byte {
	n := bytes.Count(old, []byte("\n"))
	if n == 0 || bytes.Count(old, []byte("\r\n")) != n {
		return text
	}
	return bytes.ReplaceAll(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
}

// lineEnding is the line ending text uses: CRLF when its first line ends
// so, else LF.
func lineEnding(text []byte) string {
	if i := bytes.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// keepsReadable refuses a write whose result tmem could not read back:
// over the size limit, invalid UTF-8 or frontmatter that no longer
// parses. A readable file never becomes unreadable by a write, and an
// unreadable one is not made worse: it must be fixed first.
func keepsReadable(rel string, data []byte) error {
	_, err := Parse(rel, data)
	if err == nil {
		return nil
	}
	var pe *ParseError
	if errors.As(err, &pe) && errors.Is(pe.Err, ErrTooLarge) {
		return fmt.Errorf("%s: nothing written: the file would grow to %s, over the %s limit for memory files; "+
			"keep long text in a file of its own and log a pointer to it", rel, bytesize.Format(int64(len(data))), bytesize.Format(MaxFileSize))
	}
	return fmt.Errorf("nothing written, the result would not be readable: %w; fix the file first", err)
}

// demoteHeadings rewrites headings of level 1 and 2 in s to level 3.
func demoteHeadings(s string) string {
	heads := topHeadings([]byte(s))
	if len(heads) == 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for _, h := range heads {
		ln := h.line - 1
		if h.last == h.line { // ATX: "## x" becomes "### x"
			l := strings.TrimLeft(lines[ln], " ")
			lines[ln] = "### " + strings.TrimLeft(strings.TrimLeft(l, "#"), " ")
			continue
		}
		lines[ln] = "### " + strings.TrimSpace(lines[ln]) // setext: text lines, then === or ---
		lines[h.last-1] = ""
	}
	return strings.Join(lines, "\n")
}

// Mode says how WriteMemory treats an existing typed memory.
type Mode string

// Write modes for typed memories.
const (
	ModeCreate    Mode = "create"    // refuse if the file exists
	ModeAppend    Mode = "append"    // keep it and add the body at the end
	ModeOverwrite Mode = "overwrite" // replace name, description and body; keep other fields
)

// Valid reports whether m is one of the write modes.
func (m Mode) Valid() bool {
	return m == ModeCreate || m == ModeAppend || m == ModeOverwrite
}

// Memory is a typed memory to write.
type Memory struct {
	Type        string
	Topic       string // free text; slugged into the file name
	Name        string
	Description string
	Body        string
	At          time.Time // when it is written, for the Stamped option
}

// WriteMemory writes memory/<type>_<topic>.md for the teammate, under its
// lock, and returns the workspace-relative path. When that file is not
// there but one typed memory of the type has a topic that reads the same
// once slugged (feedback_No-Mocks.md for "no mocks"), it is written to
// instead; several such files are an error (see typedTarget). With the Stamped option
// the body written or appended starts with a stamp for m.At. A topic, name,
// description or body that looks like it holds a secret is refused with a
// *SecretError unless opts include AllowSecrets.
func (w *Workspace) WriteMemory(ctx context.Context, name string, m Memory, mode Mode, opts ...WriteOption) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	if !KnownType(m.Type) {
		return "", fmt.Errorf("memory type %q: want one of %s", m.Type, strings.Join(Types, ", "))
	}
	slug, err := Slug(m.Topic)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(m.Name) == "" && mode != ModeAppend {
		return "", errors.New("memory name is empty")
	}
	for _, f := range [][2]string{{"memory name", m.Name}, {"memory description", m.Description}, {"memory topic", m.Topic}} {
		if err := checkContent(f[0], []byte(f[1])); err != nil {
			return "", err
		}
	}
	body := strings.TrimSpace(m.Body)
	if err := checkText("memory body", []byte(body)); err != nil {
		return "", err
	}
	err = checkSecrets(opts, field{"topic", m.Topic, false}, field{"name", m.Name, false},
		field{"description", m.Description, false}, field{"memory body", m.Body, true})
	if err != nil {
		return "", err
	}
	rel, err := w.typedTarget(name, m.Type, slug)
	if err != nil {
		return "", err
	}
	err = w.update(ctx, name, rel, func(old []byte, exists bool) ([]byte, error) {
		return memoryBytes(rel, old, exists, m, stamped(opts, m.At, body), mode)
	})
	if err != nil {
		return "", err
	}
	return rel, nil
}

// memoryBytes renders a typed memory written in mode over old.
func memoryBytes(rel string, old []byte, exists bool, m Memory, body string, mode Mode) ([]byte, error) {
	var d *Doc
	var fields [][2]string
	switch {
	case !exists && strings.TrimSpace(m.Name) == "":
		return nil, fmt.Errorf("%s: there is no memory to append to, and creating one needs a name", rel)
	case !exists:
		d = &Doc{Path: rel}
		fields = [][2]string{{"name", strings.TrimSpace(m.Name)}, {"description", strings.TrimSpace(m.Description)}, {"type", m.Type}}
		d.Body = []byte("\n" + body + "\n")
	case mode == ModeCreate || mode == "":
		return nil, fmt.Errorf("%s: %w (use mode append to add to it, or mode overwrite to replace it: --mode for tmem remember, mode for memory_remember)", rel, ErrExists)
	default:
		var err error
		if d, err = Parse(rel, old); err != nil {
			return nil, err
		}
		fields = updatedFields(d, m, mode)
		if mode == ModeOverwrite {
			d.Body = []byte(bodyLead(d) + body + "\n")
		} else {
			d.Body = appendBlock(d.Body, body)
		}
	}
	for _, f := range fields {
		if err := d.Set(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	return KeepLineEndings(old, d.Bytes()), nil
}

// bodyLead is what goes between the frontmatter and a body that replaces
// d's: the blank lines d's body starts with, as written (none when the
// person wrote the text right under the closing "---"), or one blank line
// when d has no frontmatter yet or no text to take it from.
func bodyLead(d *Doc) string {
	rest := string(d.Body)
	if !d.HasMeta || strings.TrimSpace(rest) == "" {
		return "\n"
	}
	lead := 0
	for {
		line, after, found := strings.Cut(rest[lead:], "\n")
		if !found || strings.TrimSpace(line) != "" {
			return rest[:lead]
		}
		lead = len(rest) - len(after)
	}
}

// updatedFields are the frontmatter fields a write in mode changes on an
// existing memory; fields that keep their value are not touched, so their
// lines stay as written.
func updatedFields(d *Doc, m Memory, mode Mode) [][2]string {
	var out [][2]string
	set := func(k, v string) {
		if d.Get(k) != v || d.fm.value(k) == nil {
			out = append(out, [2]string{k, v})
		}
	}
	if mode == ModeOverwrite {
		set("name", strings.TrimSpace(m.Name))
		set("type", m.Type)
	}
	if desc := strings.TrimSpace(m.Description); desc != "" {
		set("description", desc)
	}
	return out
}

// IsTempName reports whether a file name is one of WriteAtomic's temp
// files (".<name>.tmp-<random>"), which a killed process can leave behind.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// TempFiles lists the temp files of interrupted writes in a teammate's
// folders, workspace-relative.
func (w *Workspace) TempFiles(teammate string) ([]string, error) {
	if err := ValidateName(teammate); err != nil {
		return nil, err
	}
	var out []string
	for _, sub := range append([]string{""}, MemoryDirs...) {
		dir := teammate
		if sub != "" {
			dir += "/" + sub
		}
		ents, err := w.ReadDir(dir)
		if errors.Is(err, ErrOutside) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("list %s: %w", dir, err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() && IsTempName(e.Name()) {
				out = append(out, dir+"/"+e.Name())
			}
		}
	}
	return out, nil
}

// SplitHeading takes an entry's heading from the first line of text,
// for an entry given without one: the heading loses its leading "#", "-"
// and spaces, and the rest of the text is the entry.
func SplitHeading(text string) (heading, rest string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return strings.TrimLeft(first, "#- "), rest
}

// SplitEntry returns the heading and text of an entry to log: without a
// heading, the first line of the text is the heading (see
// SplitHeading). giveHeading says how the caller gives a heading
// ("a heading", "--heading"), for the error when there is none.
func SplitEntry(heading, text, giveHeading string) (string, string, error) {
	if strings.TrimSpace(heading) != "" {
		return heading, text, nil
	}
	h, rest := SplitHeading(text)
	if strings.TrimSpace(h) != "" {
		return h, rest, nil
	}
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if first == "" {
		return "", "", fmt.Errorf("nothing to log: give %s or some text", giveHeading)
	}
	return "", "", fmt.Errorf("nothing to log as a heading: without %s the text's first line is the heading, and %q has no words; give %s or start the text with a line of words", giveHeading, first, giveHeading)
}
