package merge

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// ErrNoRepo is returned when the workspace is not inside a git work tree.
var ErrNoRepo = errors.New("not inside a git work tree (run git init first)")

// Setup registers the driver in the local config of the repository that
// holds the workspace, to run command ("tmem"); changed is false when it
// was registered already. A driver an earlier tmem registered without the
// fallback (see driverCommand) is registered again, for the program it
// names.
func Setup(w *layout.Workspace, command string) (changed bool, err error) {
	g := Git{Dir: w.Root}
	if !g.InRepo() {
		return false, fmt.Errorf("%s: %w", w.Root, ErrNoRepo)
	}
	v, err := g.driver()
	if err != nil {
		return false, err
	}
	if program, old := withoutFallback(v); old {
		return true, g.Register(program)
	}
	if v != "" {
		return false, nil
	}
	return true, g.Register(command)
}

// Check reports, as info findings, a workspace in a git repository whose
// config does not define the driver yet (or an earlier tmem's), and one
// whose indexes and scratch files git would track; outside git it says
// nothing.
func Check(w *layout.Workspace) []layout.Finding {
	g := Git{Dir: w.Root}
	if !g.InRepo() {
		return nil
	}
	var out []layout.Finding
	if !scratchIgnored(w) {
		out = append(out, layout.Finding{Path: ".gitignore", Severity: layout.SevInfo,
			Message: "git would track the recall indexes and .tmp/ (locks, journal, sessions), rebuildable scratch; run 'tmem doctor --fix' to write the .gitignore tmem init writes, if there is none"})
	}
	return append(out, driverFindings(g)...)
}

// scratchIgnored reports whether git ignores the workspace's .tmp folder
// and a teammate's index, where tmem keeps what it can rebuild.
func scratchIgnored(w *layout.Workspace) bool {
	paths := []string{".tmp/locks/x.lock", "x/.index/manifest.bin"}
	out, err := Git{Dir: w.Root}.run(nil, append([]string{"check-ignore", "--no-index"}, paths...)...)
	return err == nil && len(strings.Fields(string(out))) == len(paths)
}

// driverFindings reports a repository without the driver, or with an
// earlier tmem's.
func driverFindings(g Git) []layout.Finding {
	v, err := g.driver()
	if err != nil {
		return nil
	}
	if _, old := withoutFallback(v); old {
		return []layout.Finding{{Path: ".gitattributes", Severity: layout.SevInfo,
			Message: "the tmem merge driver was set up by an earlier tmem: where git cannot find tmem, a merge keeps this side's memory files alone, without conflict markers, or runs what a file's name says; run 'tmem doctor --fix'"}}
	}
	if v != "" {
		return nil
	}
	return []layout.Finding{{Path: ".gitattributes", Severity: layout.SevInfo,
		Message: "the tmem merge driver is not set up in this repository: git merges memory files line by line and two machines' appends conflict; run 'tmem doctor --fix'"}}
}

// Fix sets up the driver (see Setup), writes the workspace's .gitignore
// when git would track its indexes and scratch files and it has none, and
// settles compacted dailies a merge left in conflict (see
// Git.ResolveDeleted); it returns what it did.
func Fix(w *layout.Workspace, command string) ([]string, error) {
	changed, err := Setup(w, command)
	if errors.Is(err, ErrNoRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var did []string
	if !scratchIgnored(w) {
		if err := w.CreateFile(".gitignore", []byte(layout.Gitignore)); err == nil {
			did = append(did, "wrote .gitignore: git no longer tracks the recall indexes and .tmp/ (locks, journal, sessions)")
		} else if !errors.Is(err, layout.ErrExists) {
			return did, err
		}
	}
	if changed {
		did = append(did, "set up the tmem merge driver in the repository's git config (merge."+DriverName+".driver), falling back to git merge-file where git cannot find tmem")
	}
	notes, err := Git{Dir: w.Root}.ResolveDeleted(w)
	return append(did, notes...), err
}
