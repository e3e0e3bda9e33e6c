package compact

import (
	"fmt"
	"path"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// archiveLog plans the archive copy of a daily log or weekly summary that
// leaves memory/ (its content b, hash sha) into the month file of month,
// and plans its deletion (or its replacement by stub, when not nil). It
// returns the archive file that holds the copy,
// relative to the memory folder ("archive/2026-03.md"): the copy is the
// section of that file with the source's name and hash, a citation no
// merge of the archive can shift. A copy already archived (by an earlier,
// interrupted run) is reused. With the archive off the file is just
// deleted and where is "".
func (ub *unit) archiveLog(rel string, b []byte, sha, month string, stub []byte) (string, error) {
	if !ub.pl.o.archive() {
		ub.remove(rel, sha, "", stub)
		return "", nil
	}
	arel := layout.ArchivePath(ub.pl.name, month)
	secs, err := ub.pl.archiveSections(arel)
	if err != nil {
		return "", err
	}
	src := ub.pl.memRel(rel)
	if _, ok := findSection(secs, src, sha); !ok {
		mf, err := ub.pl.file(arel)
		if err != nil {
			return "", err
		}
		if err := ub.write(arel, layout.AppendArchive(mf.Content, month, layout.NewArchiveSection(src, b, ub.pl.now))); err != nil {
			return "", err
		}
		if secs, err = ub.pl.archiveSections(arel); err != nil {
			return "", err
		}
		if _, ok := findSection(secs, src, sha); !ok {
			return "", fmt.Errorf("archive %s: the new section for %s does not read back", arel, src)
		}
	}
	ub.remove(rel, sha, arel, stub)
	return ub.pl.memRel(arel), nil
}

// archiveSections parses an archive file as planned.
func (pl *planner) archiveSections(arel string) ([]layout.ArchiveSection, error) {
	mf, err := pl.file(arel)
	if err != nil || !mf.Exists {
		return nil, err
	}
	return layout.ParseArchive(arel, mf.Content)
}

// findSection returns the section that restores source with hash sha.
func findSection(secs []layout.ArchiveSection, source, sha string) (layout.ArchiveSection, bool) {
	for _, s := range secs {
		if s.Source == source && s.SHA == sha && s.Verify() {
			return s, true
		}
	}
	return layout.ArchiveSection{}, false
}

// archiveTyped plans the archive copy of a typed memory absorbed into
// WISDOM.md, whole, as memory/archive/typed/<file name>, and its deletion.
// It returns the copy's path relative to the memory folder. A name taken
// by another memory gets the content hash before ".md".
func (ub *unit) archiveTyped(rel string, b []byte, sha string) (string, error) {
	if !ub.pl.o.archive() {
		ub.remove(rel, sha, "", nil)
		return "", nil
	}
	file := path.Base(rel)
	for _, name := range []string{file, strings.TrimSuffix(file, ".md") + "." + sha[:8] + ".md"} {
		arel := layout.ArchivedTypedPath(ub.pl.name, name)
		mf, err := ub.pl.file(arel)
		if err != nil {
			return "", err
		}
		if mf.Exists && sum(mf.Content) != sha {
			continue
		}
		if !mf.Exists {
			if err := ub.write(arel, b); err != nil {
				return "", err
			}
		}
		ub.remove(rel, sha, arel, nil)
		return ub.pl.memRel(arel), nil
	}
	return "", fmt.Errorf("archive %s: both %s and its hashed name are taken by other memories", rel, file)
}
