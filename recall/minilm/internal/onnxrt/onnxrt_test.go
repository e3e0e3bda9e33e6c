package onnxrt

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

func TestLoadErrors(t *testing.T) {
	notALib := filepath.Join(t.TempDir(), "libonnxruntime.so")
	if err := os.WriteFile(notALib, []byte("not a shared library"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing file", filepath.Join(t.TempDir(), "libonnxruntime.so"), "onnx runtime"},
		{"not a shared library", notALib, notALib},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load(%s) = %v, want an error containing %q", tt.path, err, tt.want)
			}
		})
	}
}

// TestLoadRefusesATruncatedLibrary: a truncated copy of the real library
// is an error naming the file, not a SIGBUS in the dynamic loader (which
// maps the missing pages and dies touching them).
func TestLoadRefusesATruncatedLibrary(t *testing.T) {
	lib, err := os.ReadFile(minilmtest.RequireORT(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		keep int // bytes kept
	}{
		{"cut after its headers", 4096},
		{"cut at half", len(lib) / 2},
		{"missing its last tenth", len(lib) * 9 / 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "libonnxruntime.so")
			if err := os.WriteFile(p, lib[:tt.keep], 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), p+": damaged library file") {
				t.Fatalf("Load(%s) = %v, want an error naming it as damaged", p, err)
			}
		})
	}
}

// TestSession runs the tiny test model once and checks what Run refuses.
func TestSession(t *testing.T) {
	rt, err := Load(minilmtest.RequireORT(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rt.Version(), "1.") {
		t.Errorf("Version() = %q", rt.Version())
	}
	s, err := rt.NewSession(filepath.Join(minilmtest.TinyDir(), "model.onnx"), tinyInputs, "last_hidden_state",
		SessionOptions{IntraOpThreads: 1, Optimize: OptimizeExtended})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := []int64{101, 7592, 102}
	ones := []int64{1, 1, 1}
	zeros := []int64{0, 0, 0}
	shape := []int64{1, 3}
	out := make([]float32, 3*32)
	tests := []struct {
		name     string
		inputs   [][]int64
		outShape []int64
		out      []float32
		want     string
	}{
		{"good", [][]int64{ids, ones, zeros}, []int64{1, 3, 32}, out, ""},
		{"too few inputs", [][]int64{ids, ones}, []int64{1, 3, 32}, out, "2 inputs, the session takes 3"},
		{"output too small", [][]int64{ids, ones, zeros}, []int64{1, 3, 32}, out[:10], "output: shape [1 3 32] needs 96 elements, got 10"},
		{"wrong output shape", [][]int64{ids, ones, zeros}, []int64{1, 3, 16}, out[:48], "run: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(tt.out)
			err := s.Run(shape, tt.inputs, tt.outShape, tt.out)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Run = %v, want an error containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			nonzero := 0
			for _, v := range tt.out {
				if v != 0 {
					nonzero++
				}
			}
			if nonzero < len(tt.out)/2 {
				t.Errorf("only %d of %d outputs written", nonzero, len(tt.out))
			}
		})
	}
}

// TestMappedSession saves the tiny model optimised in ORT format, runs the
// saved file from a mapping, with and without weight repacking, and
// compares the output with the ONNX file's.
func TestMappedSession(t *testing.T) {
	rt, err := Load(minilmtest.RequireORT(t))
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "model.ort")
	src, err := rt.NewSession(filepath.Join(minilmtest.TinyDir(), "model.onnx"), tinyInputs, "last_hidden_state",
		SessionOptions{IntraOpThreads: 1, Optimize: OptimizeExtended, SaveOptimized: saved})
	if err != nil {
		t.Fatal(err)
	}
	want := runTiny(t, src)
	src.Close()
	for _, noPrepack := range []bool{true, false} {
		t.Run(fmt.Sprintf("no prepacking %v", noPrepack), func(t *testing.T) {
			s, err := rt.NewMappedSession(saved, tinyInputs, "last_hidden_state", SessionOptions{IntraOpThreads: 1, NoPrepack: noPrepack})
			if err != nil {
				t.Fatal(err)
			}
			got := runTiny(t, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("mapped session output differs from the ONNX file's:\n%v\n%v", got[:4], want[:4])
			}
		})
	}
}

func TestMappedSessionErrors(t *testing.T) {
	rt, err := Load(minilmtest.RequireORT(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{"empty.ort": "", "garbage.ort": strings.Repeat("not an ort model\n", 100)}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ name, file, want string }{
		{"missing", "missing.ort", "no such file"},
		{"empty", "empty.ort", "0 bytes, not a model"},
		{"garbage", "garbage.ort", "garbage.ort: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := rt.NewMappedSession(filepath.Join(dir, tt.file), tinyInputs, "last_hidden_state", SessionOptions{IntraOpThreads: 1})
			if err == nil {
				s.Close()
				t.Fatal("NewMappedSession succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "load ") {
				t.Errorf("NewMappedSession: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

var tinyInputs = []string{"input_ids", "attention_mask", "token_type_ids"}

// runTiny runs s on one short input and returns the output.
func runTiny(t *testing.T, s *Session) []float32 {
	t.Helper()
	out := make([]float32, 3*32)
	if err := s.Run([]int64{1, 3}, [][]int64{{101, 7592, 102}, {1, 1, 1}, {0, 0, 0}}, []int64{1, 3, 32}, out); err != nil {
		t.Fatal(err)
	}
	return out
}
