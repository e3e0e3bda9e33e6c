package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tmemhq/tmem/recall/minilm"
)

type modelOptions struct {
	from           string
	backend        string
	baseURL        string
	noRuntime      bool
	runtimeBaseURL string
	variant        string
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
	cmd.AddCommand(newModelPullCmd(f, opts), newModelInfoCmd(f, opts))
	return cmd
}

func newModelPullCmd(f *factory, opts *modelOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pull [--from DIR] [--no-runtime] [--variant fp32|int8]",
		Short: "Download (or copy with --from) the pinned model and ONNX Runtime, and verify them",
		Long: `Download the pinned revision of sentence-transformers/all-MiniLM-L6-v2:
model.onnx, tokenizer.json, config.json and the other tokenizer files. A
partial download resumes; a file whose size or sha256 does not match its pin
is refused and removed. --from DIR installs from a local folder with the same
checks (for machines without network access).

Then, where a release archive is pinned for the platform (Linux x86-64 and
arm64), it installs the ONNX Runtime library into the model folder's
onnxruntime/ folder, where the fast backend finds it: the archive is checked
against its pinned sha256 and only the library is kept. --no-runtime skips
this; --from never downloads it (copy DIR/onnxruntime along, or set
TMEM_ORT_LIB).

--variant int8 installs upstream's int8 export for this CPU instead of
model.onnx (the AVX-512 VNNI build where the CPU has it, else the AVX2
build): faster on ONNX Runtime, which alone can run it. Its vectors differ
from fp32's, so indexes embed again; 'tmem model pull' goes back to fp32.`,
		Example: `  tmem model pull
  tmem model pull --no-runtime
  tmem model pull --variant int8
  tmem model pull --from /mnt/usb/all-MiniLM-L6-v2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runModelPull(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.from, "from", "", "install from this local folder instead of downloading")
	fl.StringVar(&opts.baseURL, "base-url", "", "model hub or mirror to download from (default: $TMEM_MODEL_BASE_URL, else "+minilm.DefaultBaseURL+")")
	fl.BoolVar(&opts.noRuntime, "no-runtime", false, "do not install the ONNX Runtime library")
	fl.StringVar(&opts.variant, "variant", minilm.VariantFP32, "fp32, or int8 (the export for this CPU's AVX-512 VNNI or AVX2; ONNX Runtime only)")
	fl.StringVar(&opts.runtimeBaseURL, "runtime-base-url", "", "ONNX Runtime release downloads or a mirror (default: $TMEM_ORT_BASE_URL, else "+minilm.DefaultRuntimeBaseURL+")")
	return cmd
}

func newModelInfoCmd(f *factory, opts *modelOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Show the installed model, its checksums and the backend that runs it",
		Long: `Show the installed model: each file against its pinned sha256, the ONNX
Runtime library 'tmem model pull' installed, and the backend that runs. It
also hashes the optimised-graph cache (.tmem-ort-cache in the model folder)
in full, which a process start does only when a file's stat data moved, and
removes entries that fail; the next start rebuilds them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := f.modelDir(f.model)
			if err != nil {
				return err
			}
			return printModelInfo(f, dir, opts.backend)
		},
	}
	cmd.Flags().StringVar(&opts.backend, "backend", "auto", "auto, go or ort")
	return cmd
}

// runModelPull installs the model, then the runtime library unless told not
// to or none is pinned for the platform.
func runModelPull(ctx context.Context, f *factory, opts *modelOptions) error {
	dir, err := f.modelDir(f.model)
	if err != nil {
		return err
	}
	if opts.baseURL == "" {
		opts.baseURL = f.getenv("TMEM_MODEL_BASE_URL")
	}
	if opts.runtimeBaseURL == "" {
		opts.runtimeBaseURL = f.getenv("TMEM_ORT_BASE_URL")
	}
	if opts.from != "" {
		if err := minilm.Install(opts.from, dir, opts.variant); err != nil {
			return err
		}
	} else if err := minilm.Pull(ctx, minilm.PullOptions{Dir: dir, BaseURL: opts.baseURL, Progress: f.progressWriter(), Variant: opts.variant}); err != nil {
		return pullHint(err)
	}
	f.infof("model installed in %s", dir)
	if !opts.noRuntime && opts.from == "" {
		if err := f.pullRuntime(ctx, dir, opts.runtimeBaseURL); err != nil {
			return err
		}
	}
	if f.json {
		return printModelInfo(f, dir, minilm.BackendAuto)
	}
	return nil
}

// pullRuntime installs the ONNX Runtime library pinned for the platform
// into the model folder dir; without a pin, or a loader, it says that
// embedding runs on pure Go.
func (f *factory) pullRuntime(ctx context.Context, dir, baseURL string) error {
	if !minilm.CanLoadRuntime {
		f.warnf("ONNX Runtime is not installed: %v", minilm.ErrCannotLoadRuntime)
		return nil
	}
	st, err := minilm.PullRuntime(ctx, minilm.RuntimePullOptions{Dir: dir, BaseURL: baseURL, Progress: f.progressWriter()})
	switch {
	case errors.Is(err, minilm.ErrNoRuntimePin):
		f.warnf("%v; until then embedding runs on the slower pure-Go backend", err)
	case err != nil:
		return runtimeHint(err)
	default:
		f.infof("onnx runtime %s installed in %s", st.Version, filepath.Join(dir, minilm.RuntimeDirName))
	}
	return nil
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

// runtimeHint says what to do when the runtime cannot be installed.
func runtimeHint(err error) error {
	return hintedError{err, "the model is installed and works on the slower pure-Go backend; retry to resume, download from a mirror with --runtime-base-url URL (or $TMEM_ORT_BASE_URL), or skip the runtime with --no-runtime"}
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

// printModelInfo prints the model folder's files, the runtime library that
// 'tmem model pull' installed, the state of the optimised-graph cache (fully
// checked, damaged entries removed) and the backend that runs.
func printModelInfo(f *factory, dir, backend string) error {
	mi, err := minilm.Info(dir)
	if err != nil {
		return err
	}
	ri, err := minilm.InstalledRuntime(dir)
	if err != nil {
		return err
	}
	cc, err := minilm.VerifyORTCache(dir)
	if err != nil {
		return err
	}
	silenceKlog()
	bi := minilm.Probe(dir, mi, backend, f.getenv)
	if f.json {
		var installed *minilm.RuntimeInfo // null when none
		if ri.Installed {
			installed = &ri
		}
		return f.printJSON(struct {
			minilm.ModelInfo
			minilm.BackendInfo
			Installed *minilm.RuntimeInfo `json:"installed_runtime"`
			ORTCache  minilm.CacheCheck   `json:"ort_cache"`
		}{mi, bi, installed, cc})
	}
	fmt.Fprintf(f.stdout, "model:    %s@%s %s\nfolder:   %s\ncomplete: %v\nruntime:  %s\nbackend:  %s\nidentity: %s\n",
		mi.Repo, mi.Revision, mi.Model, mi.Dir, mi.Complete, runtimeLine(ri), bi, dash(mi.Identity))
	for _, why := range cc.Removed {
		fmt.Fprintf(f.stdout, "ort cache: removed a damaged entry (rebuilt on the next start): %s\n", why)
	}
	return writeModelFiles(f.stdout, mi.Files)
}

// writeModelFiles prints a table of the model's files against their pins.
func writeModelFiles(w io.Writer, files []minilm.FileStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tstatus\tsha256")
	for _, fs := range files {
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
}

// runtimeLine says what runtime library 'tmem model pull' installed.
func runtimeLine(ri minilm.RuntimeInfo) string {
	switch {
	case !ri.Installed:
		return "none installed by 'tmem model pull'"
	case !ri.OK:
		return fmt.Sprintf("%s CHANGED since it was installed from %s (run 'tmem model pull')", ri.Path, ri.Name)
	}
	return fmt.Sprintf("onnx runtime %s from %s, %s", ri.Version, ri.Name, ri.Path)
}
