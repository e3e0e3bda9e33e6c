//go:build amd64 && goexperiment.simd

package minilm

import "simd/archsimd"

// defaultGoConfig: in a GOEXPERIMENT=simd build on a CPU with AVX-512, gomlx's
// packed matrix kernel ("packgemm") has an AVX-512 version, about three times
// as fast on this model's dense products as its blocked kernel once they are
// flattened to two axes, and faster on attention's batched products too
// (BenchmarkGoConfigs). Elsewhere it falls back to a scalar kernel slower
// than the default, so the default stays. On these kernels batches of 4
// beat 8, 16 and 32 (BenchmarkGoBatchSizes).
func defaultGoConfig() goConfig {
	if archsimd.X86.AVX512() {
		return goConfig{options: "go:packgemm", flatDense: true, batch: 4}
	}
	return goConfig{options: "go", batch: 8}
}
