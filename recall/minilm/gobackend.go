package minilm

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"
)

// goRunner runs the model with hugot's FeatureExtraction pipeline on its
// pure-Go backend (mean pooling over the attention mask, L2 normalisation).
type goRunner struct {
	session  *hugot.Session
	pipeline *pipelines.FeatureExtractionPipeline
	// mu serialises runs: hugot's pipeline writes shared model state on each
	// call, and gomlx already spreads one run over all cores.
	mu sync.Mutex
}

// sequentialOps makes gomlx's pure-Go backend run a graph's ops one after
// another (each op still uses all cores). Its parallel op scheduler has a data
// race (go test -race shows it on every run) that could hand a buffer to two
// ops at once. hugot creates the backend by name, so the only place to set
// this is the backend registry; tmem is the only gomlx user in the process.
var sequentialOps = sync.OnceFunc(func() {
	backends.Register(simplego.BackendName, func(config string) (backends.Backend, error) {
		if config == "" {
			config = "ops_sequential"
		} else {
			config = "ops_sequential," + config
		}
		return simplego.New(config)
	})
})

func newGoRunner(dir string) (r *goRunner, err error) {
	sequentialOps()
	// hugot's loaders can panic on malformed files; report that as an error.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("load model: %v", p)
		}
	}()
	s, err := hugot.NewGoSession()
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	p, err := hugot.NewPipeline(s, hugot.FeatureExtractionConfig{
		ModelPath:    dir,
		OnnxFilename: "model.onnx",
		Name:         "minilm",
		Options:      []hugot.FeatureExtractionOption{pipelines.WithNormalization()},
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("load model: %w", err), s.Destroy())
	}
	if p.Model.Tokenizer == nil || p.Model.Tokenizer.GoTokenizer == nil {
		return nil, errors.Join(errors.New("load model: no Go tokenizer"), s.Destroy())
	}
	configureTokenizer(p.Model.Tokenizer.GoTokenizer.Tokenizer)
	p.Model.Tokenizer.MaxAllowedTokens = MaxTokens
	return &goRunner{session: s, pipeline: p}, nil
}

func (r *goRunner) embed(texts []string) (vecs [][]float32, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("run model: %v", p)
		}
	}()
	r.mu.Lock()
	defer r.mu.Unlock()
	out, err := r.pipeline.RunPipeline(texts)
	if err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	return out.Embeddings, nil
}

func (r *goRunner) close() error {
	return r.session.Destroy()
}
