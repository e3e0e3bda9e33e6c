package recalltest

import (
	"context"
	"math"
	"testing"

	"github.com/tmemhq/tmem/recall"
)

// Conformance checks that e returns dims-long, L2-normalised vectors, one
// per text, the same for the same text whatever it is batched with, and
// that it names itself.
func Conformance(t *testing.T, e recall.Embedder, dims int) {
	t.Helper()
	ctx := context.Background()
	texts := []string{"the release train leaves on Thursday", "café au lait", "検索インデックスの設計", ""}
	t.Run("identity", func(t *testing.T) {
		if e.Identity() == "" {
			t.Error("Identity() is empty")
		}
	})
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	t.Run("one vector per text", func(t *testing.T) {
		if len(vs) != len(texts) {
			t.Fatalf("got %d vectors for %d texts", len(vs), len(texts))
		}
	})
	t.Run("dims and norm", func(t *testing.T) {
		for i, v := range vs {
			if len(v) != dims {
				t.Errorf("text %d: %d dims, want %d", i, len(v), dims)
				continue
			}
			var n float64
			for _, x := range v {
				n += float64(x) * float64(x)
			}
			if math.Abs(math.Sqrt(n)-1) > 1e-3 {
				t.Errorf("text %d: norm %.5f, want 1", i, math.Sqrt(n))
			}
		}
	})
	t.Run("deterministic across batches", func(t *testing.T) {
		one, err := e.Embed(ctx, texts[1:2])
		if err != nil {
			t.Fatalf("Embed: %v", err)
		}
		for j := range one[0] {
			if math.Abs(float64(one[0][j]-vs[1][j])) > 1e-5 {
				t.Fatalf("dim %d: %v alone, %v in a batch", j, one[0][j], vs[1][j])
			}
		}
	})
}
