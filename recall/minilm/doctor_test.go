package minilm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// TestCheck: a model folder gives at most one finding, an info line, and
// a complete one none.
func TestCheck(t *testing.T) {
	files := testFiles()
	m := testManifest(files)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // the finding's message contains it; "" for no finding
	}{
		{
			name: "complete",
			setup: func(t *testing.T, dir string) {
				for name, b := range files {
					writeFile(t, filepath.Join(dir, name), string(b))
				}
			},
		},
		{
			name:  "nothing installed",
			setup: func(t *testing.T, dir string) {},
			want:  "no embedding model installed: recall is BM25-only",
		},
		{
			name: "a model other than the pinned one",
			setup: func(t *testing.T, dir string) {
				if err := os.CopyFS(dir, os.DirFS(tinyDir)); err != nil {
					t.Fatal(err)
				}
			},
			want: "embedding model loads but does not match the pinned",
		},
		{
			name: "a folder that cannot be read as a model",
			setup: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, variantFile), "../model.onnx\n")
			},
			want: "is not a model file name",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, dir)
			got := m.Check(dir)
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("findings %v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("findings %v, want one", got)
			}
			f := got[0]
			if f.Path != dir || f.Severity != layout.SevInfo || !strings.Contains(f.Message, tt.want) {
				t.Errorf("finding %+v, want an info line on %s saying %q", f, dir, tt.want)
			}
		})
	}
}
