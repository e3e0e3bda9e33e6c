package minilm

import (
	"os"
	"os/exec"
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
// says why; asking for ort explicitly is an error that says the same. A
// process keeps the first runtime it loads, and an earlier test (or -count
// round) may have loaded one, so the checks run in a fresh process.
func TestAutoFallsBack(t *testing.T) {
	if os.Getenv("TMEM_TEST_FRESH_PROCESS") == "" {
		inFreshProcess(t, "TestAutoFallsBack")
		return
	}
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

// inFreshProcess runs the named test again in a new process of this test
// binary, with TMEM_TEST_FRESH_PROCESS set and the given environment, fails
// if it fails or does not run, and returns its output.
func inFreshProcess(t *testing.T, test string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), "TMEM_TEST_FRESH_PROCESS=1"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a fresh process: %v\n%s", test, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+test+" ") {
		t.Fatalf("%s did not pass in the fresh process:\n%s", test, out)
	}
	return string(out)
}
