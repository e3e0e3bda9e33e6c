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
// characters are split apart, as BERT uncased does; tokenizer.json leaves
// the accents on and would turn "naïve café" into [UNK] [UNK]. WordPiece
// then runs as the model's tokenizer.json describes it (internal/wordpiece,
// which gives the ids of the github.com/sugarme/tokenizer the package used
// before; all-MiniLM-L6-v2's tokenizer.json, known by its sha256, is
// compiled into the binary, any other is read in 10-30 ms). Input is cut at 256
// word pieces including [CLS] and [SEP] (MaxTokens): that is what
// sentence-transformers applies for this model (sentence_bert_config.json),
// while tokenizer.json's own truncation at 128 and its fixed padding to 128
// are overridden, so batches are padded only to their longest member. Token
// vectors are mean-pooled over the attention mask and L2-normalised.
//
// # Backends
//
// The "ort" backend runs the model with ONNX Runtime, loaded at run time
// from its shared library (internal/onnxrt calls its C API through purego,
// so the binary needs no cgo). FindRuntime looks for the library, first
// found wins: Options.ORTLib, $TMEM_ORT_LIB, the onnxruntime folder inside
// the model folder, the usual system library folders. The "go" backend runs
// the same ONNX graph with gomlx's pure-Go backend (through onnx-gomlx, as
// hugot does): nothing to install, many times slower. Built with
// GOEXPERIMENT=simd, gomlx has AVX-512 kernels, and on a CPU with AVX-512
// the backend runs every matrix product on gomlx's packed kernel, dense
// products reshaped to two axes so that it takes them; gomlx notes once per
// process, through klog, that this kernel is experimental (the tmem command
// discards klog's output). In every build, x to the power 2 (layer norm's
// square) runs as x·x, with the same values. Both backends share the
// tokenizer and the pooling. "auto", the default, takes ONNX Runtime when
// the library is found and loads, else pure Go, and Fallback says why. Both
// give the same vectors within 1e-4 and the same Identity. An int8 model
// (see Manifest.Variant) runs on ONNX Runtime only.
//
// PullRuntime installs the ONNX Runtime library from its pinned release
// archive into the model folder, where FindRuntime looks.
//
// Info checks a model folder against its pinned sums; Check reports the
// folder's state as doctor findings, and Probe says which backend runs it.
//
// ONNX Runtime optimises the graph each time it creates a session; the
// result is cached in the model folder (.tmem-ort-cache), one folder per
// key (the cache format, the model's sha256, the runtime's version and the
// platform) holding the optimised graph with its weights in the runtime's
// own format (ORT format), which a session runs from a mapping of the file
// (no parsing into a copy, the weights used in place), and a manifest
// written last with the file's size, sha256 and stat stamp. A session start
// trusts an unchanged stamp and hashes only when it moved; an entry that
// does not match (or that the runtime refuses) is removed and rebuilt, and
// VerifyORTCache hashes every entry in full.
//
// Options.Workload picks how an ORT session starts: WorkloadBulk repacks the
// weights for the fastest kernels (about half a second on the full model),
// WorkloadQueries uses the mapped weights as they are and starts in about a
// tenth of a second, each text somewhat slower. Vectors are the same.
//
// An Embedder is safe for concurrent use. The Go backend runs one batch at a
// time (gomlx spreads each op over all cores); ORT runs one
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
// installs them). The ONNX Runtime tests need TMEM_ORT_LIB the same way.
// Benchmarks generate a model of MiniLM's full shape (random weights) into
// $TMEM_TEST_MODEL_CACHE or the user cache folder, never into the repository.
package minilm
