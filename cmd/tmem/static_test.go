package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// TestStaticBuild builds tmem with the tmem_static tag and without cgo: the
// executable asks for no dynamic loader and no shared library, and it says
// why it embeds on pure Go even where ONNX Runtime's library is at hand.
func TestStaticBuild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("static executables are a Linux build")
	}
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "tmem")
	build := exec.Command("go", "build", "-tags", "tmem_static", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	assertStatic(t, bin)

	model := filepath.Join(t.TempDir(), "tiny")
	if err := os.CopyFS(model, os.DirFS(minilmtest.TinyDir())); err != nil {
		t.Fatal(err)
	}
	lib := os.Getenv("TMEM_ORT_LIB")
	if lib == "" {
		lib = filepath.Join(t.TempDir(), "libonnxruntime.so")
	}
	info := exec.Command(bin, "--model", model, "model", "info")
	info.Env = append(os.Environ(), "TMEM_ORT_LIB="+lib)
	out, err := info.CombinedOutput()
	if err != nil {
		t.Fatalf("model info: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "backend:  go (pure Go: ") || !strings.Contains(string(out), "static build") {
		t.Errorf("model info of a static build does not say it runs pure Go because it is static:\n%s", out)
	}
}

// assertStatic fails unless the ELF file at path names no interpreter and
// needs no shared library.
func assertStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader", path)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", path, libs)
	}
}
