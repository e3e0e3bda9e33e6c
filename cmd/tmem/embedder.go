package main

import "github.com/tmemhq/tmem/recall"

// openEmbedder returns the embedding model in modelDir, or nil for
// BM25-only recall. The MiniLM embedder (recall/minilm) plugs in here;
// until it does, every command runs BM25-only and says so once.
func openEmbedder(f *factory, modelDir string) (recall.Embedder, error) {
	_ = f
	_ = modelDir
	return nil, nil
}
