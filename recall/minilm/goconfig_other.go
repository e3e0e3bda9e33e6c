//go:build !(amd64 && goexperiment.simd)

package minilm

// defaultGoConfig: without GOEXPERIMENT=simd gomlx has no vectorised matrix
// kernel, and its packed one ("packgemm") is slower than its default
// (BenchmarkGoConfigs), so the default stays, with batches of 8.
func defaultGoConfig() goConfig { return goConfig{options: "go", batch: 8} }
