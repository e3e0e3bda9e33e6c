// Package minilmtest finds the test models of recall/minilm for tests and
// benchmarks in any package: the committed tiny model, the committed small
// upstream files of the pinned model, and a MiniLM-shaped model with random
// weights that is generated on demand and cached outside the repository.
package minilmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Python is the interpreter that has Debian's python3-onnx and python3-numpy.
const Python = "/usr/bin/python3"

// testdata returns recall/minilm/testdata, wherever the calling test runs.
func testdata() string {
	_, file, _, _ := runtime.Caller(0)
	if !filepath.IsAbs(file) {
		panic("minilmtest: source path unknown (built with -trimpath?): " + file)
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// TinyDir is the committed tiny random-weight model (hidden 32, 2 layers).
func TinyDir() string { return filepath.Join(testdata(), "tiny") }

// PinnedDir holds byte copies of the pinned upstream files other than
// model.onnx (config.json and the tokenizer files), for tests that serve or
// install the real model's small files.
func PinnedDir() string { return filepath.Join(testdata(), "pinned") }

// GenModel is the generator and independent reference script.
func GenModel() string { return filepath.Join(testdata(), "genmodel.py") }

// RequirePythonONNX skips, or fails under CI=true, when the generator's
// dependencies are missing.
func RequirePythonONNX(tb testing.TB) {
	tb.Helper()
	err := exec.Command(Python, "-c", "import onnx, numpy").Run()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("python3-onnx and python3-numpy are required under CI (run .ci/setup-embed): %v", err)
	}
	tb.Skipf("needs %s with python3-onnx and python3-numpy (apt-get install python3-onnx python3-numpy): %v", Python, err)
}

var (
	fullOnce sync.Once
	fullDir  string
	fullErr  error
)

// FullModel generates, once per cache, a model of all-MiniLM-L6-v2's shape (6
// layers, hidden 384, vocab 30522) with seeded random weights and the real
// tokenizer files. It lives in $TMEM_TEST_MODEL_CACHE or the user cache
// folder, never in the repository.
func FullModel(tb testing.TB) string {
	tb.Helper()
	RequirePythonONNX(tb)
	fullOnce.Do(func() {
		base := os.Getenv("TMEM_TEST_MODEL_CACHE")
		if base == "" {
			c, err := os.UserCacheDir()
			if err != nil {
				fullErr = err
				return
			}
			base = filepath.Join(c, "tmem-test")
		}
		dir := filepath.Join(base, "minilm-shaped-seed1")
		if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err == nil {
			fullDir = dir
			return
		}
		cmd := exec.Command(Python, GenModel(), "gen",
			"--out", dir, "--tokenizer", TinyDir(),
			"--hidden", "384", "--layers", "6", "--heads", "12", "--intermediate", "1536")
		if out, err := cmd.CombinedOutput(); err != nil {
			fullErr = err
			tb.Logf("genmodel: %s", out)
			return
		}
		fullDir = dir
	})
	if fullErr != nil {
		tb.Fatalf("generate MiniLM-shaped model: %v", fullErr)
	}
	return fullDir
}

// RequireORT returns the ONNX Runtime library named by $TMEM_ORT_LIB. It
// skips, or fails under CI=true, when the variable is unset or names no file.
func RequireORT(tb testing.TB) string {
	tb.Helper()
	lib := os.Getenv("TMEM_ORT_LIB")
	_, err := os.Stat(lib)
	if lib != "" && err == nil {
		return lib
	}
	why := "TMEM_ORT_LIB is not set"
	if lib != "" {
		why = err.Error()
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("needs the ONNX Runtime library under CI (run .ci/setup-embed): %s", why)
	}
	tb.Skipf("needs the ONNX Runtime library: %s (eval \"$(.ci/setup-embed)\" installs onnxruntime-node@1.23.2 and sets it)", why)
	return ""
}

// Quantize writes to out the model file model rewritten with dynamic int8
// quantization by the generator: weights "int8" (signed, as upstream's
// avx512_vnni export) or "uint8" (as its avx2 export).
func Quantize(tb testing.TB, model, out, weights string) {
	tb.Helper()
	RequirePythonONNX(tb)
	cmd := exec.Command(Python, GenModel(), "quantize", "--model", model, "--out", out, "--weights", weights)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("quantize %s: %v\n%s", model, err, b)
	}
}

// FullModelInt8 returns a folder beside FullModel's holding its config and
// tokenizer files and its model quantized with weights ("int8" or "uint8")
// under the name file, generated once per cache.
func FullModelInt8(tb testing.TB, weights, file string) string {
	tb.Helper()
	full := FullModel(tb)
	dir := full + "-" + weights
	if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, name := range []string{"config.json", "tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json"} {
		b, err := os.ReadFile(filepath.Join(full, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	Quantize(tb, filepath.Join(full, "model.onnx"), filepath.Join(dir, file), weights)
	return dir
}
