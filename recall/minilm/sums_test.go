package minilm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func realSum(t *testing.T, path string) string {
	t.Helper()
	sum, _, err := fileSum(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func readSumsFile(t *testing.T, dir string) map[string]cachedSum {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, sumsFile))
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]cachedSum
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCachedSums(t *testing.T) {
	dir := copyDir(t, tinyDir)
	names := []string{"model.onnx", "config.json"}
	model := filepath.Join(dir, "model.onnx")
	want := realSum(t, model)

	got, err := cachedSums(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	if got["model.onnx"] != want {
		t.Fatalf("first sum %s, want %s", got["model.onnx"], want)
	}
	cache := readSumsFile(t, dir)
	if cache["model.onnx"].SHA256 != want || cache["config.json"].SHA256 == "" {
		t.Fatalf("sums file %+v", cache)
	}

	// While the stat data match, the recorded sum is trusted: plant a marker.
	c := cache["model.onnx"]
	c.SHA256 = "planted"
	cache["model.onnx"] = c
	saveSums(dir, cache)
	if got, _ := cachedSums(dir, names); got["model.onnx"] != "planted" {
		t.Fatalf("sum %s, want the cached one", got["model.onnx"])
	}

	// A same-size rewrite with the old mtime put back is still noticed.
	fi, err := os.Stat(model)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff
	time.Sleep(10 * time.Millisecond) // let the inode change time move
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(model, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	got, err = cachedSums(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	if want2 := realSum(t, model); got["model.onnx"] != want2 || want2 == want {
		t.Fatalf("after rewrite sum %s, want %s (old %s)", got["model.onnx"], want2, want)
	}
	if readSumsFile(t, dir)["model.onnx"].SHA256 != got["model.onnx"] {
		t.Error("sums file not refreshed after a re-hash")
	}
}

func TestCachedSumsDamagedOrUnwritable(t *testing.T) {
	dir := copyDir(t, tinyDir)
	want := realSum(t, filepath.Join(dir, "config.json"))
	writeFile(t, filepath.Join(dir, sumsFile), "{not json")
	got, err := cachedSums(dir, []string{"config.json"})
	if err != nil || got["config.json"] != want {
		t.Fatalf("damaged sums file: %v %v", got, err)
	}

	// A sums file that cannot be replaced (here a folder in its place) only
	// means hashing every time.
	dir = copyDir(t, tinyDir)
	os.Remove(filepath.Join(dir, sumsFile))
	if err := os.Mkdir(filepath.Join(dir, sumsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := cachedSums(dir, []string{"config.json"})
		if err != nil || got["config.json"] != want {
			t.Fatalf("unwritable sums file: %v %v", got, err)
		}
	}

	if _, err := cachedSums(dir, []string{"missing.onnx"}); err == nil {
		t.Error("missing file gave no error")
	}
}
