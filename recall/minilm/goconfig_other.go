//go:build !(amd64 && goexperiment.simd)

package minilm

import "runtime"

// defaultGoConfig is the Go backend's setup in every build but a
// GOEXPERIMENT=simd one on amd64: gomlx has no vectorised matrix kernel
// there, and its packed one ("packgemm") is slower than its default
// (BenchmarkGoConfigs), so gomlx's default stays, with batches of 8, the
// fused chains and attention in one part per core.
func defaultGoConfig() goConfig {
	return goConfig{options: "go", fuse: true, split: runtime.GOMAXPROCS(0), batch: 8}
}
