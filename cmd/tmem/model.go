package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tmemhq/tmem/recall/minilm"
)

type modelOptions struct {
	from    string
	backend string
	baseURL string
}

// modelDir resolves --model, else $TMEM_MODEL, else the user cache folder.
func (f *factory) modelDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	return minilm.DefaultModelDir(f.getenv)
}

func newModelCmd(f *factory) *cobra.Command {
	opts := &modelOptions{}
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Install and inspect the embedding model (all-MiniLM-L6-v2)",
		Long: `Recall ranks with BM25 alone until an embedding model is installed. The
model lives in --model DIR, else $TMEM_MODEL, else the user cache folder
(~/.cache/tmem/models/all-MiniLM-L6-v2). Every file is checked against
pinned sha256 sums.`,
	}

	pull := &cobra.Command{
		Use:   "pull [--from DIR]",
		Short: "Download (or copy with --from) the pinned model and verify it",
		Long: `Download the pinned revision of sentence-transformers/all-MiniLM-L6-v2:
model.onnx, tokenizer.json, config.json and the other tokenizer files. A
partial download resumes; a file whose size or sha256 does not match its pin
is refused and removed. --from DIR installs from a local folder with the same
checks (for machines without network access).`,
		Example: `  tmem model pull
  tmem model pull --from /mnt/usb/all-MiniLM-L6-v2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := f.modelDir(f.model)
			if err != nil {
				return err
			}
			if opts.baseURL == "" {
				opts.baseURL = f.getenv("TMEM_MODEL_BASE_URL")
			}
			if opts.from != "" {
				if err := minilm.Install(opts.from, dir); err != nil {
					return err
				}
			} else if err := minilm.Pull(cmd.Context(), minilm.PullOptions{Dir: dir, BaseURL: opts.baseURL, Progress: f.progressWriter()}); err != nil {
				return pullHint(err)
			}
			if f.json {
				info, err := minilm.Info(dir)
				if err != nil {
					return err
				}
				return f.printJSON(info)
			}
			f.infof("model installed in %s", dir)
			return nil
		},
	}
	pull.Flags().StringVar(&opts.from, "from", "", "install from this local folder instead of downloading")
	pull.Flags().StringVar(&opts.baseURL, "base-url", "", "model hub or mirror to download from (default: $TMEM_MODEL_BASE_URL, else "+minilm.DefaultBaseURL+")")

	info := &cobra.Command{
		Use:   "info",
		Short: "Show the installed model, its checksums and the backend that runs it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := f.modelDir(f.model)
			if err != nil {
				return err
			}
			mi, err := minilm.Info(dir)
			if err != nil {
				return err
			}
			bi := probeBackend(f, dir, mi, opts.backend)
			if f.json {
				return f.printJSON(struct {
					minilm.ModelInfo
					backendInfo
				}{mi, bi})
			}
			fmt.Fprintf(f.stdout, "model:    %s@%s\nfolder:   %s\ncomplete: %v\nbackend:  %s\nidentity: %s\n",
				mi.Repo, mi.Revision, mi.Dir, mi.Complete, bi.line(), dash(mi.Identity))
			tw := tabwriter.NewWriter(f.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "file\tstatus\tsha256")
			for _, fs := range mi.Files {
				status := "ok"
				switch {
				case !fs.Present:
					status = "missing"
				case !fs.OK:
					status = fmt.Sprintf("MISMATCH (%d bytes)", fs.GotSize)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", fs.Name, status, dash(fs.GotSHA256))
			}
			return tw.Flush()
		},
	}
	info.Flags().StringVar(&opts.backend, "backend", "auto", "auto, go or ort")
	cmd.AddCommand(pull, info)
	return cmd
}

// pullHint says what to do when a download fails.
func pullHint(err error) error {
	switch {
	case errors.Is(err, minilm.ErrDownload):
		return hintedError{err, "without network access, copy the model folder from a machine that has it and run 'tmem model pull --from DIR'; or download from a mirror with --base-url URL (or $TMEM_MODEL_BASE_URL)"}
	case errors.Is(err, minilm.ErrWrongFile):
		return hintedError{err, "the server does not have the pinned files: check --base-url (or $TMEM_MODEL_BASE_URL), or install a verified copy with 'tmem model pull --from DIR'"}
	}
	return err
}

// progressWriter is stderr on a terminal unless --quiet or --json, else
// nothing: progress never reaches cron mail or JSON consumers.
func (f *factory) progressWriter() io.Writer {
	if f.quiet || f.json {
		return nil
	}
	if fd, ok := f.stderr.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(fd.Fd())) {
		return f.stderr
	}
	if f.verbose {
		return f.stderr
	}
	return nil
}

// backendInfo says which backend embeds and why.
type backendInfo struct {
	Backend string `json:"backend"`
	// Runtime names the ONNX Runtime version and library for "ort".
	Runtime string `json:"runtime,omitempty"`
	// Fallback says why "go" runs instead of ONNX Runtime.
	Fallback string `json:"fallback,omitempty"`
}

// probeBackend opens the model with the asked-for backend to see which runs.
func probeBackend(f *factory, dir string, mi minilm.ModelInfo, backend string) backendInfo {
	if !mi.Complete && mi.Identity == "" {
		return backendInfo{Backend: "none (model not installed: run 'tmem model pull')"}
	}
	e, err := minilm.Open(minilm.Options{ModelDir: dir, Backend: backend, Getenv: f.getenv})
	if err != nil {
		return backendInfo{Backend: "unavailable: " + err.Error()}
	}
	defer e.Close()
	return backendInfo{Backend: e.Backend(), Runtime: e.Runtime(), Fallback: e.Fallback()}
}

// line is the backend as one line of text.
func (b backendInfo) line() string {
	switch {
	case b.Runtime != "":
		return b.Backend + ", " + b.Runtime
	case b.Fallback != "":
		return b.Backend + " (pure Go: " + b.Fallback + ")"
	}
	return b.Backend
}
