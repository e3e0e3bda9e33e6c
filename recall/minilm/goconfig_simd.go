//go:build amd64 && goexperiment.simd

package minilm

import (
	"runtime"
	"simd/archsimd"
)

// defaultGoConfig is the Go backend's setup in a GOEXPERIMENT=simd build on
// amd64. With AVX-512, gomlx's packed matrix kernel ("packgemm") has an
// AVX-512 version, about three times as fast on this model's dense products
// as its blocked kernel once they are flattened to two axes, and faster on
// attention's batched products too (BenchmarkGoConfigs); on it, batches of 4
// beat 8, 16 and 32 (BenchmarkGoBatchSizes). Without AVX-512 the packed
// kernel is scalar and slower than gomlx's default, which stays. Either way
// the fused chains and attention in one part per core are faster.
func defaultGoConfig() goConfig {
	if archsimd.X86.AVX512() {
		return goConfig{options: "go:packgemm", flatDense: true, fuse: true, split: runtime.GOMAXPROCS(0), batch: 4}
	}
	return goConfig{options: "go", fuse: true, split: runtime.GOMAXPROCS(0), batch: 8}
}
