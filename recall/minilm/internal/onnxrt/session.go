package onnxrt

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// Graph optimisation levels (GraphOptimizationLevel in the C API).
const (
	// OptimizeNone runs the graph as stored: for a graph saved already
	// optimised.
	OptimizeNone = 0
	// OptimizeExtended applies the fusions that do not depend on the CPU's
	// memory layout, so a saved result is valid on any CPU of this arch.
	OptimizeExtended = 2
)

// SessionOptions configure NewSession.
type SessionOptions struct {
	// IntraOpThreads is the number of threads one run may use (at least 1).
	// With 1 the runtime starts no thread pool of its own.
	IntraOpThreads int
	// Optimize is OptimizeNone or OptimizeExtended.
	Optimize int
	// SaveOptimized, when set, is where the runtime writes the optimised
	// graph with its weights, in its own format (ORT format, the file
	// NewMappedSession runs), while it creates the session.
	SaveOptimized string
	// NoPrepack leaves the weights as stored instead of repacking them for
	// the matrix kernels when the session starts. Repacking copies every
	// weight; without it a session over mapped weights starts in a fraction
	// of the time, and each run is somewhat slower.
	NoPrepack bool
}

// Session is a model loaded into the runtime. Run may be called from several
// goroutines at once.
type Session struct {
	rt       *Runtime
	h        uintptr
	nIn      int
	inNames  []*byte
	outNames []*byte
	pins     runtime.Pinner
	// mapped is the model file a mapped session runs from.
	mapped []byte
}

// NewSession loads the ONNX model file with the named inputs and output.
func (r *Runtime) NewSession(model string, inputs []string, output string, o SessionOptions) (*Session, error) {
	s := &Session{rt: r}
	err := s.create(o, nil, func(opts uintptr) uintptr { return r.createSession(r.env, model, opts, &s.h) })
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", model, err)
	}
	s.names(inputs, output)
	return s, nil
}

// NewMappedSession maps the file at path, a model in ONNX Runtime's own
// format (see SessionOptions.SaveOptimized), and runs it where it lies: the
// runtime reads the graph from the mapping without parsing a copy, and
// uses the weights in place unless it repacks them. The file must not
// change while the session is open (write a new file and rename it
// instead); Close unmaps it.
func (r *Runtime) NewMappedSession(path string, inputs []string, output string, o SessionOptions) (*Session, error) {
	data, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	s := &Session{rt: r, mapped: data}
	direct := []configEntry{
		{"session.use_ort_model_bytes_directly", "1"},
		{"session.use_ort_model_bytes_for_initializers", "1"},
	}
	err = s.create(o, direct, func(opts uintptr) uintptr {
		return r.createSessionBytes(r.env, unsafe.Pointer(unsafe.SliceData(data)), uintptr(len(data)), opts, &s.h)
	})
	if err != nil {
		unmap(data)
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	s.names(inputs, output)
	return s, nil
}

// configEntry is a session configuration key and its value.
type configEntry struct{ key, value string }

// create makes session options from o and extra and calls newSession with
// them.
func (s *Session) create(o SessionOptions, extra []configEntry, newSession func(opts uintptr) uintptr) error {
	r := s.rt
	var opts uintptr
	if err := r.check(r.createSessionOpts(&opts)); err != nil {
		return fmt.Errorf("session options: %w", err)
	}
	defer r.releaseSessionOpts(opts)
	if err := r.configure(opts, o, extra); err != nil {
		return fmt.Errorf("session options: %w", err)
	}
	return r.check(newSession(opts))
}

// names pins the input and output names Run passes.
func (s *Session) names(inputs []string, output string) {
	s.nIn = len(inputs)
	for _, name := range inputs {
		s.inNames = append(s.inNames, s.cString(name))
	}
	s.outNames = []*byte{s.cString(output)}
	s.pins.Pin(&s.inNames[0])
	s.pins.Pin(&s.outNames[0])
}

func (r *Runtime) configure(opts uintptr, o SessionOptions, extra []configEntry) error {
	threads := max(1, o.IntraOpThreads)
	steps := []func() uintptr{
		func() uintptr { return r.setIntraOpThreads(opts, int32(threads)) },
		func() uintptr { return r.setInterOpThreads(opts, 1) },
		func() uintptr { return r.setGraphOptLevel(opts, int32(o.Optimize)) },
	}
	// Pool threads that spin between runs burn a core for nothing in a
	// process that embeds one query and exits.
	entries := append([]configEntry{{"session.intra_op.allow_spinning", "0"}}, extra...)
	if o.SaveOptimized != "" {
		steps = append(steps, func() uintptr { return r.setOptimizedPath(opts, o.SaveOptimized) })
		entries = append(entries, configEntry{"session.save_model_format", "ORT"})
	}
	if o.NoPrepack {
		entries = append(entries, configEntry{"session.disable_prepacking", "1"})
	}
	for _, e := range entries {
		steps = append(steps, func() uintptr { return r.addConfigEntry(opts, e.key, e.value) })
	}
	for _, step := range steps {
		if err := r.check(step()); err != nil {
			return err
		}
	}
	return nil
}

// cString returns a pinned NUL-terminated copy of s.
func (s *Session) cString(str string) *byte {
	b := append([]byte(str), 0)
	s.pins.Pin(&b[0])
	return &b[0]
}

// Run feeds the inputs, each int64 data of the given shape, and writes the
// float32 output, of outShape, into out.
func (s *Session) Run(shape []int64, inputs [][]int64, outShape []int64, out []float32) error {
	if len(inputs) != s.nIn {
		return fmt.Errorf("run: %d inputs, the session takes %d", len(inputs), s.nIn)
	}
	var pins runtime.Pinner
	defer pins.Unpin()
	values := make([]uintptr, 0, len(inputs)+1)
	defer func() {
		for _, v := range values {
			s.rt.releaseValue(v)
		}
	}()
	for i, data := range inputs {
		v, err := s.tensor(&pins, shape, unsafe.Pointer(unsafe.SliceData(data)), len(data)*8, count(shape), len(data), tensorInt64)
		if err != nil {
			return fmt.Errorf("input %d: %w", i, err)
		}
		values = append(values, v)
	}
	v, err := s.tensor(&pins, outShape, unsafe.Pointer(unsafe.SliceData(out)), len(out)*4, count(outShape), len(out), tensorFloat)
	if err != nil {
		return fmt.Errorf("output: %w", err)
	}
	values = append(values, v)
	outs := []uintptr{v}
	if err := s.rt.check(s.rt.run(s.h, 0, &s.inNames[0], &values[0], uintptr(len(inputs)), &s.outNames[0], 1, &outs[0])); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if outs[0] != v {
		// The runtime allocated an output of its own: it would not take ours.
		s.rt.releaseValue(outs[0])
		return errors.New("run: the runtime did not write the output in place")
	}
	return nil
}

// tensor wraps Go memory in an OrtValue; the memory stays pinned until pins
// are released, after the value is.
func (s *Session) tensor(pins *runtime.Pinner, shape []int64, data unsafe.Pointer, bytes, want, have int, typ int32) (uintptr, error) {
	if want != have || have == 0 {
		return 0, fmt.Errorf("shape %v needs %d elements, got %d", shape, want, have)
	}
	pins.Pin(data)
	var v uintptr
	err := s.rt.check(s.rt.createTensor(s.rt.cpuMem, data, uintptr(bytes), &shape[0], uintptr(len(shape)), typ, &v))
	return v, err
}

// Close frees the session and unmaps its model file.
func (s *Session) Close() error {
	if s.h != 0 {
		s.rt.releaseSession(s.h)
		s.h = 0
	}
	s.pins.Unpin()
	if s.mapped != nil {
		err := unmap(s.mapped)
		s.mapped = nil
		return err
	}
	return nil
}

func count(shape []int64) int {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return int(n)
}

// String names the runtime for messages.
func (r *Runtime) String() string { return "onnx runtime " + r.version + " (" + r.path + ")" }
