package layout

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmemhq/tmem/internal/quote"
	"github.com/tmemhq/tmem/templates"
)

// DirName is the name of a workspace folder.
const DirName = ".teammates"

// Workspace is a .teammates folder.
type Workspace struct {
	Root string // absolute, cleaned path of the .teammates folder

	// Notices receives a line when a command waits for a lock that
	// another process holds, and one for each teammate whose SOUL.md
	// cannot be read; nil means none.
	Notices io.Writer
	// LockWait is how long Lock waits for a lock that another process
	// holds before it gives up with ErrLocked; 0 means DefaultLockWait,
	// negative means until the context is done.
	LockWait time.Duration

	team  *teamCache // set by CacheTeammates
	noted sync.Map   // the SOUL.md problems told on Notices, so each is told once

	lockNotice   time.Duration // tests: when the wait notice comes; 0 means a second
	beforeRename func()        // tests: runs just before a write's rename
}

// Open opens the workspace at dir: either the .teammates folder itself or
// a folder that holds one. Any other folder is refused with an error
// wrapping ErrNoWorkspace, so nothing is ever written into a folder that
// is not a workspace.
func Open(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", quote.IfNeeded(dir), err)
	}
	if st, err := os.Stat(filepath.Join(abs, DirName)); err == nil && st.IsDir() {
		return &Workspace{Root: filepath.Join(abs, DirName)}, nil
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", quote.IfNeeded(dir), ErrNoWorkspace)
	case !st.IsDir() || filepath.Base(abs) != DirName:
		return nil, fmt.Errorf("%s: %w (it is not a %s folder and holds none)", quote.IfNeeded(dir), ErrNoWorkspace, DirName)
	}
	return &Workspace{Root: abs}, nil
}

// Find walks up from start to the nearest folder holding a .teammates
// folder. One owned by another user is refused (ErrNotOwned), as git
// refuses a repository it finds that another user owns: on a shared
// machine, a .teammates someone else put in /tmp or a shared parent
// folder would give the agent their instructions and take its memories.
// Open, for a folder named with --dir or TMEM_DIR, does not ask.
func Find(start string) (*Workspace, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	for {
		if filepath.Base(dir) == DirName {
			return owned(dir, nil)
		}
		if st, err := os.Stat(filepath.Join(dir, DirName)); err == nil && st.IsDir() {
			return owned(filepath.Join(dir, DirName), st)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("searched from %s up to %s: %w", start, dir, ErrNoWorkspace)
		}
		dir = parent
	}
}

// Teammate is a sub-folder of the workspace that holds a SOUL.md.
type Teammate struct {
	Name string `json:"name"`
	Role string `json:"role"`
	Dir  string `json:"-"` // absolute
	// RoleProblem is why SOUL.md's frontmatter was read as "key: value"
	// lines to find Role (see ParseLenient); nil when it parsed.
	RoleProblem error `json:"-"`
	// SoulProblem is why SOUL.md could not be read (too large, not a
	// regular file, a link outside the workspace); nil when it was. The
	// teammate is kept, with no role, so its memory stays in view.
	SoulProblem error `json:"-"`
}

// Teammates lists the workspace's teammates by name. Dot-folders and
// folders whose name no teammate can have (templates/, which may hold a
// SOUL.md override) are skipped; Check reports the latter. A link to a
// folder that another name already stands for is skipped too, as one
// folder is one teammate, and so is a link into another teammate's
// folder, a dot-folder or templates (see refusedTarget); Check reports
// both. A SOUL.md that does not parse
// still makes a teammate (with no role), so one bad file never hides the
// others, and so does one that cannot be read at all (see SoulProblem):
// Teammates says so on Notices, once for each.
func (w *Workspace) Teammates() ([]Teammate, error) {
	list, err := w.teammates()
	w.noteSoulProblems(list, true)
	return list, err
}

// noteSoulProblems tells Notices of each SOUL.md that cannot be read,
// once for each problem; with tell false it only records them as told.
func (w *Workspace) noteSoulProblems(list []Teammate, tell bool) {
	for _, t := range list {
		if t.SoulProblem == nil {
			continue
		}
		msg := fmt.Sprintf("%v; %s stays a teammate, with no role, until it is fixed (see tmem doctor)", t.SoulProblem, t.Name)
		if _, told := w.noted.LoadOrStore(msg, true); !told && tell && w.Notices != nil {
			fmt.Fprintf(w.Notices, "tmem: %s\n", msg)
		}
	}
}

// teammates is Teammates without the notices.
func (w *Workspace) teammates() ([]Teammate, error) {
	if w.team == nil {
		return w.listTeammates()
	}
	if list, ok := w.team.lookup(w.Root); ok {
		return list, nil
	}
	// Stamps first: a change after them shows as other stamps next time.
	rootSt, err := stampOf(w.Root)
	if err != nil {
		return w.listTeammates()
	}
	ents, err := w.ReadDir("")
	if err != nil {
		return nil, fmt.Errorf("list teammates: %w", err)
	}
	souls, links, err := w.stampFolders(ents)
	if err != nil {
		return w.listTeammates()
	}
	list := w.teammatesOf(ents)
	w.team.keep(rootSt, souls, links, list)
	return list, nil
}

// listTeammates lists the teammates from the files, keeping nothing.
func (w *Workspace) listTeammates() ([]Teammate, error) {
	ents, err := w.ReadDir("")
	if err != nil {
		return nil, fmt.Errorf("list teammates: %w", err)
	}
	return w.teammatesOf(ents), nil
}

// teammatesOf returns the teammates among the workspace folder's entries,
// by name.
func (w *Workspace) teammatesOf(ents []fs.DirEntry) []Teammate {
	folders, _ := w.teamFolders(ents)
	var out []Teammate
	for _, f := range folders {
		if t, ok := w.teammateIn(f.name); ok {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// teammateIn reads the teammate whose folder is name; ok is false when
// the folder holds no SOUL.md. A SOUL.md that is there but cannot be read
// still makes a teammate, with SoulProblem set: dropping it would hide
// all of its memory without a word.
func (w *Workspace) teammateIn(name string) (t Teammate, ok bool) {
	rel := name + "/SOUL.md"
	t = Teammate{Name: name, Dir: filepath.Join(w.Root, name)}
	src, err := w.ReadFile(rel, MaxFileSize)
	if err != nil {
		if _, lerr := w.Lstat(rel); errors.Is(lerr, fs.ErrNotExist) {
			return t, false
		}
		t.SoulProblem = ReadError(rel, err)
		return t, true
	}
	role, problem := roleOf(rel, src)
	t.Role, t.RoleProblem = oneLine(role), problem
	return t, true
}

// notTeammate says why an existing folder name is not a teammate, or
// returns nil when there is no such folder.
func (w *Workspace) notTeammate(name string) error {
	st, err := w.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.IsDir():
		return nil
	}
	if err := w.folderLinkRefusal(name); err != nil {
		return err
	}
	if target, ok := w.aliasOf(name); ok {
		return fmt.Errorf("%s is a symlink to %s, the folder of teammate %q: use that name", name, target, target)
	}
	return nil
}

// isDir reports whether a root entry is a folder, or a link to a folder
// inside the workspace; a teammate folder that links outside is skipped
// (doctor reports it).
func (w *Workspace) isDir(e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink != 0 {
		st, err := w.Stat(e.Name())
		return err == nil && st.IsDir()
	}
	return false
}

// UnknownTeammateError names the teammates that do exist, and says why
// a folder of that name is not a teammate when there is one.
type UnknownTeammateError struct {
	Name  string
	Known []string
	// Why is set when a folder of that name exists but cannot be a
	// teammate: it links outside, into another teammate's folder or a
	// dot-folder. (A SOUL.md that cannot be read leaves it a teammate.)
	Why error
}

func (e *UnknownTeammateError) Error() string {
	if e.Why != nil {
		return fmt.Sprintf("teammate %q cannot be used: %v", e.Name, e.Why)
	}
	if len(e.Known) == 0 {
		return fmt.Sprintf("unknown teammate %q: the workspace has no teammates yet (add one with 'tmem init --teammate NAME')", e.Name)
	}
	return fmt.Sprintf("unknown teammate %q (known: %s)", e.Name, strings.Join(e.Known, ", "))
}

// Teammate returns the named teammate or an *UnknownTeammateError.
func (w *Workspace) Teammate(name string) (Teammate, error) {
	if err := ValidateName(name); err != nil {
		return Teammate{}, err
	}
	all, err := w.Teammates()
	if err != nil {
		return Teammate{}, err
	}
	var known []string
	for _, t := range all {
		if t.Name == name {
			return t, nil
		}
		known = append(known, t.Name)
	}
	return Teammate{}, &UnknownTeammateError{Name: name, Known: known, Why: w.notTeammate(name)}
}

// RoleOf reads a teammate's role from SOUL.md: the frontmatter field
// `role`, else the part of the first `# ` heading after an em dash, " - "
// or ": " ("# Beacon — Search engineer"), else "". Frontmatter that is not
// valid YAML is read leniently (ParseLenient). A role written on several
// lines comes back on one, as the roster shows it.
func RoleOf(soul []byte) string {
	role, _ := roleOf("SOUL.md", soul)
	return oneLine(role)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// roleOf is RoleOf before it is put on one line; problem is why the
// frontmatter of path was read leniently, nil when it parsed.
func roleOf(path string, soul []byte) (role string, problem error) {
	// The frontmatter alone answers most files; the body is parsed for the
	// title only when it has no role.
	d, problem, err := parseLenient(path, soul, false)
	if err != nil {
		return "", nil
	}
	if r := strings.TrimSpace(d.Get("role")); r != "" {
		return r, problem
	}
	if d, _, err = ParseLenient(path, soul); err != nil {
		return "", problem
	}
	for _, sep := range []string{" — ", " – ", " - ", ": "} {
		if _, role, ok := strings.Cut(d.Title, sep); ok {
			return strings.TrimSpace(role), problem
		}
	}
	return "", problem
}

// Rel returns p relative to the workspace root, with forward slashes.
func (w *Workspace) Rel(p string) string {
	r, err := filepath.Rel(w.Root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// RelPath takes a path as a user gives it, relative to the root, relative
// to the folder wd (the working directory; "" for none) when a file is
// there, or absolute, and returns it relative to the root with forward
// slashes. A path outside the workspace is refused.
func (w *Workspace) RelPath(p, wd string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("the path is empty: give a file's path, as tmem list prints it")
	}
	if wd != "" && !filepath.IsAbs(p) {
		abs := filepath.Join(wd, p)
		if _, err := os.Stat(abs); err == nil {
			if r, err := filepath.Rel(w.Root, abs); err == nil && filepath.IsLocal(r) {
				return filepath.ToSlash(r), nil
			}
		}
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(w.Root, p)
		if err != nil || !filepath.IsLocal(r) {
			return "", fmt.Errorf("path %q is outside the workspace %s", p, w.Root)
		}
		return filepath.ToSlash(r), nil
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", fmt.Errorf("path %q leaves the workspace", p)
	}
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "./"), nil
}

// Abs returns the absolute path of a workspace-relative path.
func (w *Workspace) Abs(rel string) string { return filepath.Join(w.Root, filepath.FromSlash(rel)) }

// TmpDir is the workspace's scratch folder (never committed).
func (w *Workspace) TmpDir() string { return filepath.Join(w.Root, ".tmp") }

// SessionPath is the session state file of a teammate.
func (w *Workspace) SessionPath(name string) string {
	return filepath.Join(w.Root, ".tmp", "sessions", name+".md")
}

// IndexDir is the recall index folder of a teammate, or of the shared
// scope when name is "".
func (w *Workspace) IndexDir(name string) string {
	if name == "" {
		return filepath.Join(w.Root, ".index")
	}
	return filepath.Join(w.Root, name, ".index")
}

// TemplatesDir holds a workspace's overrides of the built-in templates.
func (w *Workspace) TemplatesDir() string { return filepath.Join(w.Root, "templates") }

// Templates reads the workspace's template overrides, through the
// workspace like every other file. An override that is no text (a NUL
// byte, invalid UTF-8) is an error naming its line, like one that cannot
// be read: it would reach every prompt or new file as it is.
func (w *Workspace) Templates() templates.Overrides {
	return func(name string) ([]byte, error) {
		rel := "templates/" + name
		b, err := w.ReadFile(rel, MaxFileSize)
		if err != nil {
			return nil, err
		}
		if err := checkContent(rel, b); err != nil {
			return nil, err
		}
		return b, nil
	}
}

// ErrNotOwned is wrapped by Find's error for a workspace another user
// owns.
var ErrNotOwned = errors.New("is owned by another user")

// effectiveUID is the user tmem runs as; a test stands in another.
var effectiveUID = os.Geteuid

// mayUse reports whether a workspace owned by uid is the current user's:
// its own, or under sudo the invoking user's (as git allows).
func mayUse(uid int) bool {
	me := effectiveUID()
	if uid == me {
		return true
	}
	sudo, err := strconv.Atoi(os.Getenv("SUDO_UID"))
	return err == nil && me == 0 && uid == sudo
}

// owned returns the workspace at root unless another user owns it; st
// is root's stat data, nil when not read yet.
func owned(root string, st fs.FileInfo) (*Workspace, error) {
	if st == nil {
		var err error
		if st, err = os.Stat(root); err != nil {
			return nil, fmt.Errorf("find workspace: %w", err)
		}
	}
	if uid, ok := ownerOf(st); ok && !mayUse(uid) {
		return nil, fmt.Errorf("found %s, which %w (uid %d, not %d): tmem uses a workspace it finds only when it is yours; name it with --dir or TMEM_DIR to use it anyway", quote.IfNeeded(root), ErrNotOwned, uid, effectiveUID())
	}
	return &Workspace{Root: root}, nil
}

// ReadSession returns the teammate's session file (see SessionPath),
// workspace-relative, and its text; "" when it does not exist yet.
func (w *Workspace) ReadSession(name string) (rel, text string, err error) {
	if err := ValidateName(name); err != nil {
		return "", "", err
	}
	rel = w.Rel(w.SessionPath(name))
	b, err := w.ReadFile(rel, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return rel, "", nil
	}
	return rel, string(b), err
}

// WriteSession replaces the teammate's session file with text, which
// must be UTF-8 without NUL bytes and within MaxFileSize, as a memory
// file's.
func (w *Workspace) WriteSession(name, text string) (rel string, err error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	rel = w.Rel(w.SessionPath(name))
	if err := checkText(rel, []byte(text)); err != nil {
		return "", err
	}
	return rel, w.WriteFile(rel, []byte(text))
}
