package minilm

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// rewriteBackend's split of attention. gomlx's scheduler runs independent
// ops at the same time, but a BERT layer is one chain of ops, and several
// of attention's run on one core: softmax (its exp in float64) and the
// attention mask's broadcasting add among them. Attention is independent
// per text and per head, so with split n, a batched product with a large
// result (the attention scores) runs as n products over parts of its first
// batch axis of size 2 or more, and each op on such a value that keeps that
// axis apart runs per part too: element-wise ops whose other operand is a
// scalar, broadcast along the axis or split the same way, softmax over
// another axis, and the next batched product (the weighted values). Each
// op's parts are also concatenated, which gomlx runs only where an op
// needs the whole value.

// split is a value computed as parts along axis: part i is the slice
// [cuts[i], cuts[i+1]) of it.
type split struct {
	axis  int
	cuts  []int
	parts []backends.Value
}

// splitDot is DotGeneral split along its first batch axis of size 2 or
// more (the same axis of lhs, rhs and the result), if either operand is
// split along it or the result has at least splitMin elements.
func (f rewriteFunction) splitDot(lhs backends.Value, lc, lb []int, rhs backends.Value, rc, rb []int,
	config backends.DotGeneralConfig) (backends.Value, bool, error) {
	if f.b.cfg.split < 2 || len(lb) == 0 {
		return nil, false, nil
	}
	ls, err1 := f.b.OpShape(lhs)
	rs, err2 := f.b.OpShape(rhs)
	if err1 != nil || err2 != nil {
		return nil, false, nil
	}
	axis := -1
	for i := 0; i < len(lb) && lb[i] == i && i < len(rb) && rb[i] == i; i++ {
		if ls.Dimensions[i] >= 2 && rs.Dimensions[i] == ls.Dimensions[i] {
			axis = i
			break
		}
	}
	if axis < 0 {
		return nil, false, nil
	}
	cuts := f.cutsFor(axis, ls.Dimensions[axis], lhs, rhs)
	if cuts == nil && dotSize(ls, lc, rs, rc, rb) < f.b.cfg.splitMin {
		return nil, false, nil
	}
	if cuts == nil {
		cuts = evenCuts(ls.Dimensions[axis], f.b.cfg.split)
	}
	lp, err := f.partsOf(lhs, axis, cuts)
	if err != nil {
		return nil, true, err
	}
	rp, err := f.partsOf(rhs, axis, cuts)
	if err != nil {
		return nil, true, err
	}
	parts := make([]backends.Value, len(lp))
	for i := range lp {
		if parts[i], err = f.Function.DotGeneral(lp[i], lc, lb, rp[i], rc, rb, config); err != nil {
			return nil, true, err
		}
	}
	v, err := f.join(split{axis: axis, cuts: cuts, parts: parts})
	return v, true, err
}

// dotSize is the number of elements of DotGeneral's result.
func dotSize(ls shapes.Shape, lc []int, rs shapes.Shape, rc, rb []int) int {
	n := ls.Size()
	for _, a := range lc {
		n /= ls.Dimensions[a]
	}
	m := rs.Size()
	for _, a := range slices.Concat(rc, rb) {
		m /= rs.Dimensions[a]
	}
	return n * m
}

// evenCuts splits dim into min(n, dim) parts as even as can be.
func evenCuts(dim, n int) []int {
	n = min(n, dim)
	cuts := make([]int, n+1)
	for i := range cuts {
		cuts[i] = dim * i / n
	}
	return cuts
}

// cutsFor is the cuts of the first of vs split along axis with dim, or nil.
func (f rewriteFunction) cutsFor(axis, dim int, vs ...backends.Value) []int {
	for _, v := range vs {
		if s, ok := f.b.splits[v]; ok && s.axis == axis && s.cuts[len(s.cuts)-1] == dim {
			return s.cuts
		}
	}
	return nil
}

// partsOf is v in parts along axis cut at cuts: its parts if it is split so,
// v itself for each part if it has size 1 on axis or is a scalar, else
// slices of it.
func (f rewriteFunction) partsOf(v backends.Value, axis int, cuts []int) ([]backends.Value, error) {
	if s, ok := f.b.splits[v]; ok && s.axis == axis && slices.Equal(s.cuts, cuts) {
		return s.parts, nil
	}
	vs, err := f.b.OpShape(v)
	if err != nil {
		return nil, err
	}
	parts := make([]backends.Value, len(cuts)-1)
	for i := range parts {
		if vs.Rank() == 0 || vs.Dimensions[axis] == 1 {
			parts[i] = v
			continue
		}
		starts, limits, strides := make([]int, vs.Rank()), slices.Clone(vs.Dimensions), make([]int, vs.Rank())
		starts[axis], limits[axis] = cuts[i], cuts[i+1]
		for a := range strides {
			strides[a] = 1
		}
		if parts[i], err = f.Function.Slice(v, starts, limits, strides); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// join concatenates s's parts and notes the result as split so.
func (f rewriteFunction) join(s split) (backends.Value, error) {
	v, err := f.Function.Concatenate(s.axis, s.parts...)
	if err == nil {
		f.b.splits[v] = s
	}
	return v, err
}

// splitBinary runs do per part if x or y is split and the other operand
// can be taken apart the same way (splittable).
func (f rewriteFunction) splitBinary(do func(x, y backends.Value) (backends.Value, error), x, y backends.Value) (backends.Value, bool, error) {
	s, ok := f.b.splits[x]
	if !ok {
		if s, ok = f.b.splits[y]; !ok {
			return nil, false, nil
		}
	}
	if !f.splittable(x, s) || !f.splittable(y, s) {
		return nil, false, nil
	}
	xp, err := f.partsOf(x, s.axis, s.cuts)
	if err != nil {
		return nil, true, err
	}
	yp, err := f.partsOf(y, s.axis, s.cuts)
	if err != nil {
		return nil, true, err
	}
	parts := make([]backends.Value, len(xp))
	for i := range xp {
		if parts[i], err = do(xp[i], yp[i]); err != nil {
			return nil, true, err
		}
	}
	v, err := f.join(split{axis: s.axis, cuts: s.cuts, parts: parts})
	return v, true, err
}

// splittable reports whether partsOf can take v apart as s: v is a scalar
// or has s's rank and, on s's axis, size 1 or s's size.
func (f rewriteFunction) splittable(v backends.Value, s split) bool {
	vs, err := f.b.OpShape(v)
	if err != nil {
		return false
	}
	if vs.Rank() == 0 {
		return true
	}
	ps, err := f.b.OpShape(s.parts[0])
	if err != nil || vs.Rank() != ps.Rank() {
		return false
	}
	d := vs.Dimensions[s.axis]
	return d == 1 || d == s.cuts[len(s.cuts)-1]
}

func (f rewriteFunction) FusedSoftmax(x backends.Value, axis int) (backends.Value, error) {
	s, ok := f.b.splits[x]
	if !ok || s.axis == axis {
		return f.Function.FusedSoftmax(x, axis)
	}
	parts := make([]backends.Value, len(s.parts))
	for i, p := range s.parts {
		var err error
		if parts[i], err = f.Function.FusedSoftmax(p, axis); err != nil {
			return nil, err
		}
	}
	return f.join(split{axis: s.axis, cuts: s.cuts, parts: parts})
}
