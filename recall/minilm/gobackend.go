package minilm

import (
	"errors"
	"fmt"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"
)

// goRunner runs the model with hugot's FeatureExtraction pipeline on its
// pure-Go backend (mean pooling over the attention mask, L2 normalisation).
type goRunner struct {
	session  *hugot.Session
	pipeline *pipelines.FeatureExtractionPipeline
}

func newGoRunner(dir string) (r *goRunner, err error) {
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
	out, err := r.pipeline.RunPipeline(texts)
	if err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	return out.Embeddings, nil
}

func (r *goRunner) close() error {
	return r.session.Destroy()
}
