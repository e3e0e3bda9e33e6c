package minilm

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// denseBackend wraps gomlx's pure-Go backend so that each dense product,
// activations [..., K] times a weight [K, N...], reaches it as one
// [M, K]·[K, N...] matrix product. gomlx runs its packed AVX-512 matrix
// kernel (its "packgemm" option) only on products of that form; a BERT
// layer's [batch, seq, K]·[K, N] products would otherwise run its blocked
// kernel, about a third as fast on this model's shapes. Only the main
// function is wrapped: the model has no sub-functions or control flow.
type denseBackend struct{ backends.Backend }

func (b denseBackend) Builder(name string) backends.Builder {
	return denseBuilder{b.Backend.Builder(name)}
}

type denseBuilder struct{ backends.Builder }

func (b denseBuilder) Main() backends.Function {
	return denseFunction{Function: b.Builder.Main(), b: b.Builder}
}

// denseFunction reshapes the activations of dense products to two axes and
// the results back; every other op goes straight to the wrapped function.
type denseFunction struct {
	backends.Function
	b backends.Builder
}

func (f denseFunction) DotGeneral(lhs backends.Value, lhsContracting, lhsBatch []int,
	rhs backends.Value, rhsContracting, rhsBatch []int, config backends.DotGeneralConfig) (backends.Value, error) {
	dot := func(x backends.Value) (backends.Value, error) {
		return f.Function.DotGeneral(x, []int{1}, nil, rhs, []int{0}, nil, config)
	}
	ls, err := f.b.OpShape(lhs)
	if err != nil || ls.Rank() <= 2 || len(lhsBatch) != 0 || len(rhsBatch) != 0 ||
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

func (f denseFunction) FusedDense(x, weight, bias backends.Value, activation backends.ActivationType) (backends.Value, error) {
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

func (f denseFunction) FusedAttentionQKVProjection(x, wQKV, biasQ, biasK, biasV backends.Value,
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
func (f denseFunction) flat(x backends.Value, xs shapes.Shape, op func(backends.Value) ([]backends.Value, error)) ([]backends.Value, error) {
	if xs.Rank() <= 2 {
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
