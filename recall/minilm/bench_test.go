package minilm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"
	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

var benchWords = strings.Fields(`the team keeps a memory of decisions notes and plans
for each project so that agents can recall why a change was made when a test failed
which library was chosen and what the user asked last week about deployment budgets
latency errors retries caching indexes vectors search ranking summaries markdown files`)

// benchChunks returns n texts of about 200 word pieces each.
func benchChunks(n int) []string {
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for j := 0; j < 166; j++ {
			b.WriteString(benchWords[(i*7+j*3)%len(benchWords)])
			if j%17 == 16 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

// standIn is o's model folder, else the MiniLM-shaped stand-in.
func standIn(b *testing.B, o Options) string {
	b.Helper()
	if o.ModelDir != "" {
		return o.ModelDir
	}
	return minilmtest.FullModel(b)
}

func benchOpen(b *testing.B, o Options) *Embedder {
	b.Helper()
	e, err := Open(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

func benchLoad(b *testing.B, o Options) {
	o.ModelDir = standIn(b, o)
	for b.Loop() {
		loadOnce(b, o)
	}
}

// loadOnce opens the model and embeds one text: the first call compiles
// the graph on the Go backend, so it counts as loading.
func loadOnce(b *testing.B, o Options) {
	e, err := Open(o)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"warm up"}); err != nil {
		b.Fatal(err)
	}
	e.Close()
}

func benchQuery(b *testing.B, o Options) {
	o.ModelDir = standIn(b, o)
	e := benchOpen(b, o)
	q := []string{"why did we pick bleve for search"}
	if _, err := e.Embed(context.Background(), q); err != nil {
		b.Fatal(err)
	}
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := e.Embed(context.Background(), q); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}

func benchChunksRun(b *testing.B, o Options, n int) {
	o.ModelDir = standIn(b, o)
	e := benchOpen(b, o)
	chunks := benchChunks(n)
	if _, err := e.Embed(context.Background(), chunks); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), chunks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "chunks/s")
}

func TestBenchChunksAreAbout200Pieces(t *testing.T) {
	tk, err := loadTokenizer(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range benchChunks(4) {
		e := encode(tk, normalizeText(c))
		if len(e.ids) < 190 || len(e.ids) > 210 {
			t.Errorf("chunk %d has %d pieces, want about 200", i, len(e.ids))
		}
	}
}

func BenchmarkGoLoad(b *testing.B)  { benchLoad(b, Options{Backend: BackendGo}) }
func BenchmarkGoQuery(b *testing.B) { benchQuery(b, Options{Backend: BackendGo}) }
func BenchmarkGoChunks(b *testing.B) {
	benchChunksRun(b, Options{Backend: BackendGo}, 16)
}

// benchSentences returns n sentences of 6 to 40 words, like memory notes and queries.
func benchSentences(n int) []string {
	out := make([]string, n)
	for i := range out {
		words := 6 + (i*13)%35
		var b strings.Builder
		for j := 0; j < words; j++ {
			b.WriteString(benchWords[(i*5+j*7)%len(benchWords)])
			b.WriteByte(' ')
		}
		out[i] = b.String()
	}
	return out
}

func benchSentencesRun(b *testing.B, o Options, n int) {
	o.ModelDir = standIn(b, o)
	e := benchOpen(b, o)
	texts := benchSentences(n)
	if _, err := e.Embed(context.Background(), texts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "sentences/s")
}

func BenchmarkGoSentences(b *testing.B) { benchSentencesRun(b, Options{Backend: BackendGo}, 32) }

// BenchmarkGoBatchSizes embeds 32 chunks and 32 sentences with the Go
// backend at each batch size in rotating order and reports each one's rates.
func BenchmarkGoBatchSizes(b *testing.B) {
	sizes := []int{4, 8, 16, 32}
	embs := make([]*Embedder, len(sizes))
	for i, n := range sizes {
		embs[i] = benchOpen(b, Options{Backend: BackendGo, ModelDir: minilmtest.FullModel(b), BatchSize: n})
	}
	inputs := []struct {
		kind  string
		texts []string
	}{{"chunks", benchChunks(32)}, {"sentences", benchSentences(32)}}
	spent := make([][2]time.Duration, len(sizes))
	for round := 0; b.Loop(); round++ {
		for k := range embs {
			i := (round + k) % len(embs)
			for j, in := range inputs {
				start := time.Now()
				if _, err := embs[i].Embed(context.Background(), in.texts); err != nil {
					b.Fatal(err)
				}
				if round > 0 { // the first round compiles the graphs
					spent[i][j] += time.Since(start)
				}
			}
		}
	}
	for i, n := range sizes {
		for j, in := range inputs {
			b.ReportMetric(float64((b.N-1)*len(in.texts))/spent[i][j].Seconds(), fmt.Sprintf("batch%d-%s/s", n, in.kind))
		}
	}
}

// hugotDefault is the baseline: hugot's pipeline with the tokenizer exactly
// as tokenizer.json configures it (truncation at 128, fixed padding to 128),
// all texts in one call, no text normalisation.
func hugotDefault(b *testing.B) *pipelines.FeatureExtractionPipeline {
	b.Helper()
	dir := minilmtest.FullModel(b)
	s, err := hugot.NewGoSession(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Destroy() })
	p, err := hugot.NewPipeline(s, hugot.FeatureExtractionConfig{ModelPath: dir, OnnxFilename: "model.onnx", Name: "baseline",
		Options: []hugot.FeatureExtractionOption{pipelines.WithNormalization()}})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func benchHugotDefault(b *testing.B, texts []string, unit string) {
	p := hugotDefault(b)
	if _, err := p.RunPipeline(context.Background(), texts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.RunPipeline(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	if unit != "" {
		b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), unit)
	}
}

func BenchmarkHugotDefaultSentences(b *testing.B) {
	benchHugotDefault(b, benchSentences(32), "sentences/s")
}

func BenchmarkHugotDefaultQuery(b *testing.B) {
	benchHugotDefault(b, []string{"why did we pick bleve for search"}, "")
}

func ortOptions(b *testing.B) Options {
	return Options{Backend: BackendORT, ORTLib: minilmtest.RequireORT(b)}
}

// BenchmarkORTLoad opens the model with the optimised graph cached, as every
// process after the first does.
func BenchmarkORTLoad(b *testing.B) { benchLoad(b, ortOptions(b)) }

// BenchmarkORTLoadUncached opens the model with no cached graph: the first
// process after a model or runtime change.
func BenchmarkORTLoadUncached(b *testing.B) { benchLoadUncached(b, ortOptions(b)) }

func benchLoadUncached(b *testing.B, o Options) {
	o.ModelDir = minilmtest.FullModel(b)
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(filepath.Join(o.ModelDir, ortCacheDir)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		loadOnce(b, o)
	}
}

// BenchmarkORTLoadQueries is BenchmarkORTLoad for a process that embeds a
// query and exits (WorkloadQueries: weights mapped, not repacked).
func BenchmarkORTLoadQueries(b *testing.B) { benchLoad(b, ortQueriesOptions(b)) }

// BenchmarkORTLoadQueriesUncached is BenchmarkORTLoadUncached for such a
// process.
func BenchmarkORTLoadQueriesUncached(b *testing.B) {
	benchLoadUncached(b, ortQueriesOptions(b))
}

// BenchmarkORTQueryQueries is BenchmarkORTQuery on a WorkloadQueries session.
func BenchmarkORTQueryQueries(b *testing.B) { benchQuery(b, ortQueriesOptions(b)) }

func ortQueriesOptions(b *testing.B) Options {
	o := ortOptions(b)
	o.Workload = WorkloadQueries
	return o
}

func BenchmarkORTQuery(b *testing.B)     { benchQuery(b, ortOptions(b)) }
func BenchmarkORTChunks(b *testing.B)    { benchChunksRun(b, ortOptions(b), 32) }
func BenchmarkORTSentences(b *testing.B) { benchSentencesRun(b, ortOptions(b), 32) }

// int8Exports are the stand-in quantized as upstream's two int8 exports.
var int8Exports = []struct{ name, weights, file string }{
	{"avx512_vnni", "int8", "model_qint8_avx512_vnni.onnx"},
	{"avx2", "uint8", "model_quint8_avx2.onnx"},
}

// benchInt8 runs bench on each int8 export of the stand-in (quality cannot
// be judged on random weights; only speed is measured).
func benchInt8(b *testing.B, bench func(b *testing.B, o Options)) {
	for _, x := range int8Exports {
		b.Run(x.name, func(b *testing.B) {
			o := ortOptions(b)
			o.ModelDir = minilmtest.FullModelInt8(b, x.weights, x.file)
			if err := setActiveModel(o.ModelDir, x.file); err != nil {
				b.Fatal(err)
			}
			bench(b, o)
		})
	}
}

func BenchmarkORTInt8Query(b *testing.B) { benchInt8(b, benchQuery) }
func BenchmarkORTInt8Chunks(b *testing.B) {
	benchInt8(b, func(b *testing.B, o Options) { benchChunksRun(b, o, 32) })
}
func BenchmarkORTInt8Sentences(b *testing.B) {
	benchInt8(b, func(b *testing.B, o Options) { benchSentencesRun(b, o, 32) })
}

// BenchmarkORTInt8VsFP32Chunks embeds the same chunks with the fp32
// stand-in and both int8 exports in turn, rotating the order every round,
// so a busy machine's load falls on all three alike; it reports each one's
// chunks/s.
func BenchmarkORTInt8VsFP32Chunks(b *testing.B) {
	names := []string{"fp32"}
	embs := []*Embedder{benchOpen(b, Options{Backend: BackendORT, ORTLib: minilmtest.RequireORT(b), ModelDir: minilmtest.FullModel(b)})}
	for _, x := range int8Exports {
		dir := minilmtest.FullModelInt8(b, x.weights, x.file)
		if err := setActiveModel(dir, x.file); err != nil {
			b.Fatal(err)
		}
		names = append(names, x.name)
		embs = append(embs, benchOpen(b, Options{Backend: BackendORT, ORTLib: minilmtest.RequireORT(b), ModelDir: dir}))
	}
	chunks := benchChunks(32)
	spent := make([]time.Duration, len(embs))
	round := 0
	for b.Loop() {
		for k := range embs {
			i := (round + k) % len(embs)
			start := time.Now()
			if _, err := embs[i].Embed(context.Background(), chunks); err != nil {
				b.Fatal(err)
			}
			spent[i] += time.Since(start)
		}
		round++
	}
	for i, name := range names {
		b.ReportMetric(float64(round*len(chunks))/spent[i].Seconds(), name+"-chunks/s")
	}
}

// goConfigs are the pure-Go backend setups BenchmarkGoConfigs compares,
// named as gomlx's backend options plus rewriteBackend's rewrites ("+flat"
// for flattened dense products, "+fuse" for fused chains, "+split" for
// attention in parts): op scheduling and the dot-general (matrix product)
// paths gomlx can be held to. packgemm and the blocked kernels have AVX-512
// versions only under GOEXPERIMENT=simd; "highway" has no kernels in this
// gomlx version, so it is left out.
var goConfigs = []string{
	"go", "go+fuse+split", "go:packgemm+flat+fuse+split", "go:packgemm+flat", "go:packgemm", "go:ops_sequential", "go:packgemm,ops_sequential+flat",
	"go:dotgeneral_blocked", "go:dotgeneral_blocked+flat", "go:dotgeneral_normalized", "go:dotgeneral_smallmatmul",
}

// parseGoConfig reads a goConfigs name: gomlx's options, then any of
// "+flat", "+fuse" and "+split" (one part per core) for rewriteBackend's
// rewrites.
func parseGoConfig(name string) goConfig {
	options, rest, _ := strings.Cut(name, "+")
	c := goConfig{options: options}
	for _, r := range strings.Split(rest, "+") {
		switch r {
		case "flat":
			c.flatDense = true
		case "fuse":
			c.fuse = true
		case "split":
			c.split = runtime.GOMAXPROCS(0)
		}
	}
	return c
}

// BenchmarkGoConfigs runs the Go backend set up as each of goConfigs in
// rotating order (so a shared machine's load falls on all alike) and
// reports each one's rate on chunks and on sentences, after checking that
// each one's vectors are within 1e-4 of the first's. TMEM_BENCH_GO_CONFIGS,
// a space-separated list, picks other setups.
func BenchmarkGoConfigs(b *testing.B) {
	configs := goConfigs
	if s := os.Getenv("TMEM_BENCH_GO_CONFIGS"); s != "" {
		configs = strings.Fields(s)
	}
	runs := make([]*goRunner, len(configs))
	for i, c := range configs {
		r, err := newGoRunner(minilmtest.FullModel(b), parseGoConfig(c))
		if err != nil {
			b.Fatalf("%s: %v", c, err)
		}
		b.Cleanup(func() { r.close() })
		runs[i] = r
	}
	inputs := []struct {
		kind  string
		texts []string
	}{{"chunks", benchChunks(8)}, {"sentences", benchSentences(8)}}
	for _, in := range inputs {
		for i, t := range in.texts {
			in.texts[i] = normalizeText(t)
		}
		var first [][]float32
		for i, r := range runs {
			vecs, err := r.embed(in.texts) // compiles the graph
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 {
				first = vecs
			}
			for k := range vecs {
				if d := maxAbsDiff32(vecs[k], first[k]); d > 1e-4 {
					b.Fatalf("%s %s %d: max abs diff %g from %s > 1e-4", configs[i], in.kind, k, d, configs[0])
				}
			}
		}
	}
	spent := make(map[string]time.Duration)
	round := 0
	for b.Loop() {
		for k := range runs {
			i := (round + k) % len(runs)
			for _, in := range inputs {
				start := time.Now()
				if _, err := runs[i].embed(in.texts); err != nil {
					b.Fatal(err)
				}
				spent[configs[i]+" "+in.kind] += time.Since(start)
			}
		}
		round++
	}
	for _, c := range configs {
		for _, in := range inputs {
			b.ReportMetric(float64(round*len(in.texts))/spent[c+" "+in.kind].Seconds(), strings.ReplaceAll(c, ":", "-")+"-"+in.kind+"/s")
		}
	}
}
