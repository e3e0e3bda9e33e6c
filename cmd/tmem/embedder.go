package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/minilm"
)

// quietKlog silences klog, which gomlx logs through (once per process,
// that its AVX-512 matrix kernel is experimental): stderr is for tmem's
// own messages. It is done as a model opens, not at start: setting klog's
// logger costs a per-task call several milliseconds.
var quietKlog sync.Once

func silenceKlog() { quietKlog.Do(func() { klog.SetLogger(logr.Discard()) }) }

// openEmbedder finds the MiniLM model in --model, $TMEM_MODEL or the user
// cache folder and returns it unopened: the model is loaded, with the
// backend from $TMEM_BACKEND (auto, go or ort), on the first text to
// embed, so syncs that find nothing changed and BM25-only searches never
// pay for it. No installed model is a normal state: it returns nil and
// recall runs BM25-only, saying so once. A model named with --model must
// be there and readable; any other that is not (an unreadable folder, say,
// when HOME points at another user's home) gives BM25-only recall with a
// warning. w says what the command embeds (see minilm.Workload).
func openEmbedder(f *factory, flag string, w minilm.Workload) (recall.Embedder, error) {
	dir, err := f.modelDir(flag)
	if err != nil {
		return nil, nil // no cache folder to look in: nothing installed
	}
	id, prev, err := minilm.Identities(dir)
	switch {
	case err == nil:
		return recall.NewLazyEmbedder(id, func(ctx context.Context) (recall.Embedder, error) {
			// Opening may run beside the other stages (see recall's PrepareQuery).
			defer f.stages.aside(stageModel)()
			silenceKlog()
			e, err := minilm.Open(minilm.Options{ModelDir: dir, Backend: f.getenv("TMEM_BACKEND"), Workload: w, Getenv: f.getenv,
				Trace: f.stages.aside}) // the phase names are stage names
			if err != nil {
				return nil, fmt.Errorf("the embedding model in %s: %w", dir, err)
			}
			if why := e.Fallback(); why != "" {
				f.warnf("embedding on the slow pure-Go backend: %s; 'tmem model pull' installs ONNX Runtime in %s, or set TMEM_ORT_LIB (TMEM_BACKEND=go silences this)",
					why, filepath.Join(dir, minilm.RuntimeDirName))
			}
			return e, nil
		}).Succeeding(prev, minilm.DiffersFromPrevious), nil
	case flag != "":
		return nil, err
	case !errors.Is(err, minilm.ErrNoModel):
		f.warnf("the embedding model in %s cannot be used, recall is BM25-only: %v", dir, err)
	}
	return nil, nil
}
