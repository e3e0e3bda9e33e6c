package minilm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm/internal/onnxrt"
	"github.com/tmemhq/tmem/recall/minilm/internal/wordpiece"
)

// ortInputs are the BERT export's inputs, in the order embed passes them.
var ortInputs = []string{"input_ids", "attention_mask", "token_type_ids"}

// ortRunner runs the model with ONNX Runtime, with the same tokenizer and
// pooling as the Go backend.
type ortRunner struct {
	session *onnxrt.Session
	tk      *wordpiece.Tokenizer
	dim     int
	// cached says the session was loaded from the optimised-graph cache.
	cached bool
}

// newORTRunner starts the session for the model file in o.ModelDir; tk
// waits for the tokenizer, which loads meanwhile (see loadTokenizerAsync).
func newORTRunner(o Options, model string, rt *onnxrt.Runtime, opts onnxrt.SessionOptions, tk func() (*wordpiece.Tokenizer, error)) (runner, error) {
	cfg, err := readConfig(o.ModelDir)
	if err != nil {
		return nil, err
	}
	end := o.trace("session")
	s, cached, err := openCachedSession(o.ModelDir, model, rt, opts)
	end()
	if err != nil {
		return nil, err
	}
	r := &ortRunner{session: s, dim: cfg.HiddenSize, cached: cached}
	end = o.trace("tokenizer")
	r.tk, err = tk()
	end()
	if err != nil {
		s.Close()
		return nil, err
	}
	return r, nil
}

// loadTokenizerAsync starts loading dir's tokenizer and returns the function
// that waits for it. The compiled tokenizer takes no time; reading another
// tokenizer.json takes 10-30 ms, which another core can spend while this
// one loads ONNX Runtime.
func loadTokenizerAsync(dir string) func() (*wordpiece.Tokenizer, error) {
	var tk *wordpiece.Tokenizer
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk, err = loadTokenizer(dir)
	}()
	return func() (*wordpiece.Tokenizer, error) {
		<-done
		return tk, err
	}
}

func (r *ortRunner) embed(texts []string) ([][]float32, error) {
	b := encodeBatch(r.tk, texts, 1)
	hidden := make([]float32, b.n*b.seq*r.dim)
	shape := []int64{int64(b.n), int64(b.seq)}
	outShape := []int64{int64(b.n), int64(b.seq), int64(r.dim)}
	if err := r.session.Run(shape, [][]int64{b.ids, b.mask, b.types}, outShape, hidden); err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	return b.pool(hidden, r.dim), nil
}

func (r *ortRunner) close() error {
	return r.session.Close()
}

// loadORT loads the runtime library, or says why it cannot.
func loadORT(lib string) (*onnxrt.Runtime, error) {
	if lib == "" {
		return nil, errors.New("no ONNX Runtime library found ($TMEM_ORT_LIB unset, none in the model folder's " + RuntimeDirName + " folder or the system library folders)")
	}
	// The loader would block on a named pipe as any reader does; what is
	// missing or no library at all, it says itself.
	if fi, err := os.Stat(lib); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("load onnx runtime %s: %w", lib, layout.ErrNotRegular)
	}
	return onnxrt.Load(lib)
}

// modelPath is the fp32 model file in a model folder.
func modelPath(dir string) string { return filepath.Join(dir, fp32Model) }
