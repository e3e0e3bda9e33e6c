package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tmemhq/tmem/cmd/internal/serve"
	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/minilm"
)

type serveOptions struct {
	teammate    string
	lead        bool
	http        string
	allowRemote bool
}

func newServeCmd(f *factory) *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [--teammate NAME [--lead]] [--http ADDR [--allow-remote]]",
		Short: "Serve memory to agents over MCP (stdio, or streamable HTTP)",
		Long: `Serve the workspace's memory as Model Context Protocol tools, keeping the
recall index and the embedding model open between calls: memory_context,
memory_search, memory_get, memory_log, memory_remember, memory_list and
memory_compact_plan. By default it speaks MCP on stdin and stdout (an agent
CLI spawns it once per session); --http ADDR serves streamable HTTP at
http://ADDR/mcp instead.

--teammate binds the session to one teammate: it writes only that
teammate's memory and reads its own memory and CROSS-TEAM.md. A lead
(--lead, or "lead: true" in the teammate's SOUL.md frontmatter) reads every
teammate. Without --teammate every teammate is served.

--http listens on loopback only (127.0.0.1, ::1, localhost) unless
--allow-remote, which requires a bearer token in TMEM_TOKEN; with TMEM_TOKEN
set, every request must carry "Authorization: Bearer $TMEM_TOKEN". Requests
with a foreign Host or Origin are refused.

File changes made by anyone (an editor, git pull, tmem log, compaction) are
seen on the next call. At the end of stdin every request read is answered
before tmem exits 0; SIGTERM or SIGINT finish the writes under way and exit 0.
A line on stdin that is not a JSON-RPC message is answered with an error.`,
		Example: `  tmem serve --teammate beacon
  tmem serve --http 127.0.0.1:8765
  TMEM_TOKEN=$(openssl rand -hex 32) tmem serve --http 0.0.0.0:8765 --allow-remote`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := notEmpty(cmd, "teammate", "http"); err != nil {
				return err
			}
			if opts.lead && opts.teammate == "" {
				return usageErrorf("--lead goes with --teammate")
			}
			if opts.allowRemote && opts.http == "" {
				return usageErrorf("--allow-remote goes with --http")
			}
			f.perTaskGC()
			ctx, stop := signal.NotifyContext(background(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return f.serve(ctx, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.teammate, "teammate", "", "bind the session to this teammate")
	fl.BoolVar(&opts.lead, "lead", false, "let the bound teammate read every teammate's memory")
	fl.StringVar(&opts.http, "http", "", "serve streamable HTTP on this host:port instead of stdio")
	fl.BoolVar(&opts.allowRemote, "allow-remote", false, "allow a non-loopback --http address (needs TMEM_TOKEN)")
	return cmd
}

func (f *factory) serve(ctx context.Context, opts *serveOptions) error {
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	if opts.teammate != "" {
		if _, err := f.teammate(ws, opts.teammate); err != nil {
			return err
		}
	}
	clock, err := f.Clock()
	if err != nil {
		return err
	}
	// An address that cannot be served is refused before the index and
	// the model open.
	ln, err := f.listen(opts)
	if err != nil {
		return err
	}
	if ln != nil {
		defer ln.Close()
	}
	iopts, err := f.indexOptions(f.model, minilm.WorkloadBulk, nil)
	if err != nil {
		return err
	}
	iopts.SyncLeavesBacklog = true // the background embedder sees to it
	iopts.FileClock = time.Now     // keep the files hits come from between calls
	ix, err := recall.Open(ws, iopts)
	if err != nil {
		return err
	}
	defer ix.Close()
	svc, err := serve.New(serve.Options{
		Workspace: ws, Index: ix, Now: clock, Teammate: opts.teammate, Lead: opts.lead,
		FileClock: time.Now, Warn: func(msg string) { f.warnf("%s", msg) }, Version: version(),
		IndexWait: f.lockWait,
	})
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.Watch(); err != nil {
		f.warnf("serve: %v; every search checks the files instead", err)
	}
	svc.EmbedInBackground()
	svc.Warm(ctx)
	if ln == nil {
		return svc.ServeStdio(ctx, f.stdin, f.stdout)
	}
	token := f.getenv("TMEM_TOKEN")
	if token == "" {
		f.warnf("no TMEM_TOKEN: every program and user on this machine can read and write this memory through http://%s%s; set TMEM_TOKEN to require it as a bearer token on every request", ln.Addr(), serve.HTTPPath)
	}
	if !f.quiet {
		fmt.Fprintf(f.stderr, "tmem: serving MCP on http://%s%s\n", ln.Addr(), serve.HTTPPath)
	}
	return svc.RunHTTP(ctx, ln, token)
}

// listen opens the --http address, checked as ListenHTTP checks it; nil
// when serving stdio.
func (f *factory) listen(opts *serveOptions) (net.Listener, error) {
	if opts.http == "" {
		return nil, nil
	}
	ln, err := serve.ListenHTTP(serve.HTTPOptions{Addr: opts.http, AllowRemote: opts.allowRemote, Token: f.getenv("TMEM_TOKEN")})
	if err != nil {
		return nil, usageError{err}
	}
	return ln, nil
}
