package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
	"github.com/tmemhq/tmem/templates"
)

type initOptions struct {
	teammates []string
	git       bool
}

func newInitCmd(f *factory) *cobra.Command {
	opts := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [--teammate NAME[:ROLE]]...",
		Short: "Create a workspace and teammates from the templates",
		Long: `Create .teammates/ (in --dir, $TMEM_DIR or the current folder) with
CROSS-TEAM.md, a .gitignore for the index and scratch folders, and one folder
per --teammate with SOUL.md, GOALS.md, WISDOM.md and memory/. Existing files
are never overwritten, so running it again only adds what is missing.
It also writes .teammates/.gitattributes, which sends memory files to tmem's
merge driver; --git sets that driver up in the local config of the git
repository holding the workspace, so machines' appends merge without
conflicts (see 'tmem merge-driver --help').`,
		Example: `  tmem init --teammate beacon:"Search engineer" --teammate quill`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			specs, err := opts.specs()
			if err != nil {
				return err
			}
			return f.initWorkspace(specs, opts.git)
		},
	}
	cmd.Flags().StringArrayVar(&opts.teammates, "teammate", nil, "add a teammate NAME or NAME:ROLE (repeatable)")
	cmd.Flags().BoolVar(&opts.git, "git", false, "set up the merge driver in the local config of the git repository holding the workspace")
	return cmd
}

// specs reads the --teammate NAME[:ROLE] values.
func (o *initOptions) specs() ([]layout.TeammateSpec, error) {
	var specs []layout.TeammateSpec
	for _, t := range o.teammates {
		name, role, _ := strings.Cut(t, ":")
		role = strings.TrimSpace(role)
		if err := layout.ValidateName(name); err != nil {
			return nil, usageError{err}
		}
		if err := layout.ValidateRole(role); err != nil {
			return nil, usageError{err}
		}
		specs = append(specs, layout.TeammateSpec{Name: name, Role: role})
	}
	return specs, nil
}

// initWorkspace creates the workspace in --dir, $TMEM_DIR or the current
// folder, and the teammates, sets up git's merge driver if asked, and
// says what it created.
func (f *factory) initWorkspace(specs []layout.TeammateSpec, git bool) error {
	dir := f.dir
	if dir == "" {
		dir = f.getenv("TMEM_DIR")
	}
	if dir == "" {
		dir = "."
	}
	res, err := layout.Init(dir, specs)
	if err != nil {
		return err
	}
	if git {
		if err := setupGit(f, res.Root); err != nil {
			return err
		}
	}
	if f.json {
		return f.printJSON(res)
	}
	for _, p := range res.Created {
		if !f.quiet {
			fmt.Fprintf(f.stdout, "created %s\n", p)
		}
	}
	if err := checkInit(f, res.Root, specs); err != nil {
		return err
	}
	if len(res.Created) == 0 {
		f.infof("nothing to do: %s is complete", res.Root)
	}
	return nil
}

// checkInit reads back what init leaves in place: a file that was already
// there (a named pipe, a folder, a link leading outside, an unreadable
// file) is not created over, so the workspace or the teammate would not
// work. Each such file is named on stderr with why, and init fails.
func checkInit(f *factory, root string, specs []layout.TeammateSpec) error {
	ws, err := layout.Open(root)
	if err != nil {
		return err
	}
	rels := []string{templates.CrossTeam}
	for _, m := range specs {
		for _, t := range []string{templates.Soul, templates.Goals, templates.Wisdom} {
			rels = append(rels, m.Name+"/"+t)
		}
	}
	var bad int
	for _, rel := range rels {
		if _, err := ws.ReadFile(rel, 0); err != nil {
			fmt.Fprintf(f.stderr, "tmem: init: %v\n", err)
			bad++
		}
	}
	for _, m := range specs {
		if err := memoryDir(ws, m.Name); err != nil {
			fmt.Fprintf(f.stderr, "tmem: init: %v\n", err)
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("init: %d of the paths it needs cannot be used (see above): move them away and run tmem init again", bad)
	}
	return nil
}

// memoryDir checks that a teammate's memory folder is a folder inside the
// workspace.
func memoryDir(ws *layout.Workspace, name string) error {
	rel := name + "/memory"
	st, err := ws.Stat(rel)
	if err != nil {
		return layout.ReadError(rel, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: not a folder", rel)
	}
	return nil
}

// setupGit registers the merge driver for the workspace at root.
func setupGit(f *factory, root string) error {
	ws, err := layout.Open(root)
	if err != nil {
		return err
	}
	changed, err := merge.Setup(ws, "tmem")
	if err != nil {
		return fmt.Errorf("init --git: %w", err)
	}
	if changed {
		f.infof("set up the tmem merge driver in the repository's git config")
	}
	return nil
}
