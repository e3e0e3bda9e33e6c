package recall

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmemhq/tmem/internal/textcorpus"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/benchgen"
	"github.com/tmemhq/tmem/recall/hashembed"
)

// Benchmarks run over generated workspaces (recall/benchgen), built once
// per size and process, with the hashed embedder standing in for a model.
// Run them one at a time with a small -benchtime, e.g.
//
//	go test ./recall -run '^$' -bench NoChangeSync -benchtime 20x

var (
	benchMu   sync.Mutex
	benchWS   = map[string]*layout.Workspace{}
	benchDirs []string
)

// benchEnd is "now" for generated workspaces.
var benchEnd = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

func benchOptions() Options {
	return Options{
		Embedder:  memoEmbedder{},
		Now:       func() time.Time { return benchEnd.Add(12 * time.Hour) },
		Stopwatch: time.Now,
	}
}

// benchWorkspace generates and indexes a workspace once per process.
func benchWorkspace(b *testing.B, name string, gen benchgen.Options) *layout.Workspace {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if ws, ok := benchWS[name]; ok {
		return ws
	}
	dir, st := benchGenerate(b, name, gen)
	ws, err := layout.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := Open(ws, benchOptions())
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	sst, err := ix.Sync(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: %s; indexed %d files, %d chunks in %s", name, st, sst.Files, sst.Chunks, time.Since(t0).Round(time.Millisecond))
	benchWS[name] = ws
	return ws
}

// benchGenerate generates a workspace in a temporary folder removed at
// the end, or, when TMEM_BENCH_CACHE names a folder, in a subfolder of it
// that later runs reuse with its index (a changed schema rebuilds it).
func benchGenerate(b *testing.B, name string, gen benchgen.Options) (string, string) {
	b.Helper()
	gen.End = benchEnd
	cache := os.Getenv("TMEM_BENCH_CACHE")
	dir := filepath.Join(cache, fmt.Sprintf("%s-%d", name, gen.Seed))
	if cache == "" {
		var err error
		if dir, err = os.MkdirTemp("", "tmem-bench-"); err != nil {
			b.Fatal(err)
		}
		benchDirs = append(benchDirs, dir)
	} else if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return dir, "reused " + dir
	} else {
		gen.Force = true // a run cut short left it half written
	}
	st, err := benchgen.Generate(dir, gen)
	if err != nil {
		b.Fatal(err)
	}
	if cache != "" {
		if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir, fmt.Sprintf("generated %+v", st)
}

// memoEmbedder is the hashed embedder with query vectors cached, so that
// query benchmarks leave embedding out.
type memoEmbedder struct{}

var memo sync.Map

func (memoEmbedder) Identity() string { return hashembed.Embedder{}.Identity() }

func (memoEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if v, ok := memo.Load(t); ok && len(texts) == 1 {
			out[i] = v.([]float32)
			continue
		}
		out[i] = hashembed.Vector(t)
		if len(texts) == 1 {
			memo.Store(t, out[i])
		}
	}
	return out, nil
}

// The sizes the issue asks for.
var (
	gen10kFiles  = benchgen.Options{Teammates: 14, Years: 3, Seed: 1}
	gen10kChunks = benchgen.Options{Teammates: 5, Years: 3, Seed: 2}
	gen100k      = benchgen.Options{Teammates: 25, Years: 6, Seed: 3}
	// One teammate with about 100,000 chunks in a single index.
	gen100kOne = benchgen.Options{Teammates: 1, Years: 18, Seed: 4, EntriesPerDaily: 30}
)

func BenchmarkNoChangeSync10kFiles(b *testing.B) {
	ws := benchWorkspace(b, "10k-files", gen10kFiles)
	ix, _ := Open(ws, benchOptions())
	ctx := context.Background()
	b.ResetTimer()
	var st SyncStats
	for i := 0; i < b.N; i++ {
		var err error
		if st, err = ix.Sync(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Files), "files")
}

func BenchmarkSyncOneEdit10kFiles(b *testing.B) {
	ws := benchWorkspace(b, "10k-files", gen10kFiles)
	ix, _ := Open(ws, benchOptions())
	ctx := context.Background()
	rel := layout.TypedPath("atlas", "project", "bench_edit")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		editCount++
		if err := os.WriteFile(ws.Abs(rel), []byte(fmt.Sprintf("---\nname: bench edit\n---\nEdit number %d of the benchmark file.\n", editCount)), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := ix.Sync(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if st.Added+st.Changed != 1 {
			b.Fatalf("sync saw %+v, want one changed file", st)
		}
	}
}

// editCount keeps edits unique across the runs of one benchmark.
var editCount int

var benchQueries = []string{
	"p95 latency of the search index",
	"duplicate events from Norwave after the outage",
	"who approved the rollout plan",
	"retry queue migration expand step",
	"timezone bug shifted dates",
	"what happened in the week of 2026-03-09",
	"dead-letter table backfill",
	"alerting rules fired overnight",
}

func benchQuery(b *testing.B, name string, gen benchgen.Options, teammates []string, filter *Filter) {
	ws := benchWorkspace(b, name, gen)
	opts := benchOptions()
	phases := map[string]time.Duration{}
	var mu sync.Mutex // a query embedded ahead is traced on a goroutine of its own
	opts.Trace = func(phase string) func() {
		t0 := time.Now()
		return func() {
			mu.Lock()
			phases[phase] += time.Since(t0)
			mu.Unlock()
		}
	}
	ix, _ := Open(ws, opts)
	ctx := context.Background()
	for _, q := range benchQueries { // warm the page cache and the query memo
		if _, err := ix.Search(ctx, Query{Text: q, Teammates: teammates, NoSync: true}); err != nil {
			b.Fatal(err)
		}
	}
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := ix.Search(ctx, Query{Text: benchQueries[i%len(benchQueries)], Teammates: teammates, NoSync: true, Filter: filter}); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	for p, d := range phases {
		// a unit holds no space: "background embed" is reported as background-embed-ms
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N+len(benchQueries)), strings.ReplaceAll(p, " ", "-")+"-ms")
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkQuery100kAll searches every teammate of a 100k-chunk workspace.
func BenchmarkQuery100kAll(b *testing.B) { benchQuery(b, "100k", gen100k, nil, nil) }

// BenchmarkQuery100kOneOf25 searches one teammate of the same workspace.
func BenchmarkQuery100kOneOf25(b *testing.B) { benchQuery(b, "100k", gen100k, []string{"atlas"}, nil) }

// BenchmarkQuery100kSingle searches one teammate whose index alone holds
// about 100,000 chunks.
func BenchmarkQuery100kSingle(b *testing.B) {
	benchQuery(b, "100k-single", gen100kOne, []string{"atlas"}, nil)
}

// BenchmarkQuery100kSingleFiltered is Query100kSingle asking only for
// typed memories and summaries of the last two years (memory_search's
// kinds and since), which BM25 applies to every chunk.
func BenchmarkQuery100kSingleFiltered(b *testing.B) {
	f := &Filter{Kinds: []string{"typed", "weekly", "monthly"}, Since: "2025-01-01"}
	benchQuery(b, "100k-single", gen100kOne, []string{"atlas"}, f)
}

// BenchmarkQueryHugeTask searches one teammate of the 10k-chunk
// workspace by BM25 with a pasted 2.8 MB log, as tmem context does with
// such a task: "log" is a log of repeated words and many identifiers,
// "words" 2.8 MB of random words, each written once.
func BenchmarkQueryHugeTask(b *testing.B) {
	ws := benchWorkspace(b, "10k-chunks", gen10kChunks)
	ix, _ := Open(ws, benchOptions())
	rng := rand.New(rand.NewPCG(28, 2026))
	tasks := map[string]string{
		"log":   textcorpus.Log(rng, 2_800_000),
		"words": strings.Join(textcorpus.Random(rng, 400_000, 12, []string{"abcdefghijklmnopqrstuvwxyz"}), " "),
	}
	for _, name := range []string{"log", "words"} {
		b.Run(name, func(b *testing.B) {
			q := Query{Text: tasks[name], Teammates: []string{"atlas"}, Mode: ModeBM25, NoSync: true}
			for i := 0; i < b.N; i++ {
				if _, err := ix.Search(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRebuild10kChunks(b *testing.B) {
	ws := benchWorkspace(b, "10k-chunks", gen10kChunks)
	ix, _ := Open(ws, benchOptions())
	ctx := context.Background()
	var st SyncStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if st, err = ix.Rebuild(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	chunks := float64(st.Chunks)
	b.ReportMetric(chunks, "chunks")
	b.ReportMetric(chunks/st.ParseTime.Seconds(), "parse-chunks/s")
	b.ReportMetric(chunks/st.IndexTime.Seconds(), "bm25-chunks/s")
	b.ReportMetric(chunks/(st.ParseTime+st.IndexTime).Seconds(), "nonembed-chunks/s")
	b.ReportMetric(chunks/st.EmbedTime.Seconds(), "embed-chunks/s")
	var bleveBytes, vecBytes, manBytes int64
	filepath.WalkDir(ws.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel := ws.Rel(p)
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		switch {
		case filepath.Base(p) == vectorsFile:
			vecBytes += fi.Size()
		case filepath.Base(p) == manifestFile:
			manBytes += fi.Size()
		case containsDir(rel, ".index"):
			bleveBytes += fi.Size()
		}
		return nil
	})
	b.ReportMetric(float64(bleveBytes)/chunks*1000/1024, "bleve-KiB/1k-chunks")
	b.ReportMetric(float64(vecBytes)/chunks*1000/1024, "vectors-KiB/1k-chunks")
	b.ReportMetric(float64(manBytes)/chunks*1000/1024, "manifest-KiB/1k-chunks")
}

func containsDir(rel, dir string) bool {
	return contains(strings.Split(filepath.ToSlash(rel), "/"), dir)
}

// BenchmarkCheckStore100kSingle measures checking the files of an index
// of about 100,000 chunks before opening it: by stat data alone (every
// open once the record is older than the racy window) and by checksum
// (stat data moved, or a record inside the window; once per process).
func BenchmarkCheckStore100kSingle(b *testing.B) {
	ws := benchWorkspace(b, "100k-single", gen100kOne)
	dir := ws.IndexDir("atlas")
	m, err := readManifest(filepath.Join(dir, manifestFile))
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, r := range m.Store {
		size += r.Size
	}
	for _, bc := range []struct {
		name      string
		racyAfter int64
	}{
		{"stat", math.MaxInt64},
		{"checksum", math.MinInt64},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportMetric(float64(len(m.Store)), "files")
			for i := 0; i < b.N; i++ {
				if _, err := verifyStore(dir, m.Store, bc.racyAfter, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
