package layout

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tmemhq/tmem/templates"
)

// TeammateSpec names a teammate for Init.
type TeammateSpec struct {
	Name string
	Role string
}

func (m TeammateSpec) validate() error {
	if err := ValidateName(m.Name); err != nil {
		return err
	}
	return ValidateRole(m.Role)
}

// InitResult lists what Init created, relative to the workspace root.
type InitResult struct {
	Root    string   `json:"root"`
	Created []string `json:"created"`
}

// Gitignore is the .gitignore Init writes in the workspace: it keeps the
// rebuildable indexes and scratch files (locks, journal, sessions) out of
// git.
const Gitignore = `# tmem: rebuildable recall indexes and scratch state
.index/
*/.index/
.tmp/
`

// GitAttributes is the .gitattributes Init writes in the workspace: every
// Markdown file in it merges with tmem's merge driver (see the merge
// package), once the driver is set up in the repository's config by
// 'tmem init --git' or 'tmem doctor --fix'. Until then git merges as usual.
const GitAttributes = `# tmem: merge memory files entry by entry ('tmem merge-driver'); set up with 'tmem init --git' or 'tmem doctor --fix'
*.md merge=tmem
`

// Init creates the workspace under dir (dir/.teammates, or dir itself when
// it is named .teammates) and the given teammates, from the templates and
// the workspace's template overrides. Existing files are never touched.
// A bad name or role, or a template override that cannot be used, is
// refused before anything is written, so no teammate is left half made.
func Init(dir string, mates []TeammateSpec) (*InitResult, error) {
	for _, m := range mates {
		if err := m.validate(); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	if filepath.Base(abs) != DirName {
		abs = filepath.Join(abs, DirName)
	}
	if err := os.MkdirAll(abs, newDirMode); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	w := &Workspace{Root: abs}
	files, err := initFiles(w, mates)
	if err != nil {
		return nil, err
	}
	res := &InitResult{Root: abs, Created: []string{}}
	for _, f := range files {
		if err := res.create(w, f); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// initFile is a file Init writes, or a folder when data is nil.
type initFile struct {
	rel  string
	data []byte
}

// initFiles renders every file Init writes, in the order it writes them,
// before any is written.
func initFiles(w *Workspace, mates []TeammateSpec) ([]initFile, error) {
	ct, err := templates.Read(w.Templates(), templates.CrossTeam)
	if err != nil {
		return nil, err
	}
	files := []initFile{{".gitignore", []byte(Gitignore)}, {".gitattributes", []byte(GitAttributes)}, {"CROSS-TEAM.md", ct}}
	for _, m := range mates {
		title := strings.ToUpper(m.Name[:1]) + m.Name[1:]
		if m.Role != "" {
			title += " — " + m.Role
		}
		vars := map[string]string{"name": m.Name, "role": m.Role, "role_yaml": strconv.Quote(m.Role), "title": title}
		for _, t := range []string{templates.Soul, templates.Goals, templates.Wisdom} {
			b, err := templates.Render(w.Templates(), t, vars)
			if err != nil {
				return nil, err
			}
			files = append(files, initFile{m.Name + "/" + t, b})
		}
		files = append(files, initFile{rel: m.Name + "/memory"})
	}
	return files, nil
}

// create writes f unless it exists, and records it when it was created.
func (res *InitResult) create(w *Workspace, f initFile) error {
	if f.data == nil {
		if err := os.MkdirAll(w.Abs(f.rel), newDirMode); err != nil {
			return fmt.Errorf("init %s: %w", path.Dir(f.rel), err)
		}
		return nil
	}
	err := w.CreateFile(f.rel, f.data)
	if errors.Is(err, ErrExists) {
		return nil
	}
	if err == nil {
		res.Created = append(res.Created, f.rel)
	}
	return err
}
