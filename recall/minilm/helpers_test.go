package minilm

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

const systemPython = "/usr/bin/python3"

// requirePythonONNX skips, or fails under CI=true, when the generator's
// dependencies are missing.
func requirePythonONNX(t testing.TB) {
	t.Helper()
	err := exec.Command(systemPython, "-c", "import onnx, numpy").Run()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("python3-onnx and python3-numpy are required under CI (run .ci/setup-embed): %v", err)
	}
	t.Skipf("needs %s with python3-onnx and python3-numpy (apt-get install python3-onnx python3-numpy): %v", systemPython, err)
}

// reference holds what genmodel.py ref computes.
type reference struct {
	IDs     [][]int64   `json:"ids"`
	Vectors [][]float64 `json:"vectors"`
}

// runReference tokenizes and embeds texts with the independent python reference.
func runReference(t testing.TB, modelDir string, texts []string, idsOnly bool) reference {
	t.Helper()
	requirePythonONNX(t)
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join("testdata", "genmodel.py"), "ref", "--model", modelDir}
	if idsOnly {
		args = append(args, "--ids-only")
	}
	cmd := exec.Command(systemPython, args...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference: %v\n%s", err, stderr.String())
	}
	var ref reference
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("reference output: %v", err)
	}
	return ref
}

var (
	fullModelOnce sync.Once
	fullModelDir  string
	fullModelErr  error
)

// fullModel generates (once per cache) a model of all-MiniLM-L6-v2's shape
// with random weights, for benchmarks. It lives in the user cache folder, or
// $TMEM_TEST_MODEL_CACHE, never in the repository.
func fullModel(t testing.TB) string {
	t.Helper()
	requirePythonONNX(t)
	fullModelOnce.Do(func() {
		base := os.Getenv("TMEM_TEST_MODEL_CACHE")
		if base == "" {
			c, err := os.UserCacheDir()
			if err != nil {
				fullModelErr = err
				return
			}
			base = filepath.Join(c, "tmem-test")
		}
		dir := filepath.Join(base, "minilm-shaped-seed1")
		if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err == nil {
			fullModelDir = dir
			return
		}
		cmd := exec.Command(systemPython, filepath.Join("testdata", "genmodel.py"), "gen",
			"--out", dir, "--tokenizer", filepath.Join("testdata", "tiny"),
			"--hidden", "384", "--layers", "6", "--heads", "12", "--intermediate", "1536")
		if out, err := cmd.CombinedOutput(); err != nil {
			fullModelErr = err
			t.Logf("genmodel: %s", out)
			return
		}
		fullModelDir = dir
	})
	if fullModelErr != nil {
		t.Fatalf("generate MiniLM-shaped model: %v", fullModelErr)
	}
	return fullModelDir
}

// copyDir copies a flat folder into a temp folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dst, e.Name()), string(b))
	}
	return dst
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
