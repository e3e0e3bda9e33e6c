package minilm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

var cacheTexts = []string{"The cat sits on the mat", "naïve café", "混合 text with 中文"}

// embedORT opens dir on the ORT backend, embeds cacheTexts and reports
// whether the session came from the optimised-graph cache.
func embedORT(t *testing.T, dir string) ([][]float32, bool) {
	t.Helper()
	e, err := Open(Options{ModelDir: dir, Backend: BackendORT, ORTLib: minilmtest.RequireORT(t),
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vecs, err := e.Embed(context.Background(), cacheTexts)
	if err != nil {
		t.Fatal(err)
	}
	return vecs, e.run.(*ortRunner).cached
}

// cacheEntries lists the optimised graphs in dir's cache.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ortCacheDir, "*.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkOneValidEntry fails unless the cache holds exactly one entry, keyed
// for the model now in dir and named by its own content.
func checkOneValidEntry(t *testing.T, dir string) string {
	t.Helper()
	entries := cacheEntries(t, dir)
	if len(entries) != 1 {
		t.Fatalf("cache entries %v, want exactly one", entries)
	}
	modelSum, _, err := fileSum(modelPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := fileSum(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	rt, err := loadORT(minilmtest.RequireORT(t))
	if err != nil {
		t.Fatal(err)
	}
	want := ortCacheKey(modelSum, rt.Version()) + "-" + sum[:16] + ".onnx"
	if got := filepath.Base(entries[0]); got != want {
		t.Fatalf("cache entry %s, want %s", got, want)
	}
	return entries[0]
}

func checkSameVectors(t *testing.T, got, want [][]float32, tol float64) {
	t.Helper()
	for i := range want {
		if d := maxAbsDiff32(got[i], want[i]); d > tol {
			t.Errorf("text %d: max abs diff %g > %g", i, d, tol)
		}
	}
}

func TestORTCacheReused(t *testing.T) {
	dir := tinyModel(t)
	first, cached := embedORT(t, dir)
	if cached {
		t.Fatal("first open claims a cache that did not exist")
	}
	entry := checkOneValidEntry(t, dir)
	before, err := os.Stat(entry)
	if err != nil {
		t.Fatal(err)
	}
	second, cached := embedORT(t, dir)
	if !cached {
		t.Error("second open did not use the cache")
	}
	checkSameVectors(t, second, first, 1e-6)
	after, err := os.Stat(entry)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("the cache entry was rewritten on a cache hit")
	}
}

// genTiny writes a tiny model with another seed: same shape, other weights.
func genTiny(t *testing.T, seed string) string {
	t.Helper()
	minilmtest.RequirePythonONNX(t)
	out := t.TempDir()
	cmd := exec.Command(minilmtest.Python, minilmtest.GenModel(), "gen", "--out", out, "--tokenizer", tinyDir, "--seed", seed)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genmodel: %v\n%s", err, b)
	}
	return out
}

func TestORTCacheChangedModel(t *testing.T) {
	dir := tinyModel(t)
	old, _ := embedORT(t, dir)
	other := genTiny(t, "2")
	want, _ := embedORT(t, copyDir(t, other))
	if maxAbsDiff32(old[0], want[0]) < 1e-3 {
		t.Fatal("the two test models give the same vectors; the test cannot tell them apart")
	}
	b, err := os.ReadFile(modelPath(other))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, modelPath(dir), string(b))
	got, cached := embedORT(t, dir)
	if cached {
		t.Error("a changed model loaded a cached graph")
	}
	checkSameVectors(t, got, want, 1e-6)
	checkOneValidEntry(t, dir)
}

func TestORTCacheKey(t *testing.T) {
	base := ortCacheKey("aaaa", "1.23.2")
	tests := []struct {
		name, sum, version string
		same               bool
	}{
		{"same model and runtime", "aaaa", "1.23.2", true},
		{"other model", "aaab", "1.23.2", false},
		{"other runtime version", "aaaa", "1.23.1", false},
		{"newer runtime", "aaaa", "1.24.0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ortCacheKey(tt.sum, tt.version); (got == base) != tt.same {
				t.Errorf("key %s vs %s: same = %v, want %v", got, base, got == base, tt.same)
			}
		})
	}
}

// TestORTCacheOtherRuntime plants, under the key another runtime version
// would use, a valid graph of another model: it must not be loaded, and it is
// removed once this runtime's entry is written.
func TestORTCacheOtherRuntime(t *testing.T) {
	dir := tinyModel(t)
	want, _ := embedORT(t, copyDir(t, dir))
	other := copyDir(t, genTiny(t, "3"))
	embedORT(t, other)
	foreign := checkOneValidEntry(t, other)
	modelSum, _, err := fileSum(modelPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := fileSum(foreign)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, ortCacheDir, ortCacheKey(modelSum, "0.0.1")+"-"+sum[:16]+".onnx")
	if err := os.MkdirAll(filepath.Dir(planted), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, planted, string(b))
	got, cached := embedORT(t, dir)
	if cached {
		t.Error("loaded an entry keyed for another runtime version")
	}
	checkSameVectors(t, got, want, 1e-6)
	if entry := checkOneValidEntry(t, dir); entry == planted {
		t.Error("the other runtime's entry is still there")
	}
}

func TestORTCacheCorrupt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, entry string)
		// hit: the damage leaves the entry usable (only the sums file hurt).
		hit bool
	}{
		{"truncated", func(t *testing.T, entry string) {
			fi, err := os.Stat(entry)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(entry, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"empty", func(t *testing.T, entry string) { writeFile(t, entry, "") }, false},
		{"zero-filled start", func(t *testing.T, entry string) { overwrite(t, entry, 0, make([]byte, 4096)) }, false},
		{"one byte flipped in the weights", func(t *testing.T, entry string) {
			b, err := os.ReadFile(entry)
			if err != nil {
				t.Fatal(err)
			}
			at := int64(len(b) * 3 / 4)
			overwrite(t, entry, at, []byte{b[at] ^ 0x40})
		}, false},
		{"garbage under its own sum", func(t *testing.T, entry string) {
			garbage := strings.Repeat("not an onnx graph\n", 1000)
			if err := os.Remove(entry); err != nil {
				t.Fatal(err)
			}
			sum := sha256Hex(garbage)
			name := filepath.Base(entry)
			key := name[:strings.Index(name, "-")]
			writeFile(t, filepath.Join(filepath.Dir(entry), key+"-"+sum[:16]+".onnx"), garbage)
		}, false},
		{"sums file damaged", func(t *testing.T, entry string) {
			writeFile(t, filepath.Join(filepath.Dir(entry), sumsFile), "{not json")
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tinyModel(t)
			want, _ := embedORT(t, dir)
			tt.damage(t, checkOneValidEntry(t, dir))
			got, cached := embedORT(t, dir)
			if cached != tt.hit {
				t.Errorf("loaded from cache = %v, want %v", cached, tt.hit)
			}
			checkSameVectors(t, got, want, 1e-6)
			checkOneValidEntry(t, dir)
			if _, cached := embedORT(t, dir); !cached {
				t.Error("the rebuilt entry is not used by the next open")
			}
		})
	}
}

func overwrite(t *testing.T, path string, at int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
