package layout

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A link in the workspace folder to a teammate's folder would make one
// memory two teammates: listed, indexed, locked and compacted twice under
// two names. A folder reached under several names is one teammate.
//
// A teammate's folder that is a link into another teammate's folder, into
// a dot-folder (.tmp, .index, .git) or templates, or to the workspace
// folder itself is no teammate at all: a session bound to it would read
// and write another's memory, or tmem's own files, under its own name and
// lock. It is refused wherever it is used (see refusedTarget).

// teamFolder is an entry of the workspace folder that may be a teammate's
// folder.
type teamFolder struct {
	name string
	e    fs.DirEntry
	info fs.FileInfo // the folder's, the link followed; nil until needed
	link bool
}

// alias is a link in the workspace folder to the folder another name
// already stands for.
type alias struct{ name, target string }

// teamFolders returns the entries that may be teammates' folders: folders,
// and links to folders inside the workspace (see isDir), under names a
// teammate can have, dot-folders skipped. A folder reached under several
// names keeps its own name when it is in the workspace folder, else the
// first of its links' names; the other links come back as aliases.
func (w *Workspace) teamFolders(ents []fs.DirEntry) (folders []teamFolder, aliases []alias) {
	links := false
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || ValidateName(name) != nil || !w.isDir(e) {
			continue
		}
		link := e.Type()&fs.ModeSymlink != 0
		links = links || link
		folders = append(folders, teamFolder{name: name, e: e, link: link})
	}
	if !links {
		return folders, nil
	}
	refused := w.folderLinks(ents).refused()
	folders = slices.DeleteFunc(folders, func(f teamFolder) bool { return refused[f.name] != nil })
	return w.oneNameEach(folders)
}

// oneNameEach keeps one name for each folder, in the order of folders:
// the folders first, then the links, as two entries that are folders are
// never one folder.
func (w *Workspace) oneNameEach(all []teamFolder) (kept []teamFolder, aliases []alias) {
	for _, pass := range []bool{false, true} {
		for _, f := range all {
			if f.link != pass {
				continue
			}
			if f.info = w.folderInfo(f); f.info == nil {
				continue
			}
			if target, ok := sameFolder(kept, f); ok {
				aliases = append(aliases, alias{f.name, target})
				continue
			}
			kept = append(kept, f)
		}
	}
	return kept, aliases
}

// folderInfo stats a folder entry, following a link inside the workspace
// only; nil when it cannot.
func (w *Workspace) folderInfo(f teamFolder) fs.FileInfo {
	var info fs.FileInfo
	var err error
	if f.link {
		info, err = w.Stat(f.name)
	} else {
		info, err = f.e.Info()
	}
	if err != nil {
		return nil
	}
	return info
}

// sameFolder returns the name of the folder in kept that f is.
func sameFolder(kept []teamFolder, f teamFolder) (string, bool) {
	if !f.link {
		return "", false
	}
	for _, k := range kept {
		if os.SameFile(k.info, f.info) {
			return k.name, true
		}
	}
	return "", false
}

// aliasOf returns the name whose folder name links to, when name is an
// alias.
func (w *Workspace) aliasOf(name string) (target string, ok bool) {
	ents, err := w.ReadDir("")
	if err != nil {
		return "", false
	}
	_, aliases := w.teamFolders(ents)
	for _, a := range aliases {
		if a.name == name {
			return a.target, true
		}
	}
	return "", false
}

// folderLinks is where the links in the workspace folder under names a
// teammate can have lead.
type folderLinks struct {
	root  string            // the workspace folder, every link followed
	to    map[string]string // by link name: where it leads, every link followed, relative to root
	names []string          // the workspace folder's entries
}

// folderLinks follows the links among ents, the workspace folder's
// entries, that are under names a teammate can have; a link that leads
// outside the workspace or nowhere is left out (os.Root refuses it).
func (w *Workspace) folderLinks(ents []fs.DirEntry) folderLinks {
	fl := folderLinks{to: map[string]string{}}
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return fl
	}
	fl.root = root
	for _, e := range ents {
		name := e.Name()
		fl.names = append(fl.names, name)
		if e.Type()&fs.ModeSymlink == 0 || ValidateName(name) != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(w.Root, name))
		if err != nil {
			continue
		}
		if to, err := filepath.Rel(root, real); err == nil && (to == "." || filepath.IsLocal(to)) {
			fl.to[name] = filepath.ToSlash(to)
		}
	}
	return fl
}

// refusal returns the error for the link name when tmem refuses it as a
// teammate's folder, else nil.
func (fl folderLinks) refusal(name string) error {
	to, ok := fl.to[name]
	if !ok {
		return nil
	}
	if where, refused := fl.refusedTarget(name, to); refused {
		return &folderLinkError{name: name, to: to, where: where}
	}
	return nil
}

// refused returns the errors for the links tmem refuses, by name.
func (fl folderLinks) refused() map[string]error {
	out := map[string]error{}
	for name := range fl.to {
		if err := fl.refusal(name); err != nil {
			out[name] = err
		}
	}
	return out
}

// refusedTarget says whether a teammate's folder, name, may not be a link
// to the workspace path to, and where that is. It may lead to a folder of
// its own: under no name a teammate can have (whose folder that would be;
// a link to such a folder itself is an alias, see oneNameEach), in no
// dot-folder, not in templates, and not in the folder another teammate's
// link leads to.
func (fl folderLinks) refusedTarget(name, to string) (where string, refused bool) {
	first, _, nested := strings.Cut(to, "/")
	in := func(what string) string {
		if nested {
			return "in " + first + ", " + what
		}
		return what
	}
	first = fl.caseOf(first)
	switch {
	case to == ".":
		return "", true
	case strings.HasPrefix(first, "."):
		return in("a dot-folder"), true
	case first == "templates":
		return in("the folder of template overrides"), true
	case ValidateName(first) == nil:
		return in(fmt.Sprintf("the folder of teammate %q", first)), nested
	}
	outer := ""
	for other, oto := range fl.to {
		if other == name || !fl.within(to, oto) {
			continue
		}
		if outer == "" || len(oto) < len(fl.to[outer]) || len(oto) == len(fl.to[outer]) && other < outer {
			outer = other
		}
	}
	if outer != "" {
		return fmt.Sprintf("in %s, the folder of teammate %q", fl.to[outer], outer), true
	}
	return "", false
}

// caseOf is first, the first part of where a link leads, as the name of
// a teammate's folder or of templates when it is that folder: on a disk
// that ignores case (or Unicode forms) "QUILL" is the folder "quill" and
// "Templates" is "templates", however the link's text spells them, and a
// folder mounted on another is that folder. Told by the folders being
// one, among the workspace folder's entries, not by any rule of case.
func (fl folderLinks) caseOf(first string) string {
	if fl.root == "" || first == "templates" || ValidateName(first) == nil {
		return first
	}
	st, err := os.Stat(filepath.Join(fl.root, first))
	if err != nil || !st.IsDir() {
		return first
	}
	for _, name := range fl.names {
		if name != "templates" && ValidateName(name) != nil {
			continue
		}
		// Lstat: a link to the folder is an alias, not the folder.
		if other, err := os.Lstat(filepath.Join(fl.root, name)); err == nil && other.IsDir() && os.SameFile(st, other) {
			return name
		}
	}
	return first
}

// within reports whether the workspace path to lies inside the folder
// oto: by name, or, spelled otherwise, by one of to's parents being that
// folder.
func (fl folderLinks) within(to, oto string) bool {
	if strings.HasPrefix(to, oto+"/") {
		return true
	}
	if fl.root == "" {
		return false
	}
	st, err := os.Stat(filepath.Join(fl.root, filepath.FromSlash(oto)))
	if err != nil || !st.IsDir() {
		return false
	}
	for p := path.Dir(to); p != "." && p != "/"; p = path.Dir(p) {
		if other, err := os.Stat(filepath.Join(fl.root, filepath.FromSlash(p))); err == nil && os.SameFile(st, other) {
			return true
		}
	}
	return false
}

// folderLinkError says where a teammate's folder that is a link tmem
// refuses leads.
type folderLinkError struct{ name, to, where string }

func (e *folderLinkError) Error() string { return e.name + " is a " + e.what() }

// what is the error without the link's name, for a finding that names it.
func (e *folderLinkError) what() string {
	to := e.to
	switch {
	case to == ".":
		to = "the workspace folder itself"
	case e.where != "":
		to += ", " + e.where
	}
	return fmt.Sprintf("symlink to %s: tmem follows a teammate's folder only to a folder of its own, not into another teammate's folder, a dot-folder or templates; make %s a folder of its own", to, e.name)
}

func (e *folderLinkError) Is(target error) bool {
	return target == ErrOtherFolder || target == ErrOutside
}

// currentLinks lists the workspace folder and follows its links (see
// folderLinks).
func (w *Workspace) currentLinks() (folderLinks, []fs.DirEntry, error) {
	ents, err := w.ReadDir("")
	if err != nil {
		return folderLinks{}, nil, err
	}
	return w.folderLinks(ents), ents, nil
}

// folderLinkRefusal returns the error for the teammate's folder name when
// it is a link tmem refuses, else nil.
func (w *Workspace) folderLinkRefusal(name string) error {
	fl, _, err := w.currentLinks()
	if err != nil {
		return nil
	}
	return fl.refusal(name)
}

// linkedFolders returns the teammates' folders that are links tmem
// follows, by name, with where they lead (every link followed), and the
// errors for those it refuses, by name. Aliases are in neither.
func (w *Workspace) linkedFolders() (linked, walked map[string]bool, refused map[string]error) {
	fl, ents, err := w.currentLinks()
	if err != nil || len(fl.to) == 0 {
		return nil, nil, nil
	}
	linked, walked = map[string]bool{}, map[string]bool{}
	folders, _ := w.teamFolders(ents)
	for _, f := range folders {
		if to, ok := fl.to[f.name]; ok && f.link {
			linked[f.name] = true
			walked[filepath.Join(fl.root, filepath.FromSlash(to))] = true
		}
	}
	return linked, walked, fl.refused()
}
