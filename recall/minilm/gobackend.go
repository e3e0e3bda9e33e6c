package minilm

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // registers the pure-Go backend
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/onnx-gomlx/onnx"
	"github.com/gomlx/onnx-gomlx/onnx/parser"

	"github.com/tmemhq/tmem/recall/minilm/internal/wordpiece"
)

// goSeqPad rounds each batch's length up to a multiple of this, so that
// gomlx compiles one graph per (batch size, padded length) and their number
// stays bounded: lengths up to MaxTokens, batch sizes up to goMaxBatch.
const goSeqPad = 16

// goMaxBatch bounds the batch sizes the Go backend compiles graphs for.
const goMaxBatch = 32

// goRunner runs the model's ONNX graph with gomlx's pure-Go backend (through
// onnx-gomlx), with the same tokenizer and pooling as the ONNX Runtime
// backend.
type goRunner struct {
	tk      *wordpiece.Tokenizer
	dim     int
	model   onnx.Model
	backend backends.Backend
	ctx     *mlctx.Context
	exec    *mlctx.Exec
	// mu serialises runs: gomlx already spreads one run over all cores.
	mu sync.Mutex
}

// goConfig is how the pure-Go backend runs: gomlx's backend name and
// options, which of rewriteBackend's rewrites are on (dense products
// flattened to two axes, fused chains, attention split in parts), and the
// Embedder's default batch size. defaultGoConfig picks it for the build and
// the CPU.
type goConfig struct {
	options   string
	flatDense bool
	fuse      bool
	split     int // parts attention runs in, usually one per core; below 2, whole
	batch     int
	// wrap, when set, wraps gomlx's backend under the rewrites: tests see
	// what gomlx receives.
	wrap func(backends.Backend) backends.Backend
}

// goSplitMin is the number of elements of a batched product's result from
// which attention is split: with 12 heads, the scores of 4 texts of 80
// pieces or 1 of 160 and up. Sentences' attention (4 texts of up to 64
// pieces) stays whole: its softmax is small, and split, sentences measured
// within ±5% of whole on an idle machine and on a busy one alike.
const goSplitMin = 1 << 18

// newGoRunner loads the model in dir on gomlx's backend set up as cfg
// (defaultGoConfig unless a benchmark compares options).
func newGoRunner(dir string, cfg goConfig) (r *goRunner, err error) {
	// The ONNX importer can panic on malformed files; report that as an error.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("load model: %v", p)
		}
	}()
	mc, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	tk, err := loadTokenizer(dir)
	if err != nil {
		return nil, err
	}
	m, err := parser.ParseFile(modelPath(dir))
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	r = &goRunner{tk: tk, dim: mc.HiddenSize, model: m}
	if err := r.build(cfg); err != nil {
		return nil, errors.Join(fmt.Errorf("load model: %w", err), r.close())
	}
	return r, nil
}

// build loads the weights and sets up the executor that compiles the graph
// for each input shape.
func (r *goRunner) build(cfg goConfig) error {
	names, _ := r.model.Inputs()
	for _, name := range names {
		if !slices.Contains(ortInputs, name) {
			return fmt.Errorf("the model takes input %q; a BERT export takes %v", name, ortInputs)
		}
	}
	r.ctx = mlctx.New().Reuse()
	if err := r.model.VariablesToContext(r.ctx); err != nil {
		return err
	}
	b, err := backends.NewWithConfig(cfg.options)
	if err != nil {
		return err
	}
	scalars, err := scalarValues(r.ctx)
	if err != nil {
		b.Finalize()
		return err
	}
	r.backend = b
	if cfg.wrap != nil {
		b = cfg.wrap(b)
	}
	b = &rewriteBackend{Backend: b, flatDense: cfg.flatDense, fuse: cfg.fuse, split: cfg.split, splitMin: goSplitMin, scalars: scalars}
	exec, err := mlctx.NewExec(b, r.ctx, func(ctx *mlctx.Context, ids, mask, types *graph.Node) *graph.Node {
		all := map[string]*graph.Node{"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
		in := make(map[string]*graph.Node, len(names))
		for _, name := range names {
			in[name] = all[name]
		}
		return r.model.CallGraph(ctx, ids.Graph(), in, "last_hidden_state")[0]
	})
	if err != nil {
		return err
	}
	r.exec = exec.SetMaxCache(goMaxBatch * (MaxTokens/goSeqPad + 1))
	return nil
}

// scalarValues maps the graph parameter names of ctx's float32 scalar
// variables to their values, for rewriteBackend.
func scalarValues(ctx *mlctx.Context) (map[string]float32, error) {
	scalars := map[string]float32{}
	for v := range ctx.IterVariables() {
		if !v.Shape().IsScalar() || v.Shape().DType != dtypes.Float32 {
			continue
		}
		t, err := v.Value()
		if err != nil {
			return nil, err
		}
		if x, ok := t.Value().(float32); ok {
			scalars[v.ParameterName()] = x
		}
	}
	return scalars, nil
}

func (r *goRunner) embed(texts []string) (vecs [][]float32, err error) {
	if len(texts) > goMaxBatch {
		return nil, fmt.Errorf("run model: batch of %d texts, at most %d", len(texts), goMaxBatch)
	}
	b := encodeBatch(r.tk, texts, goSeqPad)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("run model: %v", p)
		}
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	out, err := r.exec.Exec(
		tensors.FromFlatDataAndDimensions(b.ids, b.n, b.seq),
		tensors.FromFlatDataAndDimensions(b.mask, b.n, b.seq),
		tensors.FromFlatDataAndDimensions(b.types, b.n, b.seq))
	if err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	defer func() {
		for _, t := range out {
			err = errors.Join(err, t.FinalizeAll())
		}
	}()
	if len(out) != 1 {
		return nil, fmt.Errorf("run model: %d outputs, want 1", len(out))
	}
	if err := tensors.ConstFlatData(out[0], func(hidden []float32) {
		if len(hidden) == b.n*b.seq*r.dim {
			vecs = b.pool(hidden, r.dim)
		}
	}); err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	if vecs == nil {
		return nil, fmt.Errorf("run model: output shape %v, want [%d %d %d]", out[0].Shape(), b.n, b.seq, r.dim)
	}
	return vecs, nil
}

func (r *goRunner) close() error {
	if r.exec != nil {
		r.exec.Finalize()
	}
	if r.ctx != nil {
		r.ctx.Finalize()
	}
	if r.backend != nil {
		r.backend.Finalize()
	}
	return r.model.Close()
}
