package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// A path under a teammate's folder is walked from an os.Root opened on
// that folder, so a link in it (of a folder or a file, at any depth) that
// leads out of the folder is refused as one leading outside the workspace
// is: into another teammate's folder, to CROSS-TEAM.md, into .index or
// .tmp. Otherwise a session bound to one teammate would read and write
// another's memory under its own name, and under its own lock. The
// teammate's folder itself may be a link to a folder of its own inside
// the workspace, not into another teammate's folder, a dot-folder or
// templates (see refusedTarget). A folder that is no link, the usual
// case, is opened by its path, checked to be the folder lstat saw (see
// openFolder); only a link is checked for where it leads.

// ErrOtherFolder is wrapped by errors about paths under a teammate's
// folder that lead out of it, elsewhere in the workspace, through a
// symlink, and about paths under a teammate's folder that is itself a
// link tmem refuses. Those errors match ErrOutside too: tmem treats both
// alike.
var ErrOtherFolder = errors.New("leads out of its teammate's folder through a symlink, which tmem never follows")

// folderError says where a path under teammate's folder leads.
type folderError struct{ teammate, to string }

func (e *folderError) Error() string {
	return fmt.Sprintf("leads through a symlink to %s, out of %s's folder: tmem never follows a link out of a teammate's folder", e.to, e.teammate)
}

func (e *folderError) Is(target error) bool { return target == ErrOtherFolder || target == ErrOutside }

// teamPath splits a workspace path under a teammate's folder into the
// folder's name and the path inside it; ok is false for other paths
// (CROSS-TEAM.md, .tmp/..., templates/..., a teammate's folder itself).
func teamPath(rel string) (teammate, inside string, ok bool) {
	teammate, inside, ok = strings.Cut(path.Clean(rel), "/")
	if !ok || ValidateName(teammate) != nil {
		return "", "", false
	}
	return teammate, inside, true
}

// rootAt opens the root to reach rel by, and returns rel in the system's
// form relative to it: the teammate's folder for a path under one, else
// the workspace. With create, a teammate's folder that does not exist is
// made first. A shared path that leads into a teammate's folder is
// refused (see checkShared). The caller closes r.
func (w *Workspace) rootAt(rel string, create bool) (r *os.Root, name string, err error) {
	teammate, inside, ok := teamPath(rel)
	if !ok {
		if err := w.checkShared(rel); err != nil {
			return nil, "", err
		}
		if r, err = w.openRoot(); err != nil {
			return nil, "", err
		}
		return r, filepath.FromSlash(rel), nil
	}
	if r = w.openFolder(teammate); r == nil {
		if r, err = w.openTeamFolder(teammate, rel, create); err != nil {
			return nil, "", err
		}
	}
	return r, filepath.FromSlash(inside), nil
}

// openFolder opens the teammate's folder as a root when it is a folder,
// not a link: lstat it, open it by its path and make sure the folder
// opened is the one lstat saw. That is four calls, one fewer than
// opening the workspace root and the folder from it. Anything else, or a
// folder that changed meanwhile, gives nil: openTeamFolder takes it.
func (w *Workspace) openFolder(teammate string) *os.Root {
	p := filepath.Join(w.Root, teammate)
	st, err := os.Lstat(p)
	if err != nil || !st.IsDir() {
		return nil
	}
	r, err := os.OpenRoot(p)
	if err != nil {
		return nil
	}
	if opened, err := r.Stat("."); err != nil || !os.SameFile(st, opened) {
		r.Close()
		return nil
	}
	return r
}

// openTeamFolder opens the teammate's folder as a root walked from the
// workspace root, so that a link leads only inside the workspace, and
// refuses a link that tmem does not take for a teammate's folder (see
// refusedTarget).
func (w *Workspace) openTeamFolder(teammate, rel string, create bool) (*os.Root, error) {
	r, err := w.openRoot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sub, err := r.OpenRoot(teammate)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err = r.Mkdir(teammate, newDirMode); err == nil || errors.Is(err, fs.ErrExist) {
			sub, err = r.OpenRoot(teammate)
		}
	}
	if err != nil {
		return nil, accessError(rel, err)
	}
	if err := w.checkOpened(r, sub, teammate); err != nil {
		sub.Close()
		return nil, &ParseError{Path: rel, Err: err}
	}
	return sub, nil
}

// checkOpened refuses sub, the teammate's folder opened from r, when it
// is a link tmem refuses, or when it is not the folder now found there.
func (w *Workspace) checkOpened(r, sub *os.Root, teammate string) error {
	opened, err := sub.Stat(".")
	if err != nil {
		return err
	}
	st, err := r.Lstat(teammate)
	if err == nil && st.IsDir() && os.SameFile(st, opened) {
		return nil
	}
	fl, _, err := w.currentLinks()
	if err != nil {
		return err
	}
	if err := fl.refusal(teammate); err != nil {
		return err
	}
	if to, ok := fl.to[teammate]; ok {
		if st, err := os.Stat(filepath.Join(fl.root, filepath.FromSlash(to))); err == nil && os.SameFile(st, opened) {
			return nil
		}
	}
	return fmt.Errorf("%s changed while tmem opened it: try again", teammate)
}

// noTeamFolder reports whether err is rootAt's for a path under a
// teammate's folder that does not exist (the workspace folder does).
func noTeamFolder(err error) bool {
	return errors.Is(err, fs.ErrNotExist) && errors.As(err, new(*ParseError))
}

// explain turns *err, an error about rel, into one that says where rel
// leads when rel is under a teammate's folder and leads out of it to
// elsewhere in the workspace. It runs only when an error came up.
func (w *Workspace) explain(rel string, err *error) {
	if *err == nil || !errors.Is(*err, ErrOutside) || errors.Is(*err, ErrOtherFolder) {
		return
	}
	teammate, _, ok := teamPath(rel)
	if !ok {
		return
	}
	if to, inside := w.leadsTo(rel); inside {
		*err = &ParseError{Path: rel, Err: &folderError{teammate: teammate, to: to}}
	}
}

// leadsTo returns where rel leads, workspace-relative, following every
// link of the part of it that exists, a link to nothing too; inside is
// false when that is outside the workspace or cannot be told.
func (w *Workspace) leadsTo(rel string) (to string, inside bool) {
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return "", false
	}
	p, rest := w.Abs(rel), ""
	for range 64 {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			to, err := filepath.Rel(root, filepath.Join(real, rest))
			return filepath.ToSlash(to), err == nil && filepath.IsLocal(to)
		}
		if link, err := os.Readlink(p); err == nil {
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(p), link)
			}
			p = link
			continue
		}
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p, rest = parent, filepath.Join(filepath.Base(p), rest)
	}
	return "", false
}

// nameBeside returns to in the form rootAt gives it, for a rename from
// from: both must be under one teammate's folder, or neither under any.
func nameBeside(from, to string) (string, error) {
	ft, _, fok := teamPath(from)
	tt, inside, tok := teamPath(to)
	switch {
	case !fok && !tok:
		return filepath.FromSlash(to), nil
	case fok && tok && ft == tt:
		return filepath.FromSlash(inside), nil
	}
	return "", fmt.Errorf("rename %s to %s: tmem moves a file only within one teammate's folder", from, to)
}

// checkTeamLink reports a symlink under a teammate's folder that leads
// out of it, real being where it leads and root the workspace, both with
// every link followed: tmem refuses it (see rootAt).
func checkTeamLink(rel, real, root string) []Finding {
	teammate, _, ok := teamPath(rel)
	if !ok {
		return nil
	}
	home, err := filepath.EvalSymlinks(filepath.Join(root, teammate))
	if err != nil || real == home || strings.HasPrefix(real, home+string(filepath.Separator)) {
		return nil
	}
	to, err := filepath.Rel(root, real)
	if err != nil {
		return nil
	}
	to = filepath.ToSlash(to)
	where := "out of " + teammate + "'s folder"
	if other, _, _ := strings.Cut(to, "/"); ValidateName(other) == nil && isFile(filepath.Join(root, other, "SOUL.md")) {
		where = "into another teammate's folder, " + other + "'s"
	}
	return []Finding{{Path: rel, Severity: SevError,
		Message: fmt.Sprintf("symlink leads %s (to %s): tmem does not follow a link out of a teammate's folder; put the file itself here", where, to)}}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// checkRootLink warns when the workspace folder is a symlink that leads
// out of the folder holding it: tmem follows it, so the memory, its index
// and its scratch files are read and written there. That may be meant.
func (w *Workspace) checkRootLink() []Finding {
	st, err := os.Lstat(w.Root)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	real, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return nil
	}
	project, err := filepath.EvalSymlinks(filepath.Dir(w.Root))
	if err != nil || strings.HasPrefix(real, project+string(filepath.Separator)) {
		return nil
	}
	return []Finding{{Path: w.Root, Severity: SevWarning,
		Message: fmt.Sprintf("the workspace folder is a symlink that leads out of the project folder (to %s): tmem reads and writes the memory, its index and its temp files there; if that is not meant, put the folder itself here", real)}}
}
