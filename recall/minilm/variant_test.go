package minilm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

func TestSelectInt8(t *testing.T) {
	tests := []struct {
		name    string
		cpu     CPUFeatures
		want    string
		wantErr string
	}{
		{"avx512 vnni and avx2", CPUFeatures{AVX512VNNI: true, AVX2: true}, "model_qint8_avx512_vnni.onnx", ""},
		{"avx512 vnni alone", CPUFeatures{AVX512VNNI: true}, "model_qint8_avx512_vnni.onnx", ""},
		{"avx2 alone", CPUFeatures{AVX2: true}, "model_quint8_avx2.onnx", ""},
		{"neither", CPUFeatures{}, "", "no int8 export fits this CPU (they need AVX-512 VNNI or AVX2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Pinned.SelectInt8(tt.cpu)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != tt.want || f.Path != "onnx/"+tt.want {
				t.Errorf("picked %s (%s), want %s", f.Name, f.Path, tt.want)
			}
		})
	}
}

// int8Manifest is testManifest with two int8 exports served beside it.
func int8Manifest(files map[string][]byte) Manifest {
	m := testManifest(files)
	for _, v := range []struct{ feature, name string }{{"avx512_vnni", "model_qint8_avx512_vnni.onnx"}, {"avx2", "model_quint8_avx2.onnx"}} {
		sum := sha256.Sum256(files[v.name])
		m.Int8 = append(m.Int8, Int8File{v.feature, File{v.name, "onnx/" + v.name, int64(len(files[v.name])), hex.EncodeToString(sum[:])}})
	}
	return m
}

// TestPullVariant: int8 fetches only the export the CPU picks, in place of
// model.onnx, and makes it the model to run; fp32 goes back.
func TestPullVariant(t *testing.T) {
	files := testFiles()
	files["model_qint8_avx512_vnni.onnx"] = []byte("vnni export")
	files["model_quint8_avx2.onnx"] = []byte("avx2 export")
	m := int8Manifest(files)
	tests := []struct {
		name      string
		variant   string
		cpu       CPUFeatures
		wantModel string
		wantErr   string
	}{
		{"int8 on avx512 vnni", VariantInt8, CPUFeatures{AVX512VNNI: true, AVX2: true}, "model_qint8_avx512_vnni.onnx", ""},
		{"int8 on avx2", VariantInt8, CPUFeatures{AVX2: true}, "model_quint8_avx2.onnx", ""},
		{"int8 on neither", VariantInt8, CPUFeatures{}, "", "no int8 export fits this CPU"},
		{"unknown variant", "int4", CPUFeatures{AVX2: true}, "", `unknown model variant "int4"`},
		{"fp32", VariantFP32, CPUFeatures{AVX2: true}, "model.onnx", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, srv := newHub(t, files)
			for _, name := range []string{"model_qint8_avx512_vnni.onnx", "model_quint8_avx2.onnx"} {
				h.body["onnx/"+name] = files[name]
			}
			dir := t.TempDir()
			cpu := tt.cpu
			err := Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client(), Variant: tt.variant, CPU: &cpu})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if h.requests != 0 {
					t.Errorf("%d requests made for a variant that cannot be installed", h.requests)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			requireVariant(t, m, dir, tt.wantModel)
			if h.requests != len(m.Files) {
				t.Errorf("%d requests, want one per file of the variant (%d)", h.requests, len(m.Files))
			}
		})
	}
}

// TestPullVariantSwitch: switching back and forth leaves the folder
// running what the last pull asked for.
func TestPullVariantSwitch(t *testing.T) {
	files := testFiles()
	files["model_qint8_avx512_vnni.onnx"] = []byte("vnni export")
	files["model_quint8_avx2.onnx"] = []byte("avx2 export")
	m := int8Manifest(files)
	h, srv := newHub(t, files)
	h.body["onnx/model_quint8_avx2.onnx"] = files["model_quint8_avx2.onnx"]
	dir := t.TempDir()
	cpu := CPUFeatures{AVX2: true}
	for _, step := range []struct{ variant, want string }{
		{VariantFP32, "model.onnx"},
		{VariantInt8, "model_quint8_avx2.onnx"},
		{VariantFP32, "model.onnx"},
	} {
		if err := Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client(), Variant: step.variant, CPU: &cpu}); err != nil {
			t.Fatalf("pull %s: %v", step.variant, err)
		}
		requireVariant(t, m, dir, step.want)
	}
}

// requireVariant checks that dir is complete with model as its model file.
func requireVariant(t *testing.T, m Manifest, dir, model string) {
	t.Helper()
	if got, err := activeModel(dir); err != nil || got != model {
		t.Errorf("active model = %q, %v; want %q", got, err, model)
	}
	info, err := m.Info(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Complete || info.Model != model {
		t.Errorf("info: complete %v, model %q; want complete with %q (%+v)", info.Complete, info.Model, model, info.Files)
	}
}

// TestInt8Embedder: an int8 model runs on ONNX Runtime only, has its own
// identity, and gives vectors close to the fp32 model's.
func TestInt8Embedder(t *testing.T) {
	dir := tinyModel(t)
	fp32ID, err := Identity(dir)
	if err != nil {
		t.Fatal(err)
	}
	const file = "model_qint8_avx512_vnni.onnx"
	minilmtest.Quantize(t, filepath.Join(dir, "model.onnx"), filepath.Join(dir, file), "int8")
	if err := setActiveModel(dir, file); err != nil {
		t.Fatal(err)
	}
	int8ID, err := Identity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if int8ID == fp32ID {
		t.Errorf("int8 and fp32 share the identity %s", fp32ID)
	}
	nolib := func(string) string { return "" }
	for _, tt := range []struct{ name, backend, lib, wantErr string }{
		{"go backend", BackendGo, "", file + " is an int8 model, which only ONNX Runtime runs"},
		{"auto without a runtime", BackendAuto, filepath.Join(t.TempDir(), "libonnxruntime.so"), file + " needs ONNX Runtime: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Open(Options{ModelDir: dir, Backend: tt.backend, ORTLib: tt.lib, Getenv: nolib})
			if err == nil {
				e.Close()
				t.Fatalf("opened on %s", e.Backend())
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	t.Run("onnx runtime", func(t *testing.T) {
		lib := minilmtest.RequireORT(t)
		texts := []string{"The cat sits on the mat", "bulk container lookups go through one endpoint"}
		q := embedWith(t, Options{ModelDir: dir, Backend: BackendAuto, ORTLib: lib, Getenv: nolib}, texts)
		if err := setActiveModel(dir, fp32Model); err != nil {
			t.Fatal(err)
		}
		f := embedWith(t, Options{ModelDir: dir, Backend: BackendORT, ORTLib: lib, Getenv: nolib}, texts)
		for i := range texts {
			if c := cosine(q[i], f[i]); c < 0.99 {
				t.Errorf("text %d: int8 vs fp32 cosine %.4f < 0.99", i, c)
			}
			if maxAbsDiff32(q[i], f[i]) == 0 {
				t.Errorf("text %d: int8 vector equals the fp32 one: the int8 model did not run", i)
			}
		}
	})
}

// embedWith opens a model, checks it runs on ONNX Runtime, and embeds texts.
func embedWith(t *testing.T, o Options, texts []string) [][]float32 {
	t.Helper()
	e, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Backend() != BackendORT {
		t.Fatalf("backend %s (fallback: %s)", e.Backend(), e.Fallback())
	}
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestActiveModelRejectsBadVariantFile: a damaged variant file is an error
// that names it, never a path outside the folder.
func TestActiveModelRejectsBadVariantFile(t *testing.T) {
	for _, tt := range []struct{ name, content string }{
		{"empty", ""},
		{"parent folder", "../model.onnx"},
		{"absolute path", "/etc/passwd"},
		{"not a model file", "tokenizer.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, variantFile), tt.content+"\n")
			_, err := activeModel(dir)
			if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, variantFile)) {
				t.Errorf("err = %v, want one naming the variant file", err)
			}
			if _, err := os.Stat(filepath.Join(dir, variantFile)); err != nil {
				t.Error(err)
			}
		})
	}
}
