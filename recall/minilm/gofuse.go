package minilm

import (
	"math"
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
)

// rewriteBackend's fusions. An opset-14 BERT export spells layer norm, a
// dense layer's bias and exact GELU as chains of small ops, each of which
// gomlx's pure-Go backend runs as a pass over the whole tensor (the
// broadcasting ones through a per-element index iterator); it has fused
// kernels for all three. The graph hands ops over one at a time, so
// rewriteFunction notes, for each value it returns, which step of which
// chain it is (a fact), and when a chain's last op arrives it emits the
// fused op in its place. The chain's earlier ops stay in the function but
// nothing uses them, and gomlx never runs an op its outputs do not need.
//
// The chains, as onnx-gomlx converts them:
//
//	layer norm: m = ReduceSum(x)·(1/n) kept as [..., 1]; d = x − m;
//	            v = ReduceSum(d·d)·(1/n) kept as [..., 1];
//	            d / Sqrt(v + eps) · gamma + beta
//	bias:       DotGeneral(x, w) + b, a dense product and a vector
//	exact GELU: x · (1 + Erf(x / √2)) · 0.5 (or x·0.5 · (1 + …))
//
// GELU of a dense product with a bias becomes one FusedDense with GELU.

// factKind is which step of a chain a value is the result of.
type factKind uint8

const (
	factNone         factKind = iota
	factVec                   // the vector x reshaped to [1, ..., 1, n]
	factSum                   // x summed over its last axis
	factMeanFlat              // x's mean over its last axis, which is dropped
	factMean                  // x's mean over its last axis, kept as size 1
	factCentered              // x − mean(x)
	factSquare                // x·x for x centered
	factVarEps                // mean(x·x) + eps for x centered
	factStd                   // Sqrt of that
	factNormed                // (x − mean(x)) / std
	factScaled                // that · gamma (w)
	factDense                 // x·w, contracting x's last axis and w's first
	factBiased                // x·w + b
	factGeluArg               // x / √2
	factGeluErf               // Erf(x / √2)
	factGeluOnePlus           // 1 + Erf(x / √2)
	factGeluHalf              // x · 0.5
	factGeluUnscaled          // x · (1 + Erf(x / √2))
)

// fact is what rewriteFunction knows about one value: the step of a chain
// it is the result of, with the chain's input x and what the step needs.
type fact struct {
	kind factKind
	x    backends.Value
	w, b backends.Value // weight and bias, or layer norm's gamma (w)
	eps  float64
}

// binOp is one of the binary ops fusions look at.
type binOp uint8

const (
	opAdd binOp = iota
	opSub
	opMul
	opDiv
)

func (f rewriteFunction) is(v backends.Value, k factKind) (fact, bool) {
	ft, ok := f.b.facts[v]
	return ft, ok && ft.kind == k
}

// note records ft about v, the result of an op, unless fusing is off, the
// op failed, ft says nothing or v is not float32 (the fused ops' dtype).
func (f rewriteFunction) note(v backends.Value, err error, ft fact) (backends.Value, error) {
	if err != nil || !f.b.cfg.fuse || ft.kind == factNone {
		return v, err
	}
	if s, err := f.b.OpShape(v); err == nil && s.DType == dtypes.Float32 {
		f.b.facts[v] = ft
	}
	return v, nil
}

// scalarIs reports whether v is a scalar known to hold x.
func (f rewriteFunction) scalarIs(v backends.Value, x float32) bool {
	c, ok := f.b.scalars[v]
	return ok && c == x
}

// lastDim is the size of v's last axis, or -1 for a scalar or an error.
func (f rewriteFunction) lastDim(v backends.Value) int {
	s, err := f.b.OpShape(v)
	if err != nil || s.Rank() == 0 {
		return -1
	}
	return s.Dimensions[s.Rank()-1]
}

// vecOf is the vector v broadcasts along x's last axis, or nil: v is that
// vector (rank 1) or a factVec of it, of x's last dimension, with no more
// axes than x.
func (f rewriteFunction) vecOf(v, x backends.Value) backends.Value {
	vs, err1 := f.b.OpShape(v)
	xs, err2 := f.b.OpShape(x)
	if err1 != nil || err2 != nil || vs.Rank() == 0 || vs.Rank() > xs.Rank() || vs.Size() != xs.Dimensions[xs.Rank()-1] {
		return nil
	}
	if vs.Rank() == 1 {
		return v
	}
	if ft, ok := f.is(v, factVec); ok {
		return ft.x
	}
	return nil
}

// fuseBinary emits the fused op of the chain x op y ends, if it ends one.
func (f rewriteFunction) fuseBinary(op binOp, x, y backends.Value) (backends.Value, bool, error) {
	if !f.b.cfg.fuse || (op != opAdd && op != opMul) {
		return nil, false, nil
	}
	for _, p := range [2][2]backends.Value{{x, y}, {y, x}} {
		a, c := p[0], p[1]
		ft := f.b.facts[a]
		switch {
		case op == opAdd && ft.kind == factScaled && f.vecOf(c, a) != nil:
			s, err := f.b.OpShape(ft.x)
			if err != nil {
				return nil, true, err
			}
			v, err := f.FusedLayerNorm(ft.x, []int{s.Rank() - 1}, ft.eps, ft.w, f.vecOf(c, a))
			return v, true, err
		case op == opAdd && ft.kind == factDense && f.vecOf(c, a) != nil:
			bias := f.vecOf(c, a)
			v, err := f.FusedDense(ft.x, ft.w, bias, backends.ActivationNone)
			v, err = f.note(v, err, fact{kind: factBiased, x: ft.x, w: ft.w, b: bias})
			return v, true, err
		case op == opMul && ft.kind == factGeluUnscaled && f.scalarIs(c, 0.5):
			v, err := f.gelu(ft.x)
			return v, true, err
		case op == opMul && ft.kind == factGeluHalf:
			if o, ok := f.is(c, factGeluOnePlus); ok && o.x == ft.x {
				v, err := f.gelu(ft.x)
				return v, true, err
			}
		}
	}
	return nil, false, nil
}

// gelu is exact GELU of x: one FusedDense with GELU when x is a dense
// product with a bias, else FusedGelu.
func (f rewriteFunction) gelu(x backends.Value) (backends.Value, error) {
	if d, ok := f.is(x, factBiased); ok {
		return f.FusedDense(d.x, d.w, d.b, backends.ActivationGelu)
	}
	return f.FusedGelu(x, true)
}

// binaryFact is what x op y is a step of, if anything.
func (f rewriteFunction) binaryFact(op binOp, x, y backends.Value) fact {
	if !f.b.cfg.fuse {
		return fact{}
	}
	fx, fy := f.b.facts[x], f.b.facts[y]
	switch op {
	case opSub:
		if fy.kind == factMean && fy.x == x {
			return fact{kind: factCentered, x: x}
		}
	case opDiv:
		switch {
		case fx.kind == factSum && f.scalarIs(y, float32(f.lastDim(fx.x))):
			return fact{kind: factMeanFlat, x: fx.x}
		case fx.kind == factCentered && fy.kind == factStd && fy.x == x:
			return fact{kind: factNormed, x: fx.x, eps: fy.eps}
		case f.scalarIs(y, float32(math.Sqrt2)):
			return fact{kind: factGeluArg, x: x}
		}
	case opAdd, opMul:
		if ft := f.commutativeFact(op, x, y); ft.kind != factNone {
			return ft
		}
		return f.commutativeFact(op, y, x)
	}
	return fact{}
}

// commutativeFact is binaryFact of x op y for Add and Mul, with x the
// operand the chain runs through.
func (f rewriteFunction) commutativeFact(op binOp, x, y backends.Value) fact {
	fx, fy := f.b.facts[x], f.b.facts[y]
	if op == opAdd {
		switch sq := f.b.facts[fx.x]; {
		case fx.kind == factMean && sq.kind == factSquare && f.isScalar(y):
			return fact{kind: factVarEps, x: sq.x, eps: float64(f.b.scalars[y])}
		case fx.kind == factGeluErf && f.scalarIs(y, 1):
			return fact{kind: factGeluOnePlus, x: fx.x}
		}
		return fact{}
	}
	switch {
	case fx.kind == factSum && f.scalarIs(y, float32(1/float64(f.lastDim(fx.x)))):
		return fact{kind: factMeanFlat, x: fx.x}
	case fx.kind == factCentered && x == y:
		return fact{kind: factSquare, x: x}
	case fx.kind == factNormed && f.vecOf(y, x) != nil:
		return fact{kind: factScaled, x: fx.x, w: f.vecOf(y, x), eps: fx.eps}
	case fy.kind == factGeluOnePlus && fy.x == x:
		return fact{kind: factGeluUnscaled, x: x}
	case f.scalarIs(y, 0.5):
		return fact{kind: factGeluHalf, x: x}
	case f.scalarIs(y, float32(1/math.Sqrt2)):
		return fact{kind: factGeluArg, x: x}
	}
	return fact{}
}

func (f rewriteFunction) isScalar(v backends.Value) bool {
	_, ok := f.b.scalars[v]
	return ok
}

// reshapeFact is what Reshape(x, dims) is a step of, if anything.
func (f rewriteFunction) reshapeFact(x backends.Value, dims []int) fact {
	xs, err := f.b.OpShape(x)
	if !f.b.cfg.fuse || err != nil || len(dims) == 0 {
		return fact{}
	}
	if xs.Rank() == 1 && dims[len(dims)-1] == xs.Size() && prod(dims) == xs.Size() {
		return fact{kind: factVec, x: x}
	}
	if m, ok := f.is(x, factMeanFlat); ok {
		ms, err := f.b.OpShape(m.x)
		if err == nil && len(dims) == ms.Rank() && dims[len(dims)-1] == 1 && slices.Equal(dims[:len(dims)-1], ms.Dimensions[:ms.Rank()-1]) {
			return fact{kind: factMean, x: m.x}
		}
	}
	return fact{}
}

// reduceSumFact is what ReduceSum(x, axes...) is a step of, if anything.
func (f rewriteFunction) reduceSumFact(x backends.Value, axes []int) fact {
	xs, err := f.b.OpShape(x)
	if err == nil && xs.Rank() > 0 && len(axes) == 1 && axes[0] == xs.Rank()-1 {
		return fact{kind: factSum, x: x}
	}
	return fact{}
}

func prod(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

func (f rewriteFunction) Add(x, y backends.Value) (backends.Value, error) {
	return f.binary(opAdd, f.Function.Add, x, y)
}

func (f rewriteFunction) Sub(x, y backends.Value) (backends.Value, error) {
	return f.binary(opSub, f.Function.Sub, x, y)
}

func (f rewriteFunction) Mul(x, y backends.Value) (backends.Value, error) {
	return f.binary(opMul, f.Function.Mul, x, y)
}

func (f rewriteFunction) Div(x, y backends.Value) (backends.Value, error) {
	return f.binary(opDiv, f.Function.Div, x, y)
}

// binary is x op y (gomlx's do) with rewriteFunction's fusions and splits.
func (f rewriteFunction) binary(op binOp, do func(x, y backends.Value) (backends.Value, error), x, y backends.Value) (backends.Value, error) {
	if v, ok, err := f.fuseBinary(op, x, y); ok {
		return v, err
	}
	if v, ok, err := f.splitBinary(do, x, y); ok {
		return v, err
	}
	v, err := do(x, y)
	return f.note(v, err, f.binaryFact(op, x, y))
}

func (f rewriteFunction) Reshape(x backends.Value, dims ...int) (backends.Value, error) {
	v, err := f.Function.Reshape(x, dims...)
	return f.note(v, err, f.reshapeFact(x, dims))
}

func (f rewriteFunction) ReduceSum(x backends.Value, axes ...int) (backends.Value, error) {
	v, err := f.Function.ReduceSum(x, axes...)
	return f.note(v, err, f.reduceSumFact(x, axes))
}

func (f rewriteFunction) Sqrt(x backends.Value) (backends.Value, error) {
	v, err := f.Function.Sqrt(x)
	if ft, ok := f.is(x, factVarEps); ok {
		return f.note(v, err, fact{kind: factStd, x: ft.x, eps: ft.eps})
	}
	return v, err
}

func (f rewriteFunction) Erf(x backends.Value) (backends.Value, error) {
	v, err := f.Function.Erf(x)
	if ft, ok := f.is(x, factGeluArg); ok {
		return f.note(v, err, fact{kind: factGeluErf, x: ft.x})
	}
	return v, err
}
