package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleMemory concatenates the bundled example workspace's Markdown:
// what Scan sees on every context build.
func exampleMemory(b *testing.B) string {
	b.Helper()
	var sb strings.Builder
	err := filepath.WalkDir("../../testdata/example/.teammates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		src, err := os.ReadFile(p)
		sb.Write(src)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return sb.String()
}

func BenchmarkScan(b *testing.B) {
	text := exampleMemory(b)
	if n := len(Scan(text)); n != 0 {
		b.Fatalf("the example workspace has %d findings", n)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Scan(text)
	}
}
