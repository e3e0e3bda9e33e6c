//go:build unix

package minilm

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFilesDoNotHang puts a FIFO where each file of a model folder
// goes: nothing may block on it, and what cannot be used says which file
// is wrong.
func TestSpecialFilesDoNotHang(t *testing.T) {
	tests := []struct {
		file string
		want string // "" when the model still opens
	}{
		{"model.onnx", "model.onnx: not a regular file (a named pipe (FIFO))"},
		{"config.json", "config.json: not a regular file (a named pipe (FIFO))"},
		{"tokenizer.json", "tokenizer.json: not a regular file (a named pipe (FIFO))"},
		{variantFile, variantFile + ": not a regular file (a named pipe (FIFO))"},
		{sumsFile, ""}, // a damaged sums file only costs hashing again
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			dir := copyDir(t, tinyDir)
			fifo(t, filepath.Join(dir, tt.file))
			err := within(t, func() error {
				e, err := Open(Options{ModelDir: dir, Backend: BackendGo})
				if err == nil {
					e.Close()
				}
				return err
			})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Open: %v, want the model opened", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Open: %v, want an error with %q", err, tt.want)
			}
		})
	}
	t.Run("runtime library", func(t *testing.T) {
		lib := filepath.Join(t.TempDir(), "libonnxruntime.so")
		fifo(t, lib)
		err := within(t, func() error {
			_, err := Open(Options{ModelDir: tinyModel(t), Backend: BackendORT, ORTLib: lib})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), ": not a regular file") {
			t.Errorf("Open with a FIFO for the runtime: %v", err)
		}
	})
}

// fifo replaces path with a named pipe no one writes to.
func fifo(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// within runs f, failing the test if it has not returned after a minute
// (a blocked open never returns).
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("still blocked after a minute")
		return nil
	}
}
