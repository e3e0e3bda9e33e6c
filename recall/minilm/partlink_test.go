package minilm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPullNeverWritesThroughALinkedPartFile: a symlink where a partial
// file goes (model.onnx.part) is never written through: the file it
// points to, outside the model folder, keeps its bytes, and the pull or
// install puts a regular, verified file in place.
func TestPullNeverWritesThroughALinkedPartFile(t *testing.T) {
	files := testFiles()
	m := testManifest(files)
	src := t.TempDir()
	for name, b := range files {
		writeFile(t, filepath.Join(src, name), string(b))
	}
	_, srv := newHub(t, files)
	tests := []struct {
		name string
		run  func(dir string) error
	}{
		{"pull", func(dir string) error {
			return Pull(context.Background(), PullOptions{BaseURL: srv.URL, Dir: dir, Manifest: &m, HTTPClient: srv.Client()})
		}},
		{"install from a folder", func(dir string) error { return m.Install(src, dir) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := filepath.Join(t.TempDir(), "precious")
			const keep = "not the model's to change"
			writeFile(t, outside, keep)
			dir := t.TempDir()
			if err := os.Symlink(outside, filepath.Join(dir, "model.onnx.part")); err != nil {
				t.Fatal(err)
			}
			if err := tt.run(dir); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if b, err := os.ReadFile(outside); err != nil || string(b) != keep {
				t.Errorf("the link's target now holds %d bytes (%v), want its own %q", len(b), err, keep)
			}
			if st, err := os.Lstat(filepath.Join(dir, "model.onnx")); err != nil || !st.Mode().IsRegular() {
				t.Errorf("model.onnx: %v; want a regular file", describeMode(st, err))
			}
			requireComplete(t, m, dir)
		})
	}
}

// describeMode names what an Lstat found.
func describeMode(st os.FileInfo, err error) string {
	if err != nil {
		return err.Error()
	}
	return st.Mode().String()
}
