package layout

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/internal/quote"
)

// checkBOM reports a file that starts with a UTF-8 byte order mark: tmem
// reads past it, but other tools (YAML front-matter readers, shells, diff
// viewers) may not.
func checkBOM(path string, src []byte) []Finding {
	if !bytes.HasPrefix(src, []byte(bom)) {
		return nil
	}
	return []Finding{{Path: path, Line: 1, Severity: SevWarning,
		Message: "file starts with a UTF-8 byte order mark (BOM): tmem reads past it, other tools may not; save it without one"}}
}

// tempFileRe matches the temp files WriteAtomic creates:
// ".<name>.tmp-<suffix>", the suffix 12 hex digits (randomSuffix), or
// digits as earlier versions wrote.
var tempFileRe = lazyregexp.New(`^\..+\.tmp-[0-9a-f]+$`)

// checkTree walks the workspace without opening a file or following a
// link (lstat only) and reports what reading the memory files cannot
// show: entries that are not regular files (named pipes, devices,
// sockets, and folders or links to them named like memory files), links
// that lead outside the workspace or nowhere, teammates' folders that
// link where tmem refuses them, and temp files left behind by an
// interrupted write. A teammate's folder that is a link tmem follows is
// walked under the teammate's name (and the folder it leads to not
// again under its own). Index folders are skipped: they are rebuilt from
// the files.
func (w *Workspace) checkTree() ([]Finding, error) {
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return nil, fmt.Errorf("check workspace: %w", err)
	}
	t := &treeCheck{w: w, root: root, out: w.checkRootLink()}
	t.linked, t.walked, t.refused = w.linkedFolders()
	err = filepath.WalkDir(w.Root, t.visit)
	return t.out, err
}

// treeCheck is one walk of checkTree.
type treeCheck struct {
	w       *Workspace
	root    string          // the workspace folder, every link followed
	linked  map[string]bool // teammates' folders that are links tmem follows, by name
	walked  map[string]bool // where those lead, every link followed
	refused map[string]error
	out     []Finding
}

func (t *treeCheck) visit(p string, d fs.DirEntry, err error) error {
	rel := t.w.Rel(p)
	if err != nil {
		t.out = append(t.out, Finding{Path: rel, Severity: SevError, Message: fmt.Sprintf("cannot list: %v", withoutPath(err))})
		return nil
	}
	if p != t.w.Root {
		t.out = append(t.out, unprintableName(rel, d.Name())...)
	}
	switch {
	case p == t.w.Root:
	case d.IsDir() && d.Name() == ".index":
		return fs.SkipDir
	case d.IsDir() && t.walked[filepath.Join(t.root, filepath.FromSlash(rel))]:
		return fs.SkipDir // walked under the teammate's name
	case d.Type()&fs.ModeSymlink != 0:
		t.out = append(t.out, checkLink(rel, p, t.root)...)
		t.out = append(t.out, t.w.sharedLinkFinding(rel, p, t.root)...)
		return t.folderLink(rel, p)
	case d.IsDir() && memoryName(rel):
		t.out = append(t.out, notMemoryFile(rel, "a folder"))
	case !d.IsDir() && !d.Type().IsRegular():
		t.out = append(t.out, Finding{Path: rel, Severity: SevError,
			Message: fmt.Sprintf("%s, not a regular file: tmem never reads it; remove it", modeName(d.Type()))})
	case d.Type().IsRegular() && wantsFolder(rel):
		t.out = append(t.out, Finding{Path: rel, Severity: SevError,
			Message: "a file where tmem keeps a folder: move it away"})
	case !d.IsDir() && tempFileRe().MatchString(d.Name()):
		t.out = append(t.out, Finding{Path: rel, Severity: SevWarning,
			Message: "temp file left by an interrupted write: delete it when no tmem command is running"})
	}
	return nil
}

// folderLink reports rel, a link in the workspace folder, when tmem
// refuses it as a teammate's folder, and walks it when tmem follows it
// as one.
func (t *treeCheck) folderLink(rel, p string) error {
	var fle *folderLinkError
	if errors.As(t.refused[rel], &fle) {
		t.out = append(t.out, Finding{Path: rel, Severity: SevError, Message: fle.what()})
	}
	if !t.linked[rel] {
		return nil
	}
	// A trailing separator makes WalkDir walk where the link leads.
	return filepath.WalkDir(p+string(filepath.Separator), t.visit)
}

// unprintableName warns about an entry whose name holds a line break, a
// terminal escape or another character that does not print: tmem quotes
// such a name wherever it shows it, other tools may show it raw.
func unprintableName(rel, name string) []Finding {
	if quote.IfNeeded(name) == name {
		return nil
	}
	return []Finding{{Path: rel, Severity: SevWarning,
		Message: "the name holds a character that does not print (a line break, a terminal escape) or is not UTF-8: tmem shows it quoted, other tools may show it raw; rename it"}}
}

// wantsFolder reports whether tmem keeps a folder at rel: scratch state
// in .tmp, and each teammate's memory folders.
func wantsFolder(rel string) bool {
	switch rel {
	case ".tmp", ".tmp/locks", ".tmp/sessions":
		return true
	}
	name, sub, ok := strings.Cut(rel, "/")
	return ok && ValidateName(name) == nil && slices.Contains(MemoryDirs, sub)
}

// memoryName reports whether tmem reads a memory file at rel: a
// teammate's SOUL.md, GOALS.md and WISDOM.md, the Markdown files of its
// memory folders (dailies, typed memories, summaries, the archive), and
// CROSS-TEAM.md.
func memoryName(rel string) bool {
	if rel == "CROSS-TEAM.md" {
		return true
	}
	dir, fn := path.Split(rel)
	name, sub, _ := strings.Cut(strings.TrimSuffix(dir, "/"), "/")
	switch {
	case ValidateName(name) != nil:
		return false
	case sub == "":
		return fn == "SOUL.md" || fn == "GOALS.md" || fn == "WISDOM.md"
	}
	return slices.Contains(MemoryDirs, sub) && strings.HasSuffix(fn, ".md") && !strings.HasPrefix(fn, ".")
}

// notMemoryFile is the finding for rel, named like a memory file but
// what, not a regular file.
func notMemoryFile(rel, what string) Finding {
	effect := "compact fails on it every run"
	switch path.Base(rel) {
	case "SOUL.md":
		effect = "the teammate is listed with no role"
	case "GOALS.md", "WISDOM.md", "CROSS-TEAM.md":
		effect = "tmem skips it"
	}
	return Finding{Path: rel, Severity: SevError,
		Message: fmt.Sprintf("%s, not a regular file, named like a memory file: tmem cannot read it (%s); move it away", what, effect)}
}

// checkMemoryLink reports a symlink named like a memory file that leads
// (to real, inside the workspace) to something other than a regular file.
func checkMemoryLink(rel, real string) []Finding {
	if !memoryName(rel) {
		return nil
	}
	st, err := os.Stat(real)
	if err != nil || st.Mode().IsRegular() {
		return nil
	}
	return []Finding{notMemoryFile(rel, "a symlink to "+modeName(st.Mode()))}
}

// checkLink reports a symlink that leads outside the workspace or
// nowhere, or, named like a memory file, to no regular file.
func checkLink(rel, p, root string) []Finding {
	to, _ := os.Readlink(p)
	real, err := filepath.EvalSymlinks(p)
	switch {
	case err != nil:
		return []Finding{{Path: rel, Severity: SevWarning, Message: fmt.Sprintf("symlink leads nowhere (to %s): remove it", to)}}
	case real != root && !strings.HasPrefix(real, root+string(filepath.Separator)):
		return []Finding{{Path: rel, Severity: SevError,
			Message: fmt.Sprintf("symlink leads outside the workspace (to %s): tmem does not follow it; put the file itself here", real)}}
	}
	if f := checkTeamLink(rel, real, root); f != nil {
		return f
	}
	return checkMemoryLink(rel, real)
}
