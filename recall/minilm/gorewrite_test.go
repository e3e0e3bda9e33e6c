package minilm

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
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
	op := "dense"
	if act == backends.ActivationGelu {
		op = "dense-gelu"
	}
	f.record(op, x)
	return f.Function.FusedDense(x, w, bias, act)
}

func (f spyFunction) FusedLayerNorm(x backends.Value, axes []int, eps float64, gamma, beta backends.Value) (backends.Value, error) {
	f.record("layernorm", x)
	return f.Function.FusedLayerNorm(x, axes, eps, gamma, beta)
}

func (f spyFunction) FusedGelu(x backends.Value, exact bool) (backends.Value, error) {
	f.record("gelu", x)
	return f.Function.FusedGelu(x, exact)
}

func (f spyFunction) FusedSoftmax(x backends.Value, axis int) (backends.Value, error) {
	f.record("softmax", x)
	return f.Function.FusedSoftmax(x, axis)
}

func (f spyFunction) Slice(x backends.Value, starts, limits, strides []int) (backends.Value, error) {
	f.record("slice", x)
	return f.Function.Slice(x, starts, limits, strides)
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
		inputs  [][]int            // shapes of ramp inputs
		scalars []float32          // scalar inputs after them
		weights map[string]float32 // scalar weights by parameter name
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
			}, []string{"dense-gelu[6 4]"}},
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
		{"square by a weight that holds 2", [][]int{{2, 3}}, []float32{2}, map[string]float32{"arg1": 2},
			func(in []*graph.Node) []*graph.Node { return []*graph.Node{graph.Pow(in[0], in[1])} },
			[]string{"mul[2 3]"}},
		{"power by another parameter stays", [][]int{{2, 3}}, []float32{2}, nil,
			func(in []*graph.Node) []*graph.Node { return []*graph.Node{graph.Pow(in[0], in[1])} },
			[]string{"pow[2 3]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRewrite(t, rewriteBackend{flatDense: true, scalars: tt.weights}, tt.inputs, tt.scalars, tt.fn, tt.calls)
		})
	}
}

// checkRewrite runs fn on ramp inputs of the given shapes and the scalars,
// on gomlx's pure-Go backend and behind rb's rewrites, and checks that
// gomlx received calls (as spyBackend records them) and that both give
// the same values within 1e-5.
func checkRewrite(t *testing.T, rb rewriteBackend, inputs [][]int, scalars []float32,
	fn func(in []*graph.Node) []*graph.Node, calls []string) {
	t.Helper()
	plain, err := backends.NewWithConfig("go")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Finalize()
	var got []string
	want := graph.MustExecOnceN(plain, fn, args(inputs, scalars)...)
	rb.Backend = spyBackend{plain, &got}
	out := graph.MustExecOnceN(&rb, fn, args(inputs, scalars)...)
	if !slices.Equal(got, calls) {
		t.Errorf("gomlx received %v, want %v", got, calls)
	}
	for i := range want {
		if !out[i].Shape().Equal(want[i].Shape()) {
			t.Fatalf("output %d shape %s, want %s", i, out[i].Shape(), want[i].Shape())
		}
		g, w := tensors.MustCopyFlatData[float32](out[i]), tensors.MustCopyFlatData[float32](want[i])
		for k := range w {
			if math.Abs(float64(g[k]-w[k])) > 1e-5 {
				t.Fatalf("output %d [%d] = %g, want %g", i, k, g[k], w[k])
			}
		}
	}
}

// onnxLayerNorm is layer norm over x's last axis as an opset-14 export
// spells it and onnx-gomlx converts it, with gamma and beta of x's last
// dimension and eps a scalar node.
func onnxLayerNorm(x, gamma, beta, eps *graph.Node) *graph.Node {
	n := x.Shape().Dimensions[x.Rank()-1]
	mean := graph.ReduceAndKeep(x, graph.ReduceMean, -1)
	d := graph.Sub(x, mean)
	v := graph.ReduceAndKeep(graph.Pow(d, graph.Const(x.Graph(), float32(2))), graph.ReduceMean, -1)
	normed := graph.Div(d, graph.Sqrt(graph.Add(v, eps)))
	return graph.Add(graph.Mul(normed, graph.Reshape(gamma, 1, 1, n)), graph.Reshape(beta, 1, 1, n))
}

// onnxGelu is exact GELU as an opset-14 export spells it: x·(1 +
// erf(x/c))·0.5, c = √2 for GELU.
func onnxGelu(x *graph.Node, c float64) *graph.Node {
	g := x.Graph()
	erf := graph.Erf(graph.Div(x, graph.Const(g, float32(c))))
	return graph.Mul(graph.Mul(x, graph.Add(erf, graph.Const(g, float32(1)))), graph.Const(g, float32(0.5)))
}

// dense is x·w + b, with b reshaped to x's rank as onnx-gomlx broadcasts it.
func dense(x, w, b *graph.Node) *graph.Node {
	n := w.Shape().Dimensions[1]
	return graph.Add(graph.DotGeneral(x, []int{x.Rank() - 1}, nil, w, []int{0}, nil), graph.Reshape(b, 1, 1, n))
}

func TestRewriteFuses(t *testing.T) {
	c := func(in []*graph.Node, x float32) *graph.Node { return graph.Const(in[0].Graph(), x) }
	tests := []struct {
		name    string
		inputs  [][]int
		scalars []float32
		weights map[string]float32
		fn      func(in []*graph.Node) []*graph.Node
		calls   []string
	}{
		{"layer norm", [][]int{{2, 3, 8}, {8}, {8}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{onnxLayerNorm(in[0], in[1], graph.AddScalar(in[2], 0.25), c(in, 1e-12))}
			}, []string{"mul[2 3]", "mul[2 3 8]", "mul[2 3]", "mul[2 3 8]", "layernorm[2 3 8]"}},
		{"layer norm with eps a weight", [][]int{{2, 3, 8}, {8}, {8}}, []float32{1e-5}, map[string]float32{"arg3": 1e-5},
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{onnxLayerNorm(in[0], in[1], graph.AddScalar(in[2], 0.25), in[3])}
			}, []string{"mul[2 3]", "mul[2 3 8]", "mul[2 3]", "mul[2 3 8]", "layernorm[2 3 8]"}},
		{"layer norm as a weight-less norm stays", [][]int{{2, 3, 8}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				x := in[0]
				d := graph.Sub(x, graph.ReduceAndKeep(x, graph.ReduceMean, -1))
				v := graph.ReduceAndKeep(graph.Mul(d, d), graph.ReduceMean, -1)
				return []*graph.Node{graph.Div(d, graph.Sqrt(graph.Add(v, c(in, 1e-12))))}
			}, []string{"mul[2 3]", "mul[2 3 8]", "mul[2 3]"}},
		{"mean of another count stays", [][]int{{2, 3, 8}, {8}, {8}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				x := in[0]
				d := graph.Sub(x, graph.MulScalar(graph.ReduceAndKeep(x, graph.ReduceSum, -1), 0.25))
				v := graph.ReduceAndKeep(graph.Mul(d, d), graph.ReduceMean, -1)
				normed := graph.Div(d, graph.Sqrt(graph.Add(v, c(in, 1e-12))))
				return []*graph.Node{graph.Add(graph.Mul(normed, graph.Reshape(in[1], 1, 1, 8)), graph.Reshape(in[2], 1, 1, 8))}
			}, []string{"mul[2 3 1]", "mul[2 3 8]", "mul[2 3]", "mul[2 3 8]"}},
		{"centred on another value's mean stays", [][]int{{2, 3, 8}, {8}, {8}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				x := in[0]
				d := graph.Sub(graph.MulScalar(x, 3), graph.ReduceAndKeep(x, graph.ReduceMean, -1))
				v := graph.ReduceAndKeep(graph.Mul(d, d), graph.ReduceMean, -1)
				normed := graph.Div(d, graph.Sqrt(graph.Add(v, c(in, 1e-12))))
				return []*graph.Node{graph.Add(graph.Mul(normed, graph.Reshape(in[1], 1, 1, 8)), graph.Reshape(in[2], 1, 1, 8))}
			}, []string{"mul[2 3 8]", "mul[2 3]", "mul[2 3 8]", "mul[2 3]", "mul[2 3 8]"}},
		{"bias of a dense product", [][]int{{2, 3, 4}, {4, 5}, {5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node { return []*graph.Node{dense(in[0], in[1], in[2])} },
			[]string{"dot[6 4]", "dense[6 4]"}},
		{"bias of a float64 dense product stays", [][]int{{2, 3, 4}, {4, 5}, {5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				x, w, b := graph.ConvertDType(in[0], dtypes.Float64), graph.ConvertDType(in[1], dtypes.Float64), graph.ConvertDType(in[2], dtypes.Float64)
				return []*graph.Node{graph.ConvertDType(dense(x, w, b), dtypes.Float32)}
			}, []string{"dot[6 4]"}},
		{"bias of a batched product stays", [][]int{{2, 3, 4}, {2, 4, 5}, {5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				p := graph.DotGeneral(in[0], []int{2}, []int{0}, in[1], []int{1}, []int{0})
				return []*graph.Node{graph.Add(p, graph.Reshape(in[2], 1, 1, 5))}
			}, []string{"dot[2 3 4]"}},
		{"bias and GELU of a dense product", [][]int{{2, 3, 4}, {4, 5}, {5}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				return []*graph.Node{onnxGelu(dense(in[0], in[1], in[2]), math.Sqrt2)}
			},
			[]string{"dot[6 4]", "dense[6 4]", "mul[2 3 5]", "dense-gelu[6 4]"}},
		{"GELU", [][]int{{2, 3}}, nil, nil,
			func(in []*graph.Node) []*graph.Node { return []*graph.Node{onnxGelu(in[0], math.Sqrt2)} },
			[]string{"mul[2 3]", "gelu[2 3]"}},
		{"GELU halved first", [][]int{{2, 3}}, nil, nil,
			func(in []*graph.Node) []*graph.Node {
				x := in[0]
				erf := graph.Erf(graph.Mul(x, c(in, float32(1/math.Sqrt2))))
				return []*graph.Node{graph.Mul(graph.Mul(x, c(in, 0.5)), graph.Add(c(in, 1), erf))}
			}, []string{"mul[2 3]", "mul[2 3]", "gelu[2 3]"}},
		{"erf of x/2 stays", [][]int{{2, 3}}, nil, nil,
			func(in []*graph.Node) []*graph.Node { return []*graph.Node{onnxGelu(in[0], 2)} },
			[]string{"mul[2 3]", "mul[2 3]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRewrite(t, rewriteBackend{flatDense: true, fuse: true, scalars: tt.weights}, tt.inputs, tt.scalars, tt.fn, tt.calls)
		})
	}
}

// attention is softmax(q·kᵀ/2 + mask)·v over [batch, heads, seq, dim]
// operands, kᵀ given transposed, as an opset-14 export spells it.
func attention(q, kT, v, mask *graph.Node) *graph.Node {
	s := graph.DotGeneral(q, []int{3}, []int{0, 1}, kT, []int{2}, []int{0, 1})
	s = graph.Add(graph.Div(s, graph.Const(q.Graph(), float32(2))), mask)
	return graph.DotGeneral(graph.Softmax(s, -1), []int{3}, []int{0, 1}, v, []int{2}, []int{0, 1})
}

func TestRewriteSplits(t *testing.T) {
	tests := []struct {
		name     string
		split    int
		splitMin int
		inputs   [][]int
		calls    []string
	}{
		{"batch of 2", 2, 1, [][]int{{2, 2, 3, 4}, {2, 2, 4, 3}, {2, 2, 3, 4}, {2, 1, 1, 3}},
			[]string{"slice[2 2 3 4]", "slice[2 2 3 4]", "slice[2 2 4 3]", "slice[2 2 4 3]", "dot[1 2 3 4]", "dot[1 2 3 4]", "slice[2 1 1 3]", "slice[2 1 1 3]", "slice[2 2 3 1]", "slice[2 2 3 1]", "softmax[1 2 3 3]", "softmax[1 2 3 3]", "slice[2 2 3 4]", "slice[2 2 3 4]", "dot[1 2 3 3]", "dot[1 2 3 3]"}},
		{"batch of 3 in 2", 2, 1, [][]int{{3, 2, 3, 4}, {3, 2, 4, 3}, {3, 2, 3, 4}, {3, 1, 1, 3}},
			[]string{"slice[3 2 3 4]", "slice[3 2 3 4]", "slice[3 2 4 3]", "slice[3 2 4 3]", "dot[1 2 3 4]", "dot[2 2 3 4]", "slice[3 1 1 3]", "slice[3 1 1 3]", "slice[3 2 3 1]", "slice[3 2 3 1]", "softmax[1 2 3 3]", "softmax[2 2 3 3]", "slice[3 2 3 4]", "slice[3 2 3 4]", "dot[1 2 3 3]", "dot[2 2 3 3]"}},
		{"one text over its heads", 2, 1, [][]int{{1, 4, 3, 4}, {1, 4, 4, 3}, {1, 4, 3, 4}, {1, 1, 1, 3}},
			[]string{"slice[1 4 3 4]", "slice[1 4 3 4]", "slice[1 4 4 3]", "slice[1 4 4 3]", "dot[1 2 3 4]", "dot[1 2 3 4]", "slice[1 4 3 1]", "slice[1 4 3 1]", "softmax[1 2 3 3]", "softmax[1 2 3 3]", "slice[1 4 3 4]", "slice[1 4 3 4]", "dot[1 2 3 3]", "dot[1 2 3 3]"}},
		{"small scores stay", 2, 73, [][]int{{2, 2, 3, 4}, {2, 2, 4, 3}, {2, 2, 3, 4}, {2, 1, 1, 3}},
			[]string{"dot[2 2 3 4]", "softmax[2 2 3 3]", "dot[2 2 3 3]"}},
		{"one part stays", 1, 1, [][]int{{2, 2, 3, 4}, {2, 2, 4, 3}, {2, 2, 3, 4}, {2, 1, 1, 3}},
			[]string{"dot[2 2 3 4]", "softmax[2 2 3 3]", "dot[2 2 3 3]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRewrite(t, rewriteBackend{split: tt.split, splitMin: tt.splitMin}, tt.inputs, nil,
				func(in []*graph.Node) []*graph.Node { return []*graph.Node{attention(in[0], in[1], in[2], in[3])} }, tt.calls)
		})
	}
}

// TestRewritesOnModel runs the committed tiny model, laid out like an
// opset-14 BERT export, set up as this build runs it by default (attention
// in 2 parts whatever the cores) and with none of rewriteBackend's
// rewrites but the square, and checks that each fused op took the place of
// its chain in every layer, that attention ran split, and that the vectors
// agree.
func TestRewritesOnModel(t *testing.T) {
	long := referenceCases[len(referenceCases)-1]
	texts := []string{"The cat sits on the mat", long.text, "naïve café"}
	for i, s := range texts {
		texts[i] = normalizeText(s)
	}
	embed := func(cfg goConfig) [][]float32 {
		t.Helper()
		r, err := newGoRunner(tinyDir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.close()
		vecs, err := r.embed(texts)
		if err != nil {
			t.Fatal(err)
		}
		return vecs
	}
	cfg := defaultGoConfig()
	want := embed(goConfig{options: cfg.options})
	var calls []string
	cfg.split = 2
	cfg.wrap = func(b backends.Backend) backends.Backend { return spyBackend{b, &calls} }
	got := embed(cfg)
	ops := map[string]int{}
	for _, c := range calls {
		op, _, _ := strings.Cut(c, "[")
		ops[op]++
	}
	// 2 layers: the embeddings' layer norm and 2 a layer; 3 dense products
	// with a bias a layer (the intermediate one's, which nothing uses, is
	// handed over before its GELU arrives), 1 with GELU; softmax in 2 parts
	// a layer.
	for op, n := range map[string]int{"layernorm": 5, "dense": 6, "dense-gelu": 2, "softmax": 4, "pow": 0, "gelu": 0} {
		if ops[op] != n {
			t.Errorf("gomlx received %d %s, want %d (all: %v)", ops[op], op, n, ops)
		}
	}
	for i := range want {
		if d := maxAbsDiff32(got[i], want[i]); d > 1e-5 {
			t.Errorf("text %d: max abs diff %g > 1e-5 from the graph without rewrites", i, d)
		}
	}
}
