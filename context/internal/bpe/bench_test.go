package bpe

import (
	"strings"
	"testing"
)

// BenchmarkFirstCount is what a process pays before its first count:
// opening the table and the split pattern, then one short text.
//
//	go test ./context/internal/bpe -run '^$' -bench .
func BenchmarkFirstCount(b *testing.B) {
	for _, e := range encodings {
		b.Run(e.enc.Name(), func(b *testing.B) {
			for b.Loop() {
				fresh := &Encoding{name: e.enc.name, pattern: e.enc.pattern, raw: e.enc.raw}
				if n, err := fresh.Count("hello world"); err != nil || n != 2 {
					b.Fatalf("Count = %d, %v", n, err)
				}
			}
		})
	}
}

// BenchmarkCount counts the bundled example workspace, against the
// reference tokenizer.
func BenchmarkCount(b *testing.B) {
	text := strings.Join(exampleFiles(b), "\n")
	for _, e := range encodings {
		ref := reference(b, e.ref)
		b.Run(e.enc.Name(), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := e.enc.Count(text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(e.enc.Name()+"/reference", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := ref.Count(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
