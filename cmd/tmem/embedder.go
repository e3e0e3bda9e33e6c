package main

import (
	"errors"
	"path/filepath"

	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/minilm"
)

// openEmbedder opens the MiniLM model from --model, $TMEM_MODEL or the user
// cache folder, with the backend from $TMEM_BACKEND (auto, go or ort). No
// installed model is a normal state: it returns nil and recall runs
// BM25-only, saying so once. A model named with --model must load; any
// other that does not (an unreadable folder, say, when HOME points at
// another user's home) gives BM25-only recall with a warning.
func openEmbedder(f *factory, flag string) (recall.Embedder, error) {
	dir, err := f.modelDir(flag)
	if err != nil {
		return nil, nil // no cache folder to look in: nothing installed
	}
	e, err := minilm.Open(minilm.Options{ModelDir: dir, Backend: f.getenv("TMEM_BACKEND"), Getenv: f.getenv})
	switch {
	case err == nil:
		if why := e.Fallback(); why != "" {
			f.warnf("embedding on the slow pure-Go backend: %s; put libonnxruntime in %s or set TMEM_ORT_LIB (TMEM_BACKEND=go silences this)",
				why, filepath.Join(dir, minilm.RuntimeDirName))
		}
		return e, nil
	case flag != "":
		return nil, err
	case !errors.Is(err, minilm.ErrNoModel):
		f.warnf("the embedding model in %s cannot be used, recall is BM25-only: %v", dir, err)
	}
	return nil, nil
}
