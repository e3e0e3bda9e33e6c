package minilm

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// rewriteBackend wraps gomlx's pure-Go backend and rewrites ops of the main
// function as the graph hands them over; everything else, and every other
// function (the model has none), goes straight through.
//
// With flatDense, each dense product, activations [..., K] times a weight
// [K, N...], reaches gomlx as one [M, K]·[K, N...] matrix product. gomlx
// runs its packed AVX-512 matrix kernel (its "packgemm" option) only on
// products of that form; a BERT layer's [batch, seq, K]·[K, N] products
// would otherwise run its blocked kernel, about a third as fast on this
// model's shapes.
//
// With fuse, layer norm, a dense layer's bias and exact GELU, spelled as
// chains of small ops, run as gomlx's fused ops (gofuse.go). With split of
// 2 or more, attention runs in that many independent parts (gosplit.go).
//
// Always, x to the power of a scalar that holds 2 becomes x·x, which gives
// the same float32 values: layer norm's square costs gomlx a float64
// math.Pow per element otherwise.
//
// Scalars are known by value when they are constants or parameters named
// in scalars (the model's weights, which reach the graph as parameters).
type rewriteBackend struct {
	backends.Backend
	flatDense bool
	fuse      bool
	split     int // parts attention runs in; below 2, none
	splitMin  int // elements of a batched product's result that make it split
	scalars   map[string]float32
}

// Builder is the wrapped backend's, for the main function with b's
// rewrites. (gomlx compares backends, builders and functions, hence the
// pointers.)
func (b *rewriteBackend) Builder(name string) backends.Builder {
	return &rewriteBuilder{Builder: b.Backend.Builder(name), cfg: b, scalars: map[backends.Value]float32{},
		facts: map[backends.Value]fact{}, splits: map[backends.Value]split{}}
}

type rewriteBuilder struct {
	backends.Builder
	cfg     *rewriteBackend
	scalars map[backends.Value]float32 // float32 scalars of known value
	facts   map[backends.Value]fact    // see gofuse.go
	splits  map[backends.Value]split   // see gosplit.go
}

func (b *rewriteBuilder) Main() backends.Function {
	return rewriteFunction{Function: b.Builder.Main(), b: b}
}

// rewriteFunction is the main function with rewriteBackend's rewrites.
type rewriteFunction struct {
	backends.Function
	b *rewriteBuilder
}

func (f rewriteFunction) Parameter(name string, shape shapes.Shape, sharding *backends.ShardingSpec) (backends.Value, error) {
	v, err := f.Function.Parameter(name, shape, sharding)
	if x, ok := f.b.cfg.scalars[name]; err == nil && ok && shape.IsScalar() && shape.DType == dtypes.Float32 {
		f.b.scalars[v] = x
	}
	return v, err
}

func (f rewriteFunction) Constant(flat any, dims ...int) (backends.Value, error) {
	v, err := f.Function.Constant(flat, dims...)
	if x, ok := flat.([]float32); err == nil && ok && len(dims) == 0 && len(x) == 1 {
		f.b.scalars[v] = x[0]
	}
	return v, err
}

func (f rewriteFunction) Pow(x, y backends.Value) (backends.Value, error) {
	if f.scalarIs(y, 2) {
		return f.Mul(x, x)
	}
	return f.Function.Pow(x, y)
}

func (f rewriteFunction) DotGeneral(lhs backends.Value, lhsContracting, lhsBatch []int,
	rhs backends.Value, rhsContracting, rhsBatch []int, config backends.DotGeneralConfig) (backends.Value, error) {
	if v, ok, err := f.splitDot(lhs, lhsContracting, lhsBatch, rhs, rhsContracting, rhsBatch, config); ok {
		return v, err
	}
	ls, err1 := f.b.OpShape(lhs)
	rs, err2 := f.b.OpShape(rhs)
	if err1 != nil || err2 != nil || ls.Rank() == 0 || len(lhsBatch) != 0 || len(rhsBatch) != 0 ||
		!slices.Equal(lhsContracting, []int{ls.Rank() - 1}) || !slices.Equal(rhsContracting, []int{0}) {
		return f.Function.DotGeneral(lhs, lhsContracting, lhsBatch, rhs, rhsContracting, rhsBatch, config)
	}
	outs, err := f.flat(lhs, ls, func(x backends.Value) ([]backends.Value, error) {
		xs, err := f.b.OpShape(x)
		if err != nil {
			return nil, err
		}
		v, err := f.Function.DotGeneral(x, []int{xs.Rank() - 1}, nil, rhs, []int{0}, nil, config)
		return []backends.Value{v}, err
	})
	if err != nil {
		return nil, err
	}
	if rs.Rank() != 2 {
		return outs[0], nil
	}
	return f.note(outs[0], nil, fact{kind: factDense, x: lhs, w: rhs})
}

func (f rewriteFunction) FusedDense(x, weight, bias backends.Value, activation backends.ActivationType) (backends.Value, error) {
	xs, err := f.b.OpShape(x)
	if err != nil {
		return nil, err
	}
	outs, err := f.flat(x, xs, func(x backends.Value) ([]backends.Value, error) {
		v, err := f.Function.FusedDense(x, weight, bias, activation)
		return []backends.Value{v}, err
	})
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

func (f rewriteFunction) FusedAttentionQKVProjection(x, wQKV, biasQ, biasK, biasV backends.Value,
	queryDim, keyValueDim int) (query, key, value backends.Value, err error) {
	xs, err := f.b.OpShape(x)
	if err != nil {
		return nil, nil, nil, err
	}
	outs, err := f.flat(x, xs, func(x backends.Value) ([]backends.Value, error) {
		q, k, v, err := f.Function.FusedAttentionQKVProjection(x, wQKV, biasQ, biasK, biasV, queryDim, keyValueDim)
		return []backends.Value{q, k, v}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return outs[0], outs[1], outs[2], nil
}

// flat runs op on x reshaped from [d0, ..., dk, K] to [d0·…·dk, K] and
// gives each result, [d0·…·dk, N...], back its leading axes [d0, ..., dk,
// N...]. x of rank 2 or less goes to op as it is.
func (f rewriteFunction) flat(x backends.Value, xs shapes.Shape, op func(backends.Value) ([]backends.Value, error)) ([]backends.Value, error) {
	if !f.b.cfg.flatDense || xs.Rank() <= 2 {
		return op(x)
	}
	lead := xs.Dimensions[:xs.Rank()-1]
	x2, err := f.Reshape(x, xs.Size()/xs.Dimensions[xs.Rank()-1], xs.Dimensions[xs.Rank()-1])
	if err != nil {
		return nil, err
	}
	outs, err := op(x2)
	if err != nil {
		return nil, err
	}
	for i, o := range outs {
		os, err := f.b.OpShape(o)
		if err != nil {
			return nil, err
		}
		if outs[i], err = f.Reshape(o, append(slices.Clone(lead), os.Dimensions[1:]...)...); err != nil {
			return nil, err
		}
	}
	return outs, nil
}
