package minilm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm/internal/onnxrt"
)

// ErrNoModel means the model folder lacks the files needed to embed. It is a
// normal state: callers fall back to keyword-only recall.
var ErrNoModel = errors.New("no embedding model")

// PipelineVersion names the text preparation and pooling this package applies
// around the model. It is part of Identity, so a change here makes callers
// re-embed.
const PipelineVersion = "minilm-pipeline-2:nfd-strip-mn,cjk-split,drop-cc-cf,trunc256,mean,l2"

// previousPipeline is PipelineVersion before this package had a tokenizer
// of its own. The tokenizer library it used then mishandled the characters
// BERT's normaliser drops (see DiffersFromPrevious); every other text gets
// the same vector from both, so the vectors of the previous pipeline stay
// valid but for those (see Embedder.Succeeds).
const previousPipeline = "minilm-pipeline-1:nfd-strip-mn,cjk-split,trunc256,mean,l2"

// Backend names.
const (
	BackendAuto = "auto"
	BackendGo   = "go"
	BackendORT  = "ort"
)

// Options configure Open.
type Options struct {
	// ModelDir holds model.onnx, tokenizer.json and config.json.
	ModelDir string
	// Backend is "auto" (the default), "go" or "ort". "auto" picks ORT when
	// an ONNX Runtime library is found and loads, else the pure-Go backend
	// (Fallback says why).
	Backend string
	// ORTLib is the path to the ONNX Runtime library. Empty means the search
	// FindRuntime describes.
	ORTLib string
	// BatchSize is how many texts go through the model at once (default 4
	// with ORT and with the Go backend on gomlx's AVX-512 kernels, else 8:
	// measured best for each).
	BatchSize int
	// Workers is how many batches run at the same time (default: one per
	// core with ORT, 1 with the Go backend, which spreads a batch over all
	// cores itself).
	Workers int
	// Threads is ONNX Runtime's intra-op thread count (default: cores divided
	// by Workers). The Go backend ignores it.
	Threads int
	// Workload says what the Embedder is for, which decides how ONNX
	// Runtime sessions start (WorkloadBulk, the default, or WorkloadQueries).
	// The Go backend ignores it. Vectors are the same either way.
	Workload Workload
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Trace, when set, is called as each phase of opening the ONNX Runtime
	// backend starts, and the function it returns as the phase ends:
	// "runtime" (loading the library and creating its environment),
	// "session" (checking the optimised-model cache and starting the
	// session) and "tokenizer" (waiting for tokenizer.json, which is read
	// on another goroutine meanwhile).
	Trace func(phase string) (end func())
}

// trace marks the start of a phase of Open (see Options.Trace).
func (o Options) trace(phase string) (end func()) {
	if o.Trace == nil {
		return func() {}
	}
	return o.Trace(phase)
}

// Workload trades a session's start-up time against its speed per text.
type Workload int

const (
	// WorkloadBulk is for embedding many texts (indexing, a server): the
	// session repacks the weights for the fastest matrix kernels as it
	// starts, about half a second on the full-size model.
	WorkloadBulk Workload = iota
	// WorkloadQueries is for a process that embeds a query or a few chunks
	// and exits: the session uses the cached weights where they lie, mapped
	// from the file, so it starts several times sooner, and runs
	// single-threaded, each text somewhat slower.
	WorkloadQueries
)

// runner turns one batch of normalised texts into pooled, L2-normalised vectors.
type runner interface {
	embed(texts []string) ([][]float32, error)
	close() error
}

// Embedder maps texts to sentence vectors with all-MiniLM-L6-v2 (or any BERT
// export of the same shape). Create it once and reuse it; it is safe for
// concurrent use.
type Embedder struct {
	dim      int
	backend  string
	identity string
	previous string // the identity of previousPipeline with these model files
	batch    int
	workers  int
	model    string
	run      runner
	runtime  string
	fallback string
	closeMu  sync.Mutex
	closed   bool
}

// maxHiddenSize bounds config.json's hidden_size (384 for MiniLM; the
// largest embedding models have a few thousand).
const maxHiddenSize = 1 << 13

// modelConfig is the part of config.json this package reads.
type modelConfig struct {
	HiddenSize int `json:"hidden_size"`
}

// modelFiles are the files Open needs in a model folder, all hashed into
// Identity: the model file of the folder's variant (see activeModel) and the
// tokenizer and config files.
func modelFiles(dir string) ([]string, error) {
	model, err := activeModel(dir)
	if err != nil {
		return nil, err
	}
	return []string{model, "tokenizer.json", "config.json"}, nil
}

// Open loads the model in o.ModelDir. It returns an error wrapping ErrNoModel
// when the folder or one of its files is missing.
func Open(o Options) (*Embedder, error) {
	if err := checkModelDir(o.ModelDir); err != nil {
		return nil, err
	}
	cfg, err := readConfig(o.ModelDir)
	if err != nil {
		return nil, err
	}
	id, previous, err := identities(o.ModelDir)
	if err != nil {
		return nil, err
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	model, err := activeModel(o.ModelDir)
	if err != nil {
		return nil, err
	}
	e := &Embedder{dim: cfg.HiddenSize, identity: id, previous: previous, batch: o.BatchSize, workers: o.Workers, model: model}
	switch o.Backend {
	case "", BackendAuto:
		if err = e.openORT(o, getenv); err != nil && model != fp32Model {
			err = fmt.Errorf("%s needs ONNX Runtime: %w; 'tmem model pull --variant int8' installs it, 'tmem model pull' goes back to the fp32 model", model, err)
		} else if err != nil {
			e.fallback = err.Error()
			err = e.openGo(o)
		}
	case BackendGo:
		err = e.openGo(o)
	case BackendORT:
		err = e.openORT(o, getenv)
	default:
		return nil, fmt.Errorf("unknown backend %q (want auto, go or ort)", o.Backend)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s backend on %s: %w", e.backend, o.ModelDir, err)
	}
	return e, nil
}

// openGo sets e up to run on gomlx's pure-Go backend.
func (e *Embedder) openGo(o Options) error {
	e.backend = BackendGo
	if e.model != fp32Model {
		return fmt.Errorf("%s is an int8 model, which only ONNX Runtime runs; 'tmem model pull' installs the fp32 model", e.model)
	}
	cfg := defaultGoConfig()
	if e.batch <= 0 {
		e.batch = cfg.batch
	}
	// gomlx compiles a graph per batch shape; bound how many there can be.
	e.batch = min(e.batch, goMaxBatch)
	if e.workers <= 0 {
		// gomlx spreads one batch over all cores; a second batch in
		// flight only adds contention.
		e.workers = 1
	}
	run, err := newGoRunner(o.ModelDir, cfg)
	e.run = run
	return err
}

// openORT sets e up to run on ONNX Runtime, or says why it cannot, leaving
// e's batch and worker counts as the caller gave them.
func (e *Embedder) openORT(o Options, getenv func(string) string) error {
	e.backend = BackendORT
	tk := loadTokenizerAsync(o.ModelDir)
	lib := FindRuntime(o.ORTLib, o.ModelDir, getenv)
	end := o.trace("runtime")
	rt, err := loadORT(lib)
	end()
	if err != nil {
		return err
	}
	batch, workers := e.batch, e.workers
	if batch <= 0 {
		// Smaller batches pad less; 4 still amortises the per-run cost.
		batch = 4
	}
	if workers <= 0 {
		// One single-threaded session run per core beats one run spread
		// over all cores for throughput, and starts no thread pool.
		workers = runtime.GOMAXPROCS(0)
	}
	run, err := newORTRunner(o, e.model, rt, sessionOptions(o, workers), tk)
	if err != nil {
		return fmt.Errorf("%s: %w", rt, err)
	}
	e.run, e.batch, e.workers, e.runtime = run, batch, workers, rt.String()
	return nil
}

// sessionOptions are the ONNX Runtime session settings for o's workload.
// Thread spinning is off in both (see onnxrt.Runtime.NewSession).
func sessionOptions(o Options, workers int) onnxrt.SessionOptions {
	threads := o.Threads
	switch {
	case threads > 0:
	case o.Workload == WorkloadQueries:
		// A thread pool costs more to start than it saves on a few texts.
		threads = 1
	default:
		threads = max(1, runtime.GOMAXPROCS(0)/workers)
	}
	return onnxrt.SessionOptions{IntraOpThreads: threads, NoPrepack: o.Workload == WorkloadQueries}
}

func checkModelDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%w: no model folder given; run 'tmem model pull'", ErrNoModel)
	}
	names, err := modelFiles(dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		f, err := layout.OpenRegular(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s not found in %s; run 'tmem model pull'", ErrNoModel, name, dir)
		}
		if err != nil {
			return fmt.Errorf("check model folder: %w; 'tmem model pull' installs the model again", err)
		}
		f.Close()
	}
	return nil
}

func readConfig(dir string) (modelConfig, error) {
	var cfg modelConfig
	b, err := readRegular(filepath.Join(dir, "config.json"))
	if err != nil {
		return cfg, fmt.Errorf("read model config: %w", err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, fmt.Errorf("parse %s: %w", filepath.Join(dir, "config.json"), err)
	}
	switch {
	case cfg.HiddenSize <= 0:
		return cfg, fmt.Errorf("parse %s: hidden_size missing", filepath.Join(dir, "config.json"))
	case cfg.HiddenSize > maxHiddenSize:
		// Each batch's output buffer is texts × pieces × hidden_size
		// floats, allocated before the runtime checks the shape: a damaged
		// config would exhaust memory, which no caller can recover from.
		return cfg, fmt.Errorf("parse %s: hidden_size %d is over %d, more than any embedding model has; the file is damaged", filepath.Join(dir, "config.json"), cfg.HiddenSize, maxHiddenSize)
	}
	return cfg, nil
}

// identity hashes the model files' sums with PipelineVersion.
func identity(dir string) (string, error) {
	id, _, err := identities(dir)
	return id, err
}

// identities takes the model files' sums once and hashes them with
// PipelineVersion (the identity) and with previousPipeline (the identity
// vectors stored under the previous pipeline carry).
func identities(dir string) (current, previous string, err error) {
	names, err := modelFiles(dir)
	if err != nil {
		return "", "", err
	}
	sums, err := cachedSums(dir, names)
	if err != nil {
		return "", "", fmt.Errorf("model identity: %w", err)
	}
	of := func(pipeline string) string {
		h := sha256.New()
		io.WriteString(h, pipeline+"\n")
		for _, name := range names {
			fmt.Fprintf(h, "%s %s\n", sums[name], name)
		}
		return "all-MiniLM-L6-v2@" + hex.EncodeToString(h.Sum(nil))[:16]
	}
	return of(PipelineVersion), of(previousPipeline), nil
}

// fileSum returns the hex sha256 and size of a file.
func fileSum(path string) (string, int64, error) {
	f, err := layout.OpenRegular(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Dim is the length of every vector.
func (e *Embedder) Dim() int { return e.dim }

// Backend is "go" or "ort".
func (e *Embedder) Backend() string { return e.backend }

// Runtime names the ONNX Runtime version and library the "ort" backend runs
// on; it is empty for the Go backend.
func (e *Embedder) Runtime() string { return e.runtime }

// Fallback says why the "auto" backend runs on pure Go rather than ONNX
// Runtime (no library found, or the loader's error); it is empty otherwise.
func (e *Embedder) Fallback() string { return e.fallback }

// Identity names the model files and the pipeline around them. It is the same
// for both backends and changes when either changes.
func (e *Embedder) Identity() string { return e.identity }

// Succeeds reports whether vectors stored under identity prev, from the
// same model files and the previous pipeline, are this Embedder's for every
// text but those differs reports (see recall.Successor).
func (e *Embedder) Succeeds(prev string) (differs func(text string) bool, ok bool) {
	if prev != e.previous {
		return nil, false
	}
	return DiffersFromPrevious, true
}

// Close frees the model. The Embedder must not be used afterwards.
func (e *Embedder) Close() error {
	e.closeMu.Lock()
	defer e.closeMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return e.run.close()
}

// Embed returns one L2-normalised vector of length Dim per text, in order.
// Texts longer than MaxTokens word pieces are cut.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	norm := make([]string, len(texts))
	order := make([]int, len(texts))
	for i, t := range texts {
		norm[i] = normalizeText(t)
		order[i] = i
	}
	// Batch texts of like length together so little of each batch is padding.
	sort.SliceStable(order, func(a, b int) bool { return len(norm[order[a]]) < len(norm[order[b]]) })

	type job struct{ start, end int }
	jobs := make(chan job)
	out := make([][]float32, len(texts))
	var wg sync.WaitGroup
	var errOnce sync.Once
	var firstErr error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	for w := 0; w < min(e.workers, (len(texts)+e.batch-1)/e.batch); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				batch := make([]string, 0, j.end-j.start)
				for _, i := range order[j.start:j.end] {
					batch = append(batch, norm[i])
				}
				vecs, err := e.run.embed(batch)
				if err != nil {
					fail(fmt.Errorf("embed batch: %w", err))
					continue
				}
				if len(vecs) != len(batch) {
					fail(fmt.Errorf("embed batch: got %d vectors for %d texts", len(vecs), len(batch)))
					continue
				}
				for k, i := range order[j.start:j.end] {
					if len(vecs[k]) != e.dim {
						fail(fmt.Errorf("embed batch: vector length %d, model config says %d", len(vecs[k]), e.dim))
						break
					}
					out[i] = vecs[k]
				}
			}
		}()
	}
feed:
	for start := 0; start < len(texts); start += e.batch {
		select {
		case jobs <- job{start, min(start+e.batch, len(texts))}:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return out, nil
}

// meanPool averages the rows of hidden ([seq][dim] flattened, row stride dim)
// whose mask is set, then L2-normalises the result.
func meanPool(hidden []float32, mask []int64, dim int) []float32 {
	sum := make([]float64, dim)
	n := 0
	for t, m := range mask {
		if m == 0 {
			continue
		}
		n++
		row := hidden[t*dim : (t+1)*dim]
		for k, v := range row {
			sum[k] += float64(v)
		}
	}
	out := make([]float32, dim)
	if n == 0 {
		return out
	}
	var norm float64
	for k := range sum {
		sum[k] /= float64(n)
		norm += sum[k] * sum[k]
	}
	norm = math.Max(math.Sqrt(norm), 1e-12)
	for k := range sum {
		out[k] = float32(sum[k] / norm)
	}
	return out
}

// RuntimeDirName is the folder, inside the model folder, where the ONNX
// Runtime library is looked for (and where 'tmem model pull' puts it).
const RuntimeDirName = "onnxruntime"

// runtimeLibNames are the library's file names on each OS, versioned ones
// last.
var runtimeLibNames = map[string][]string{
	"linux":  {"libonnxruntime.so", "libonnxruntime.so.1", "libonnxruntime.so.1.*"},
	"darwin": {"libonnxruntime.dylib", "libonnxruntime.1.*.dylib"},
}

// FindRuntime resolves the ONNX Runtime library, first found wins: the
// explicit path; $TMEM_ORT_LIB; the onnxruntime folder inside the model
// folder; the usual system library folders. It returns "" when there is none.
func FindRuntime(explicit, modelDir string, getenv func(string) string) string {
	if explicit != "" {
		return explicit
	}
	if p := getenv("TMEM_ORT_LIB"); p != "" {
		return p
	}
	dirs := []string{"/usr/lib", "/usr/local/lib", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/opt/homebrew/lib"}
	if modelDir != "" {
		dirs = append([]string{filepath.Join(modelDir, RuntimeDirName)}, dirs...)
	}
	for _, dir := range dirs {
		for _, name := range runtimeLibNames[runtime.GOOS] {
			if m, _ := filepath.Glob(filepath.Join(dir, name)); len(m) > 0 {
				return m[0]
			}
		}
	}
	return ""
}

// DefaultModelDir resolves the model folder when no --model flag is given:
// $TMEM_MODEL, else os.UserCacheDir()/tmem/models/all-MiniLM-L6-v2.
func DefaultModelDir(getenv func(string) string) (string, error) {
	if d := getenv("TMEM_MODEL"); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("model folder: %w; set TMEM_MODEL or pass --model", err)
	}
	return filepath.Join(cache, "tmem", "models", "all-MiniLM-L6-v2"), nil
}
