package minilm

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// rewriteBackend wraps gomlx's pure-Go backend and rewrites two kinds of op
// of the main function as the graph hands them over; everything else, and
// every other function (the model has none), goes straight through.
//
// With flatDense, each dense product, activations [..., K] times a weight
// [K, N...], reaches gomlx as one [M, K]·[K, N...] matrix product. gomlx
// runs its packed AVX-512 matrix kernel (its "packgemm" option) only on
// products of that form; a BERT layer's [batch, seq, K]·[K, N] products
// would otherwise run its blocked kernel, about a third as fast on this
// model's shapes.
//
// Always, x to the power of a scalar that holds 2, a constant or one of
// twos (parameters known to hold 2: the model's weights), becomes x·x,
// which gives the same float32 values: layer norm's square costs gomlx a
// float64 math.Pow per element otherwise.
type rewriteBackend struct {
	backends.Backend
	flatDense bool
	twos      map[string]bool // parameter names
}

// Builder is the wrapped backend's, for the main function with b's
// rewrites. (gomlx compares backends, builders and functions, hence the
// pointers.)
func (b *rewriteBackend) Builder(name string) backends.Builder {
	return &rewriteBuilder{Builder: b.Backend.Builder(name), cfg: b, squares: map[backends.Value]bool{}}
}

type rewriteBuilder struct {
	backends.Builder
	cfg     *rewriteBackend
	squares map[backends.Value]bool // scalars that hold 2
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
	if err == nil && shape.IsScalar() && f.b.cfg.twos[name] {
		f.b.squares[v] = true
	}
	return v, err
}

func (f rewriteFunction) Constant(flat any, dims ...int) (backends.Value, error) {
	v, err := f.Function.Constant(flat, dims...)
	if x, ok := flat.([]float32); err == nil && ok && len(dims) == 0 && len(x) == 1 && x[0] == 2 {
		f.b.squares[v] = true
	}
	return v, err
}

func (f rewriteFunction) Pow(x, y backends.Value) (backends.Value, error) {
	if f.b.squares[y] {
		return f.Mul(x, x)
	}
	return f.Function.Pow(x, y)
}

func (f rewriteFunction) DotGeneral(lhs backends.Value, lhsContracting, lhsBatch []int,
	rhs backends.Value, rhsContracting, rhsBatch []int, config backends.DotGeneralConfig) (backends.Value, error) {
	dot := func(x backends.Value) (backends.Value, error) {
		return f.Function.DotGeneral(x, []int{1}, nil, rhs, []int{0}, nil, config)
	}
	ls, err := f.b.OpShape(lhs)
	if err != nil || !f.b.cfg.flatDense || ls.Rank() <= 2 || len(lhsBatch) != 0 || len(rhsBatch) != 0 ||
		!slices.Equal(lhsContracting, []int{ls.Rank() - 1}) || !slices.Equal(rhsContracting, []int{0}) {
		return f.Function.DotGeneral(lhs, lhsContracting, lhsBatch, rhs, rhsContracting, rhsBatch, config)
	}
	outs, err := f.flat(lhs, ls, func(x backends.Value) ([]backends.Value, error) {
		v, err := dot(x)
		return []backends.Value{v}, err
	})
	if err != nil {
		return nil, err
	}
	return outs[0], nil
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
