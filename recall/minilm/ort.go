//go:build ort

package minilm

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/sugarme/tokenizer"
	ort "github.com/yalue/onnxruntime_go"
)

// ortAvailable reports whether this binary was built with the ort tag.
const ortAvailable = true

// The ONNX Runtime environment is process-wide: it is set up once, with the
// first library path asked for, and kept for the life of the process.
var (
	ortOnce sync.Once
	ortLib  string
	ortErr  error
)

func initORT(lib string) error {
	ortOnce.Do(func() {
		ortLib = lib
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(); err != nil {
			ortErr = fmt.Errorf("load onnx runtime %s: %w", lib, err)
		}
	})
	if ortErr != nil {
		return ortErr
	}
	if lib != ortLib {
		return fmt.Errorf("onnx runtime already loaded from %s, cannot also load %s", ortLib, lib)
	}
	return nil
}

// ortRunner runs the model with ONNX Runtime, with the same tokenizer and
// pooling as the Go backend.
type ortRunner struct {
	session *ort.DynamicAdvancedSession
	tkMu    sync.Mutex
	tk      *tokenizer.Tokenizer
	dim     int
}

func newORTRunner(dir, lib string, threads int) (runner, error) {
	if err := initORT(lib); err != nil {
		return nil, err
	}
	cfg, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	tk, err := loadTokenizer(dir)
	if err != nil {
		return nil, err
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(threads); err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	s, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, "model.onnx"),
		[]string{"input_ids", "attention_mask", "token_type_ids"},
		[]string{"last_hidden_state"}, so)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	return &ortRunner{session: s, tk: tk, dim: cfg.HiddenSize}, nil
}

func (r *ortRunner) embed(texts []string) ([][]float32, error) {
	encs := make([]encoding, len(texts))
	seq := 0
	r.tkMu.Lock()
	for i, t := range texts {
		e, err := encode(r.tk, t)
		if err != nil {
			r.tkMu.Unlock()
			return nil, err
		}
		encs[i] = e
		seq = max(seq, len(e.ids))
	}
	r.tkMu.Unlock()
	n := len(texts)
	ids := make([]int64, n*seq)
	mask := make([]int64, n*seq)
	types := make([]int64, n*seq)
	for i, e := range encs {
		copy(ids[i*seq:], e.ids)
		copy(mask[i*seq:], e.mask)
		copy(types[i*seq:], e.typeIDs)
	}
	shape := ort.NewShape(int64(n), int64(seq))
	var inputs []ort.Value
	defer func() {
		for _, v := range inputs {
			v.Destroy()
		}
	}()
	for _, data := range [][]int64{ids, mask, types} {
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, fmt.Errorf("input tensor: %w", err)
		}
		inputs = append(inputs, t)
	}
	outputs := []ort.Value{nil}
	if err := r.session.Run(inputs, outputs); err != nil {
		return nil, fmt.Errorf("run model: %w", err)
	}
	defer outputs[0].Destroy()
	out, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, errors.New("run model: last_hidden_state is not float32")
	}
	dims := out.GetShape()
	if len(dims) != 3 || dims[0] != int64(n) || dims[1] != int64(seq) || dims[2] != int64(r.dim) {
		return nil, fmt.Errorf("run model: last_hidden_state shape %v, want [%d %d %d]", dims, n, seq, r.dim)
	}
	data := out.GetData()
	vecs := make([][]float32, n)
	for i, e := range encs {
		vecs[i] = meanPool(data[i*seq*r.dim:(i+1)*seq*r.dim], e.mask, r.dim)
	}
	return vecs, nil
}

func (r *ortRunner) close() error {
	return r.session.Destroy()
}
