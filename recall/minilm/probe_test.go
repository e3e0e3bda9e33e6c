package minilm

import "testing"

func TestProbe(t *testing.T) {
	noEnv := func(string) string { return "" }
	tests := []struct {
		name    string
		dir     func(t testing.TB) string
		backend string
		want    string // the backend line
	}{
		{"not installed", func(t testing.TB) string { return t.TempDir() }, BackendAuto, "none (model not installed: run 'tmem model pull')"},
		{"pure Go asked for", tinyModel, BackendGo, "go"},
		{"unknown backend", tinyModel, "cuda", `unavailable: unknown backend "cuda" (want auto, go or ort)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir(t)
			mi, err := Info(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := Probe(dir, mi, tt.backend, noEnv).String(); got != tt.want {
				t.Errorf("Probe: %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBackendInfoString(t *testing.T) {
	tests := []struct {
		name string
		info BackendInfo
		want string
	}{
		{"onnx runtime", BackendInfo{Backend: "ort", Runtime: "onnx runtime 1.22.0 (libonnxruntime.so)"}, "ort, onnx runtime 1.22.0 (libonnxruntime.so)"},
		{"fallback", BackendInfo{Backend: "go", Fallback: "no ONNX Runtime library found"}, "go (pure Go: no ONNX Runtime library found)"},
		{"pure Go asked for", BackendInfo{Backend: "go"}, "go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.info.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
