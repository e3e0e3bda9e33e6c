//go:build ort

package minilm

import "testing"

func ortOptions(b *testing.B) Options {
	return Options{Backend: BackendORT, ORTLib: requireORT(b)}
}

func BenchmarkORTLoad(b *testing.B)  { benchLoad(b, ortOptions(b)) }
func BenchmarkORTQuery(b *testing.B) { benchQuery(b, ortOptions(b)) }
func BenchmarkORTChunks(b *testing.B) {
	benchChunksRun(b, ortOptions(b), 32)
}

func BenchmarkORTSentences(b *testing.B) {
	benchSentencesRun(b, ortOptions(b), 32)
}
