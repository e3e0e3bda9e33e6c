package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
	"github.com/tmemhq/tmem/recall/minilm"
)

func newDoctorCmd(f *factory) *cobra.Command {
	var fix, accept bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check every memory file and report problems",
		Long: `Read every memory file and report, one per line as path:line: severity:
message, frontmatter that does not parse, unknown memory types, misnamed
files (a daily whose title differs from its file name, a weekly for a week
that does not exist), empty files, invalid UTF-8, byte order marks,
oversized files and secrets (private keys, tokens, passwords) that must not
be in memory; in .teammates/tmem.yaml, YAML that does not parse, unknown
keys and settings out of their range. Without opening them it also reports files that are not regular
(named pipes, devices, folders or links to them named like memory files), symlinks that lead outside the workspace or
nowhere, links to a teammate's folder under a second name (skipped: one
folder is one teammate), and temp files an interrupted write left behind,
and merge conflict markers a git merge left in memory files (recall and context skip
those lines until they are resolved). In a git repository whose config does
not set up tmem's merge driver it says so (an info line).
With --fix it first sets up the merge driver in the repository's local git
config and settles daily logs that a merge left in a modify/delete
conflict (compaction removed the daily on one side, the other appended to
it): the appended entries are kept in the daily, staged, and reported.
With --accept-archive-edits it first records the archive sections a person
changed (a secret taken out, say) as they now are, so that they verify
again; restoring one then gives the text as edited.
It also says whether an embedding model is installed (without one, recall
is BM25-only; that is an info line, not a finding). Exit 0 when clean, 1
with findings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.doctor(background(cmd), fix, accept)
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "set up the git merge driver and settle compacted dailies a merge left in conflict")
	cmd.Flags().BoolVar(&accept, "accept-archive-edits", false, "record archive sections changed by hand (a secret taken out, say) as they now are, so that they verify again")
	return cmd
}

// doctor checks the workspace, after fixing what --fix fixes, and prints
// the findings; errFindings when any of them fails doctor.
func (f *factory) doctor(ctx context.Context, fix, accept bool) error {
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	if accept {
		if err := f.acceptArchiveEdits(ctx, ws); err != nil {
			return err
		}
	}
	if fix {
		did, err := merge.Fix(ws, "tmem")
		for _, d := range did {
			f.warnf("fixed: %s", d)
		}
		if err != nil {
			return err
		}
	}
	findings, failed, err := f.findings(ws)
	if err != nil {
		return err
	}
	if err := f.printFindings(findings); err != nil {
		return err
	}
	if failed {
		return errFindings
	}
	return nil
}

// findings checks the memory files and tmem.yaml, whose findings fail
// doctor, then adds the info lines about the model and git.
func (f *factory) findings(ws *layout.Workspace) (findings []layout.Finding, failed bool, err error) {
	findings, err = ws.Check()
	if err != nil {
		return nil, false, err
	}
	findings = append(findings, ws.CheckConfig(compact.ConfigFile, &workspaceConfig{})...)
	findings = append(findings, compact.CheckConfig(ws)...)
	store, _ := trustStore()
	findings = append(findings, compact.CheckTrust(ws, store)...)
	if findings == nil {
		findings = []layout.Finding{}
	}
	failed = len(findings) > 0
	findings = append(findings, f.modelFindings()...)
	return append(findings, merge.Check(ws)...), failed, nil
}

// printFindings prints findings as JSON under --json, else one per line;
// under --quiet the info lines are left out, so that a clean workspace
// prints nothing (a cron job mails only what needs a person).
func (f *factory) printFindings(findings []layout.Finding) error {
	if f.json {
		return f.printJSON(findings)
	}
	for _, fd := range findings {
		if f.quiet && fd.Severity == layout.SevInfo {
			continue
		}
		fmt.Fprintln(f.stdout, fd.String())
	}
	return nil
}

// workspaceConfig is the shape of tmem.yaml, one section per package that
// reads it, for doctor's check of unknown keys.
type workspaceConfig struct {
	Compact compact.Config `yaml:"compact"`
}

// modelFindings reports the embedding model's state as info lines: a
// missing model is a normal way to run, so it never fails doctor.
func (f *factory) modelFindings() []layout.Finding {
	dir, err := f.modelDir(f.model)
	if err != nil {
		return []layout.Finding{{Path: "(model)", Severity: layout.SevInfo, Message: "no user cache folder to find an embedding model in: recall is BM25-only; set TMEM_MODEL or --model"}}
	}
	return minilm.Check(dir)
}

// acceptArchiveEdits reseals every teammate's archive sections changed by
// hand and says what it did.
func (f *factory) acceptArchiveEdits(ctx context.Context, ws *layout.Workspace) error {
	mates, err := ws.Teammates()
	if err != nil {
		return err
	}
	for _, m := range mates {
		did, err := ws.ResealArchives(ctx, m.Name)
		for _, d := range did {
			f.warnf("%s", d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
