package minilm

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// spyBackend records, for each dense product the graph hands on, its name
// and the shape of its first operand, as rewriteBackend passes them to gomlx.
type spyBackend struct {
	backends.Backend
	calls *[]string
}

func (b spyBackend) Builder(name string) backends.Builder {
	return spyBuilder{b.Backend.Builder(name), b.calls}
}

type spyBuilder struct {
	backends.Builder
	calls *[]string
}

func (b spyBuilder) Main() backends.Function { return spyFunction{b.Builder.Main(), b} }

type spyFunction struct {
	backends.Function
	b spyBuilder
}

func (f spyFunction) record(op string, x backends.Value) {
	s, _ := f.b.OpShape(x)
	*f.b.calls = append(*f.b.calls, fmt.Sprintf("%s%v", op, s.Dimensions))
}

func (f spyFunction) DotGeneral(lhs backends.Value, lc, lb []int, rhs backends.Value, rc, rb []int,
	config backends.DotGeneralConfig) (backends.Value, error) {
	f.record("dot", lhs)
	return f.Function.DotGeneral(lhs, lc, lb, rhs, rc, rb, config)
}

func (f spyFunction) Pow(x, y backends.Value) (backends.Value, error) {
	f.record("pow", x)
	return f.Function.Pow(x, y)
}

func (f spyFunction) Mul(x, y backends.Value) (backends.Value, error) {
	f.record("mul", x)
	return f.Function.Mul(x, y)
}

func (f spyFunction) FusedDense(x, w, bias backends.Value, act backends.ActivationType) (backends.Value, error) {
	f.record("dense", x)
	return f.Function.FusedDense(x, w, bias, act)
}

func (f spyFunction) FusedAttentionQKVProjection(x, w, bq, bk, bv backends.Value, qDim, kvDim int) (backends.Value, backends.Value, backends.Value, error) {
	f.record("qkv", x)
	return f.Function.FusedAttentionQKVProjection(x, w, bq, bk, bv, qDim, kvDim)
}

// args are fresh tensors of the given shapes (a tensor, once on one
// backend, cannot go to another) with small varied values, then the
// scalars.
func args(dims [][]int, scalars []float32) []any {
	var out []any
	for _, d := range dims {
		out = append(out, ramp(d...))
	}
	for _, x := range scalars {
		out = append(out, tensors.FromValue(x))
	}
	return out
}

// ramp is a tensor of the given shape with small varied values.
func ramp(dims ...int) *tensors.Tensor {
	n := 1
	for _, d := range dims {
		n *= d
	}
	flat := make([]float32, n)
	for i := range flat {
		flat[i] = float32(i%13-6) / 7
	}
	return tensors.FromFlatDataAndDimensions(flat, dims...)
}

func TestRewriteBackend(t *testing.T) {
	tests := []struct {
		name    string
		inputs  [][]int   // shapes of ramp inputs
		scalars []float32 // scalar inputs after them
		twos    map[string]bool
		fn      func(in []*graph.Node) []*graph.Node
		calls   []string // as gomlx receives them behind rewriteBackend
	}{
		{"dense product of rank 3", [][]int{{2, 3, 4}, {4, 5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.DotGeneral(in[0], []int{2}, nil, in[1], []int{0}, nil)}
			}, []string{"dot[6 4]"}},
		{"weight of rank 3", [][]int{{2, 3, 4}, {4, 5, 2}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.DotGeneral(in[0], []int{2}, nil, in[1], []int{0}, nil)}
			}, []string{"dot[6 4]"}},
		{"matrix stays", [][]int{{3, 4}, {4, 5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.DotGeneral(in[0], []int{1}, nil, in[1], []int{0}, nil)}
			}, []string{"dot[3 4]"}},
		{"vector stays", [][]int{{4}, {4, 5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.DotGeneral(in[0], []int{0}, nil, in[1], []int{0}, nil)}
			}, []string{"dot[4]"}},
		{"batched product stays", [][]int{{2, 3, 4}, {2, 4, 5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.DotGeneral(in[0], []int{2}, []int{0}, in[1], []int{1}, []int{0})}
			}, []string{"dot[2 3 4]"}},
		{"contracting a leading axis stays", [][]int{{4, 3, 2}, {4, 5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.DotGeneral(in[0], []int{0}, nil, in[1], []int{0}, nil)}
			}, []string{"dot[4 3 2]"}},
		{"fused dense with gelu", [][]int{{2, 3, 4}, {4, 5}, {5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.BackendFusedDense(in[0], in[1], in[2], backends.ActivationGelu)}
			}, []string{"dense[6 4]"}},
		{"fused QKV projection", [][]int{{2, 3, 4}, {4, 12}, {4}, {4}, {4}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				q, k, v := graph.BackendFusedAttentionQKVProjection(in[0], in[1], in[2], in[3], in[4], 4, 4)
				return []*graph.Node{q, k, v}
			}, []string{"qkv[6 4]"}},
		{"square by a constant 2", [][]int{{2, 3}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.Pow(in[0], graph.Const(in[0].Graph(), float32(2)))}
			}, []string{"mul[2 3]"}},
		{"power by a constant 3 stays", [][]int{{2, 3}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.Pow(in[0], graph.Const(in[0].Graph(), float32(3)))}
			}, []string{"pow[2 3]"}},
		{"square by a weight that holds 2", [][]int{{2, 3}}, []float32{2}, map[string]bool{"arg1": true},
			func(in []*graph.Node) []*graph.Node { return []*graph.Node{graph.Pow(in[0], in[1])} },
			[]string{"mul[2 3]"}},
		{"power by another parameter stays", [][]int{{2, 3}}, []float32{2}, nil,
			func(in []*graph.Node) []*graph.Node { return []*graph.Node{graph.Pow(in[0], in[1])} },
			[]string{"pow[2 3]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain, err := backends.NewWithConfig("go")
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Finalize()
			var calls []string
			want := graph.MustExecOnceN(plain, tt.fn, args(tt.inputs, tt.scalars)...)
			rb := &rewriteBackend{Backend: spyBackend{plain, &calls}, flatDense: true, twos: tt.twos}
			got := graph.MustExecOnceN(rb, tt.fn, args(tt.inputs, tt.scalars)...)
			if !slices.Equal(calls, tt.calls) {
				t.Errorf("gomlx received %v, want %v", calls, tt.calls)
			}
			for i := range want {
				if !got[i].Shape().Equal(want[i].Shape()) {
					t.Fatalf("output %d shape %s, want %s", i, got[i].Shape(), want[i].Shape())
				}
				g, w := tensors.MustCopyFlatData[float32](got[i]), tensors.MustCopyFlatData[float32](want[i])
				for k := range w {
					if math.Abs(float64(g[k]-w[k])) > 1e-5 {
						t.Fatalf("output %d [%d] = %g, want %g", i, k, g[k], w[k])
					}
				}
			}
		})
	}
}
