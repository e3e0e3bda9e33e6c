package minilm

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tmemhq/tmem/recall"
)

// TestEvalWithRealModel runs the labelled retrieval set with the real
// all-MiniLM-L6-v2 weights and checks that hybrid ranking is at least as
// good as either half alone on recall@5. The weights cannot be bundled, so
// it runs only where TMEM_MODEL names a folder holding the pinned files.
func TestEvalWithRealModel(t *testing.T) {
	dir := os.Getenv("TMEM_MODEL")
	if dir == "" {
		t.Skip("TMEM_MODEL is not set: this test needs the real all-MiniLM-L6-v2 weights (tmem model pull)")
	}
	info, err := Info(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Complete {
		t.Skipf("TMEM_MODEL=%s does not hold the pinned all-MiniLM-L6-v2 files (tmem model info lists them)", dir)
	}
	e, err := Open(Options{ModelDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rep, err := recall.Evaluate(context.Background(), filepath.Join("..", "..", "testdata", "eval", "questions.json"),
		recall.EvalOptions{Index: recall.Options{Embedder: e}, Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	at5 := map[string]float64{}
	for _, r := range rep.Results {
		at5[r.Mode] = r.At(5).Recall
	}
	t.Logf("\n%s", rep)
	for _, m := range []string{recall.ModeBM25, recall.ModeVector, recall.ModeHybrid} {
		if _, ok := at5[m]; !ok {
			t.Fatalf("mode %s did not run: %s", m, rep.Note)
		}
	}
	if h := at5[recall.ModeHybrid]; h < at5[recall.ModeBM25] || h < at5[recall.ModeVector] {
		t.Errorf("hybrid recall@5 %.3f is below BM25-only %.3f or vector-only %.3f",
			h, at5[recall.ModeBM25], at5[recall.ModeVector])
	}
}
