package layout

import (
	"io/fs"
	"os"
	"strings"
)

// A link in the workspace folder to a teammate's folder would make one
// memory two teammates: listed, indexed, locked and compacted twice under
// two names. A folder reached under several names is one teammate.

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
