// Package minilm turns text into sentence vectors on the device with
// all-MiniLM-L6-v2, for recall's semantic half.
//
// Data enters as a model folder (model.onnx, tokenizer.json, config.json and
// friends; see Pull, Install and DefaultModelDir) and as texts passed to
// Embed. It leaves as one L2-normalised float32 vector of length Dim per text,
// plus an Identity string that names the model files and this pipeline, so a
// caller knows when stored vectors must be rebuilt. A missing model is
// reported as ErrNoModel, which callers treat as "keyword recall only".
//
// # Pipeline
//
// Text is lowercased, NFD-normalised and stripped of combining marks, and CJK
// characters are split apart, as BERT uncased does; the pure-Go tokenizer
// skips these steps on its own and would turn "naïve café" into [UNK] [UNK].
// WordPiece then runs with the model's tokenizer.json. Input is cut at 256
// word pieces including [CLS] and [SEP] (MaxTokens): that is what
// sentence-transformers applies for this model (sentence_bert_config.json),
// while tokenizer.json's own truncation at 128 and its fixed padding to 128
// are overridden, so batches are padded only to their longest member. Token
// vectors are mean-pooled over the attention mask and L2-normalised.
//
// # Backends
//
// The default "go" backend is hugot's FeatureExtraction pipeline on its
// pure-Go backend: no cgo, nothing to install. Built with the ort tag
// (go build -tags ort), the "ort" backend runs the same tokenizer and pooling
// through ONNX Runtime (a libonnxruntime.so named by TMEM_ORT_LIB or found in
// the usual library folders); "auto" picks it when it is available. Both give
// the same vectors within 1e-4 and the same Identity.
//
// An Embedder is safe for concurrent use. The Go backend runs one batch at a
// time (gomlx spreads each matrix product over all cores); ORT runs one
// single-threaded session call per core. Texts are sorted by length before
// batching so a batch carries little padding.
//
// # Tests
//
// testdata/tiny is a small BERT-shaped model with seeded random weights made
// by testdata/genmodel.py, with the real tokenizer files. The same script
// computes reference vectors with its own WordPiece and a numpy forward pass;
// it needs /usr/bin/python3 with python3-onnx and python3-numpy; without
// them those tests skip, except under CI=true, where they fail (.ci/setup-embed
// installs them). The ort-tagged tests need TMEM_ORT_LIB the same way.
// Benchmarks generate a model of MiniLM's full shape (random weights) into
// $TMEM_TEST_MODEL_CACHE or the user cache folder, never into the repository.
package minilm
