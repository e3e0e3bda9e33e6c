package main

import (
	"errors"

	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/minilm"
)

// openEmbedder opens the MiniLM model from --model, $TMEM_MODEL or the user
// cache folder, with the backend from $TMEM_BACKEND (auto, go or ort). No
// installed model is a normal state: it returns nil and recall runs
// BM25-only, saying so once.
func openEmbedder(f *factory, flag string) (recall.Embedder, error) {
	dir, err := f.modelDir(flag)
	if err != nil {
		return nil, nil // no cache folder to look in: nothing installed
	}
	e, err := minilm.Open(minilm.Options{ModelDir: dir, Backend: f.getenv("TMEM_BACKEND"), Getenv: f.getenv})
	if errors.Is(err, minilm.ErrNoModel) {
		if flag != "" {
			return nil, err // a model named explicitly must be there
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}
