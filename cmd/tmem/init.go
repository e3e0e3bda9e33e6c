package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/layout"
)

type initOptions struct {
	teammates []string
}

func newInitCmd(f *factory) *cobra.Command {
	opts := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [--teammate NAME[:ROLE]]...",
		Short: "Create a workspace and teammates from the templates",
		Long: `Create .teammates/ (in --dir, $TMEM_DIR or the current folder) with
CROSS-TEAM.md, a .gitignore for the index and scratch folders, and one folder
per --teammate with SOUL.md, GOALS.md, WISDOM.md and memory/. Existing files
are never overwritten, so running it again only adds what is missing.`,
		Example: `  tmem init --teammate beacon:"Search engineer" --teammate quill`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var specs []layout.TeammateSpec
			for _, t := range opts.teammates {
				name, role, _ := strings.Cut(t, ":")
				if err := layout.ValidateName(name); err != nil {
					return usageError{err}
				}
				specs = append(specs, layout.TeammateSpec{Name: name, Role: strings.TrimSpace(role)})
			}
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
			if f.json {
				return f.printJSON(res)
			}
			for _, p := range res.Created {
				if !f.quiet {
					fmt.Fprintf(f.stdout, "created %s\n", p)
				}
			}
			if len(res.Created) == 0 {
				f.infof("nothing to do: %s is complete", res.Root)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&opts.teammates, "teammate", nil, "add a teammate NAME or NAME:ROLE (repeatable)")
	return cmd
}

var errNoTeammate = errors.New("--teammate is required")
