package merge

import (
	"errors"
	"fmt"

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

// Check reports, as an info finding, a workspace in a git repository
// whose config does not define the driver yet; outside git it says
// nothing.
func Check(w *layout.Workspace) []layout.Finding {
	g := Git{Dir: w.Root}
	if !g.InRepo() {
		return nil
	}
	v, err := g.driver()
	if err != nil {
		return nil
	}
	if _, old := withoutFallback(v); old {
		return []layout.Finding{{Path: ".gitattributes", Severity: layout.SevInfo,
			Message: "the tmem merge driver was set up by an earlier tmem, without a fallback: where git cannot find tmem, a merge keeps this side's memory files alone, without conflict markers; run 'tmem doctor --fix'"}}
	}
	if v != "" {
		return nil
	}
	return []layout.Finding{{Path: ".gitattributes", Severity: layout.SevInfo,
		Message: "the tmem merge driver is not set up in this repository: git merges memory files line by line and two machines' appends conflict; run 'tmem doctor --fix'"}}
}

// Fix sets up the driver (see Setup) and settles compacted dailies a merge
// left in conflict (see Git.ResolveDeleted); it returns what it did.
func Fix(w *layout.Workspace, command string) ([]string, error) {
	changed, err := Setup(w, command)
	if errors.Is(err, ErrNoRepo) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var did []string
	if changed {
		did = append(did, "set up the tmem merge driver in the repository's git config (merge."+DriverName+".driver), falling back to git merge-file where git cannot find tmem")
	}
	notes, err := Git{Dir: w.Root}.ResolveDeleted(w)
	return append(did, notes...), err
}
