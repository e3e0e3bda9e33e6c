package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/compact"
)

// newTrustCmd is the only way trust is given: by the machine's user, on
// the command line, never through the MCP server, whose callers are agents
// working in the repository the settings came from.
func newTrustCmd(f *factory) *cobra.Command {
	var revoke bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Allow the workspace's tmem.yaml to run its summarizer program or reach its endpoint",
		Long: `tmem.yaml travels with the memory in git, so whoever can change the
repository can change it. compact.command names a program to run and
compact.openai an endpoint to send memory to, with the value of an
environment variable as its key: tmem compact uses neither until the user
of this machine has read tmem.yaml and run 'tmem trust' in the workspace.
A change to the program, the endpoint or the key's variable asks again;
other settings (budgets, retention) do not. The trust is kept in the user's
configuration folder ($XDG_CONFIG_HOME/tmem/trusted.json on Linux), outside
every workspace. --revoke takes it back. A dry run needs no trust: it runs
nothing.`,
		Example: `  tmem trust
  tmem trust --revoke`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.trust(revoke)
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "take back the trust given to this workspace's tmem.yaml")
	return cmd
}

// trustResult is what tmem trust did, for --json.
type trustResult struct {
	Path    string        `json:"path"`
	Trusted bool          `json:"trusted"`
	Reach   compact.Reach `json:"reach"`
}

// trust allows (or, revoking, stops allowing) what the workspace's
// tmem.yaml reaches, and says so.
func (f *factory) trust(revoke bool) error {
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	cfg, err := compact.LoadConfig(ws)
	if err != nil {
		return err
	}
	f.warnUnknownKeys(cfg)
	store, err := trustStore()
	if err != nil {
		return err
	}
	res := trustResult{Path: compact.ConfigPath(ws), Reach: cfg.ReachIn(ws)}
	var msg string
	switch {
	case revoke:
		had, err := store.Revoke(res.Path)
		if err != nil {
			return err
		}
		msg = "was not trusted: " + res.Path
		if had {
			msg = "no longer trusted: " + res.Path
		}
	case res.Reach.Empty():
		msg = res.Path + " runs no program and reaches no endpoint: nothing to trust"
	default:
		if err := store.Allow(res.Path, res.Reach.Digest()); err != nil {
			return err
		}
		res.Trusted = true
		msg = fmt.Sprintf("trusted %s on this machine: %s", res.Path, res.Reach)
	}
	if f.json {
		return f.printJSON(res)
	}
	_, err = fmt.Fprintln(f.stdout, msg)
	return err
}

// trustStore is the user's store of trusted settings files.
func trustStore() (compact.TrustStore, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return compact.TrustStore{}, fmt.Errorf("no user configuration folder to keep trust in: %w", err)
	}
	return compact.TrustStore{Dir: filepath.Join(dir, "tmem")}, nil
}

// untrusted adds to a refusal of settings this machine has not trusted
// what to do about it.
func untrusted(err error) error {
	var ue *compact.UntrustedError
	if !errors.As(err, &ue) {
		return err
	}
	return fmt.Errorf("%w: read %s, then run 'tmem trust' to allow it (a dry run needs no trust)", err, ue.Path)
}
