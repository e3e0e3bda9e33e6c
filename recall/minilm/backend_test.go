package minilm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

func TestFindRuntimeOrder(t *testing.T) {
	model := t.TempDir()
	inModel := filepath.Join(model, RuntimeDirName, "libonnxruntime.so.1.23.2")
	if err := os.MkdirAll(filepath.Dir(inModel), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, inModel, "")
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "TMEM_ORT_LIB" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name     string
		explicit string
		env      string
		want     string
	}{
		{"explicit path first", "/opt/a/libonnxruntime.so", "/opt/b/libonnxruntime.so", "/opt/a/libonnxruntime.so"},
		{"then TMEM_ORT_LIB", "", "/opt/b/libonnxruntime.so", "/opt/b/libonnxruntime.so"},
		{"then the model folder", "", "", inModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FindRuntime(tt.explicit, model, env(tt.env)); got != tt.want {
				t.Errorf("FindRuntime = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAutoFallsBack: when ONNX Runtime cannot be used, auto runs pure Go and
// says why; asking for ort explicitly is an error that says the same.
func TestAutoFallsBack(t *testing.T) {
	notALib := filepath.Join(t.TempDir(), "libonnxruntime.so")
	writeFile(t, notALib, "not a shared library")
	tests := []struct {
		name string
		lib  string
		why  string
	}{
		{"library missing", filepath.Join(t.TempDir(), "libonnxruntime.so"), "load onnx runtime"},
		{"not a shared library", notALib, "load onnx runtime " + notALib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tinyModel(t)
			e, err := Open(Options{ModelDir: dir, ORTLib: tt.lib})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if e.Backend() != BackendGo || e.Runtime() != "" {
				t.Errorf("backend %q runtime %q, want go", e.Backend(), e.Runtime())
			}
			if !strings.Contains(e.Fallback(), tt.why) {
				t.Errorf("Fallback() = %q, want it to contain %q", e.Fallback(), tt.why)
			}
			_, err = Open(Options{ModelDir: dir, ORTLib: tt.lib, Backend: BackendORT})
			if err == nil || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("ort backend: err = %v, want it to contain %q", err, tt.why)
			}
		})
	}
}

// TestAutoFindsRuntimeInModelFolder: a library in the model folder's
// onnxruntime folder is used with nothing else configured.
func TestAutoFindsRuntimeInModelFolder(t *testing.T) {
	lib := minilmtest.RequireORT(t)
	dir := tinyModel(t)
	if err := os.MkdirAll(filepath.Join(dir, RuntimeDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(lib, filepath.Join(dir, RuntimeDirName, "libonnxruntime.so")); err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{ModelDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Backend() != BackendORT || e.Fallback() != "" {
		t.Errorf("backend %q (fallback %q), want ort", e.Backend(), e.Fallback())
	}
	if !strings.Contains(e.Runtime(), "1.") {
		t.Errorf("Runtime() = %q, want the runtime's version", e.Runtime())
	}
}
