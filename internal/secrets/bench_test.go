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

// BenchmarkScanPathological scans 1 MiB of shapes built to make a
// scanner go quadratic: every hint over and over, key headers without
// end, names that never end, quotes that never close, values nested
// under values without end.
func BenchmarkScanPathological(b *testing.B) {
	shapes := []struct{ name, unit string }{
		{"hints", "ghp_ AKIA sk- xoxb- glpat- AIza eyJ :// key= token: pass "},
		{"key-headers", "-----BEGIN PRIVATE KEY-----\n"},
		{"key-headers-one-line", "-----BEGIN RSA PRIVATE KEY-----"},
		{"long-name", "api_key_secret_token_password"},
		{"unclosed-quotes", `token="x `},
		{"assignments", "password=Xk9mQ2vL7pZr "},
		{"url-userinfo", "a://u:p"},
		{"jwt-parts", "eyJhbGciOiJIUzI1NiJ9."},
		{"flow-openers", "token: [a, {"},
		{"nested-blocks", staircase("token:", 64)},
	}
	for _, sh := range shapes {
		text := strings.Repeat(sh.unit, (1<<20)/len(sh.unit))
		b.Run(sh.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Scan(text)
			}
		})
	}
}

// staircase is n lines of line, each indented one space deeper than the
// one before.
func staircase(line string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + line + "\n")
	}
	return b.String()
}
