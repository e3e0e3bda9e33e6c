package minilm

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// reference holds what genmodel.py ref computes.
type reference struct {
	IDs     [][]int64   `json:"ids"`
	Vectors [][]float64 `json:"vectors"`
}

// runReference tokenizes and embeds texts with the independent python reference.
func runReference(t testing.TB, modelDir string, texts []string, idsOnly bool) reference {
	t.Helper()
	minilmtest.RequirePythonONNX(t)
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{minilmtest.GenModel(), "ref", "--model", modelDir}
	if idsOnly {
		args = append(args, "--ids-only")
	}
	cmd := exec.Command(minilmtest.Python, args...)
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

// tinyModel copies the committed tiny model into a temp folder, so that the
// sums cache written on open never lands in the source tree.
// openAutoWithLib opens the tiny model with the default (auto) backend
// and TMEM_ORT_LIB pointing at lib, closed when the test ends.
func openAutoWithLib(t *testing.T, lib string) *Embedder {
	t.Helper()
	e, err := Open(Options{ModelDir: tinyModel(t), Getenv: func(k string) string {
		if k == "TMEM_ORT_LIB" {
			return lib
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func tinyModel(t testing.TB) string {
	t.Helper()
	return copyDir(t, tinyDir)
}

// copyDir copies a flat folder into a temp folder.
func copyDir(t testing.TB, src string) string {
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

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// embedOnce opens the model as o says, embeds texts and closes it; the
// closed Embedder is returned for what it recorded.
func embedOnce(t *testing.T, o Options, texts []string) ([][]float32, *Embedder) {
	t.Helper()
	e, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return vecs, e
}
