//go:build !(amd64 && goexperiment.simd)

package minilm

// defaultGoConfig is the Go backend's setup in every build but a
// GOEXPERIMENT=simd one on amd64: gomlx has no vectorised matrix kernel
// there, and its packed one ("packgemm") is slower than its default
// (BenchmarkGoConfigs), so gomlx's default stays, with batches of 8.
func defaultGoConfig() goConfig { return goConfig{options: "go", batch: 8} }
