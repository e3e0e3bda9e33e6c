package layout

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// CROSS-TEAM.md and the template overrides in templates/ are shared: every
// teammate's search covers CROSS-TEAM.md, and every teammate's context
// stack is rendered from the templates. One of them that is a link into a
// teammate's folder would show that teammate's memory to every other, to
// a session bound to a teammate that may not read it too. tmem refuses
// such a link wherever the file is used, as it refuses a link out of a
// teammate's folder (see rootAt); doctor reports it.

// ErrIntoFolder is wrapped by errors about CROSS-TEAM.md, templates or a
// file in it that leads into a teammate's folder through a symlink.
var ErrIntoFolder = errors.New("leads into a teammate's folder through a symlink, from a file every teammate shares")

// sharedLinkError says whose folder a shared path leads into.
type sharedLinkError struct{ teammate, to string }

func (e *sharedLinkError) Error() string {
	return fmt.Sprintf("leads through a symlink to %s, into %s's folder: CROSS-TEAM.md and templates are shared by every teammate, and tmem never follows a link from them into one teammate's memory", e.to, e.teammate)
}

func (e *sharedLinkError) Is(target error) bool { return target == ErrIntoFolder }

// sharedPath reports whether rel is CROSS-TEAM.md, templates or a path
// under it.
func sharedPath(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	return first == "CROSS-TEAM.md" || first == "templates"
}

// checkShared refuses rel, a shared path, when it leads into a teammate's
// folder through a symlink. A path with no link in it, the usual case,
// costs an lstat per part.
func (w *Workspace) checkShared(rel string) error {
	rel = path.Clean(rel)
	if !sharedPath(rel) || !w.hasLink(rel) {
		return nil
	}
	to, inside := w.leadsTo(rel)
	if !inside {
		return nil // os.Root refuses it, or there is nothing there
	}
	fl, _, err := w.currentLinks()
	if err != nil {
		return err
	}
	if owner := fl.owner(to); owner != "" {
		return &ParseError{Path: rel, Err: &sharedLinkError{teammate: owner, to: to}}
	}
	return nil
}

// hasLink reports whether a part of rel that exists is a symlink.
func (w *Workspace) hasLink(rel string) bool {
	p := w.Root
	for _, part := range strings.Split(rel, "/") {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if err != nil {
			return false
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// owner returns the teammate whose folder the workspace path to (every
// link followed) is in, or "": a folder in the workspace folder that
// holds a SOUL.md, or the folder a teammate's folder that is a link tmem
// follows leads to.
func (fl folderLinks) owner(to string) string {
	first, _, _ := strings.Cut(to, "/")
	first = fl.caseOf(first)
	if ValidateName(first) == nil && isFile(filepath.Join(fl.root, first, "SOUL.md")) {
		return first
	}
	for _, name := range fl.names {
		oto, ok := fl.to[name]
		if !ok || fl.refusal(name) != nil || (to != oto && !fl.within(to, oto)) {
			continue
		}
		if isFile(filepath.Join(fl.root, filepath.FromSlash(oto), "SOUL.md")) {
			return name
		}
	}
	return ""
}

// sharedLinkFinding reports rel, a symlink at a shared path (p on disk),
// when it leads into a teammate's folder; root is the workspace folder,
// every link followed.
func (w *Workspace) sharedLinkFinding(rel, p, root string) []Finding {
	if !sharedPath(rel) {
		return nil
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil
	}
	to, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(to) {
		return nil
	}
	fl, _, err := w.currentLinks()
	if err != nil {
		return nil
	}
	to = filepath.ToSlash(to)
	where := ""
	if owner := fl.owner(to); owner != "" {
		where = "into " + owner + "'s folder"
	} else if holder := fl.holder(to); holder != "" {
		where = "to a folder that holds " + holder + "'s folder"
	} else {
		return nil
	}
	return []Finding{{Path: rel, Severity: SevError,
		Message: fmt.Sprintf("symlink leads %s (to %s): CROSS-TEAM.md and templates are shared by every teammate, so tmem refuses a link from them into a teammate's folder; put the file itself here", where, to)}}
}

// holder returns a teammate whose folder is inside the workspace folder
// to (every link followed), or "".
func (fl folderLinks) holder(to string) string {
	for _, name := range fl.names {
		in := name
		if oto, ok := fl.to[name]; ok {
			in = oto
		}
		if ValidateName(name) != nil || !isFile(filepath.Join(fl.root, filepath.FromSlash(in), "SOUL.md")) {
			continue
		}
		if to == "." || strings.HasPrefix(in, to+"/") {
			return name
		}
	}
	return ""
}
