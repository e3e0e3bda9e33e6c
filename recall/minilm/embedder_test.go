package minilm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
	"github.com/tmemhq/tmem/recall/recalltest"
)

// tinyDir is the committed tiny model. Tests that open it use tinyModel, a
// copy: opening a model writes its sums cache into the folder.
const tinyDir = "testdata/tiny"

// referenceCases cover the tokenizer's hard cases.
var referenceCases = []struct{ name, text string }{
	{"plain", "The cat sits on the mat"},
	{"accented", "naïve café"},
	{"accented capitals", "Crème brûlée À LA CARTE, Ångström, façade"},
	{"cjk", "東京は日本の首都です"},
	{"cjk mixed", "混合 text with 中文 and English"},
	{"empty", ""},
	{"whitespace only", "   \t\n  "},
	{"punctuation", "Hello, world! (tmem) v1.2.3 — e-mail: a@b.c"},
	{"other scripts", "Straße Ἀθῆναι Москва"},
	{"format and control chars", "zero\u200bwidth and control\u0007char"},
	{"emoji", "emoji 🙂 stays unknown"},
	{"longer than 256 pieces", strings.Repeat("recall memory index embeddings ", 120)},
}

func openTiny(t *testing.T, backend string) *Embedder {
	t.Helper()
	e, err := Open(Options{ModelDir: tinyModel(t), Backend: backend, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

func TestEmbedMatchesReference(t *testing.T) {
	texts := make([]string, len(referenceCases))
	for i, c := range referenceCases {
		texts[i] = c.text
	}
	ref := runReference(t, tinyDir, texts, false)
	e := openTiny(t, BackendGo)
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := loadTokenizer(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range referenceCases {
		t.Run(c.name, func(t *testing.T) {
			enc := encode(tk, normalizeText(c.text))
			if !equalIDs(enc.ids, ref.IDs[i]) {
				t.Fatalf("ids = %v\nreference %v", enc.ids, ref.IDs[i])
			}
			if d := maxAbsDiff(got[i], ref.Vectors[i]); d > 1e-4 {
				t.Errorf("max abs diff %g > 1e-4", d)
			}
		})
	}
}

// TestFullSizeMatchesReference checks the Go backend, set up as it runs by
// default in this build, on a model of all-MiniLM-L6-v2's size against the
// python reference: the matrix kernels it picks on full-size products
// (gomlx's AVX-512 ones in a GOEXPERIMENT=simd build) only run at this size.
func TestFullSizeMatchesReference(t *testing.T) {
	dir := minilmtest.FullModel(t)
	texts := []string{"why did we pick bleve for search", benchChunks(1)[0], benchSentences(3)[2]}
	ref := runReference(t, dir, texts, false)
	got, _ := embedOnce(t, Options{ModelDir: dir, Backend: BackendGo}, texts)
	for i := range texts {
		if d := maxAbsDiff(got[i], ref.Vectors[i]); d > 1e-4 {
			t.Errorf("text %d (%d pieces): max abs diff %g > 1e-4", i, len(ref.IDs[i]), d)
		}
	}
}

func TestEmbedVectors(t *testing.T) {
	e := openTiny(t, BackendGo)
	if e.Dim() != 32 || e.Backend() != BackendGo {
		t.Fatalf("dim %d backend %q, want 32 go", e.Dim(), e.Backend())
	}
	texts := []string{"alpha", "beta gamma", "alpha"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(n)-1) > 1e-5 {
			t.Errorf("vector %d norm %g, want 1", i, math.Sqrt(n))
		}
	}
	if maxAbsDiff32(vecs[0], vecs[2]) > 1e-6 {
		t.Error("same text gave different vectors")
	}
	if maxAbsDiff32(vecs[0], vecs[1]) < 1e-3 {
		t.Error("different texts gave the same vector")
	}
}

func TestEmbedBatchIndependent(t *testing.T) {
	e := openTiny(t, BackendGo)
	alone, err := e.Embed(context.Background(), []string{"short"})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{strings.Repeat("long padding text ", 30), "short", "middle sized text here"}
	batch, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff32(alone[0], batch[1]); d > 1e-5 {
		t.Errorf("vector depends on its batch: diff %g", d)
	}
}

func TestEmbedCanceled(t *testing.T) {
	e := openTiny(t, BackendGo)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Embed(ctx, []string{"a", "b"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOpenErrors(t *testing.T) {
	tiny := tinyModel(t)
	tests := []struct {
		name    string
		opts    Options
		noModel bool
	}{
		{"empty dir option", Options{}, true},
		{"missing dir", Options{ModelDir: t.TempDir() + "/nope"}, true},
		{"dir without model", Options{ModelDir: t.TempDir()}, true},
		{"bad backend", Options{ModelDir: tiny, Backend: "gpu"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNoModel) != tt.noModel {
				t.Fatalf("errors.Is(ErrNoModel) = %v for %v", !tt.noModel, err)
			}
			if tt.noModel && !strings.Contains(err.Error(), "tmem model pull") {
				t.Errorf("no fix hint in %q", err)
			}
		})
	}
}

// TestOpenRefusesAbsurdHiddenSize: a damaged config.json whose hidden_size
// no model has is an error naming the file when the model is opened, on
// either backend, not an allocation that kills the process at the first
// embedding.
func TestOpenRefusesAbsurdHiddenSize(t *testing.T) {
	tests := []struct {
		name, size string
	}{
		{"just over the bound", "8193"},
		{"a terabyte of floats per piece", "1099511627776"},
		{"overflows a batch's buffer", "4611686018427387904"},
	}
	for _, backend := range []string{BackendGo, BackendORT} {
		for _, tt := range tests {
			t.Run(backend+"/"+tt.name, func(t *testing.T) {
				dir := tinyModel(t)
				writeFile(t, dir+"/config.json", `{"hidden_size": `+tt.size+`}`)
				e, err := Open(Options{ModelDir: dir, Backend: backend})
				if err == nil {
					e.Close()
					t.Fatalf("Open with hidden_size %s: no error", tt.size)
				}
				if !strings.Contains(err.Error(), dir+"/config.json") || !strings.Contains(err.Error(), "hidden_size "+tt.size) {
					t.Errorf("Open: %v; want an error naming config.json and its hidden_size", err)
				}
			})
		}
	}
}

func TestIdentity(t *testing.T) {
	tiny := tinyModel(t)
	a, err := identity(tiny)
	if err != nil {
		t.Fatal(err)
	}
	b, err := identity(tiny)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.HasPrefix(a, "all-MiniLM-L6-v2@") {
		t.Fatalf("identity %q then %q", a, b)
	}
	dir := copyDir(t, tinyDir)
	writeFile(t, dir+"/config.json", `{"hidden_size": 32, "changed": true}`)
	c, err := identity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c == a {
		t.Error("identity did not change with the model files")
	}
}

func TestDefaultModelDir(t *testing.T) {
	env := map[string]string{"TMEM_MODEL": "/models/x"}
	got, err := DefaultModelDir(func(k string) string { return env[k] })
	if err != nil || got != "/models/x" {
		t.Fatalf("with TMEM_MODEL: %q, %v", got, err)
	}
	got, err = DefaultModelDir(func(string) string { return "" })
	if err != nil {
		t.Skipf("no user cache folder here: %v", err)
	}
	if !strings.HasSuffix(got, "tmem/models/all-MiniLM-L6-v2") {
		t.Errorf("default = %q", got)
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func maxAbsDiff(a []float32, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(float64(a[i])-b[i]))
	}
	return m
}

func maxAbsDiff32(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}

func TestEmbedConcurrent(t *testing.T) {
	checkConcurrent(t, openTiny(t, BackendGo))
}

// checkConcurrent embeds from several goroutines and compares with a serial run.
func checkConcurrent(t *testing.T, e *Embedder) {
	t.Helper()
	texts := []string{"one fish", "two fish", "red fish", "blue fish", "naïve café", "東京"}
	want, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			got, err := e.Embed(context.Background(), texts)
			if err == nil {
				for i := range got {
					if d := maxAbsDiff32(got[i], want[i]); d > 1e-5 {
						err = fmt.Errorf("text %d differs by %g under concurrency", i, d)
						break
					}
				}
			}
			errs <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestConformance runs the recall package's embedder contract on the Go
// backend, the one every build has.
func TestConformance(t *testing.T) {
	e := openTiny(t, BackendGo)
	recalltest.Conformance(t, e, e.Dim())
}
