package recall

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
)

const evalSet = "../testdata/eval/questions.json"

// TestEvalBaseline fails when BM25-only retrieval on the labelled set
// gets worse than the stored baseline; -update stores the new numbers.
func TestEvalBaseline(t *testing.T) {
	rep, err := Evaluate(context.Background(), evalSet, EvalOptions{Scratch: t.TempDir(), Modes: []string{ModeBM25}})
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Results[0]
	t.Logf("\n%s", rep)
	p := filepath.Join("testdata", "eval_baseline.json")
	if *update {
		golden(t, "eval_baseline.json", got)
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to store a baseline)", err)
	}
	var base EvalResult
	if err := json.Unmarshal(b, &base); err != nil {
		t.Fatal(err)
	}
	const eps = 1e-9
	for _, m := range []struct {
		name      string
		got, base float64
	}{
		{"recall@1", got.RecallAt1, base.RecallAt1},
		{"recall@5", got.RecallAt5, base.RecallAt5},
		{"recall@10", got.RecallAt10, base.RecallAt10},
		{"MRR", got.MRR, base.MRR},
	} {
		t.Run(m.name, func(t *testing.T) {
			if m.got < m.base-eps {
				t.Errorf("%s dropped to %.4f from the baseline %.4f", m.name, m.got, m.base)
			}
		})
	}
}

// TestEvalAllModes runs every mode with the hashed embedder: the numbers
// say nothing about a real model, but the vector path must find answers.
func TestEvalAllModes(t *testing.T) {
	rep, err := Evaluate(context.Background(), evalSet, EvalOptions{Scratch: t.TempDir(), Index: Options{Embedder: hashembed.Embedder{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", rep)
	if len(rep.Results) != 3 {
		t.Fatalf("got %d modes, want 3", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.RecallAt10 == 0 {
			t.Errorf("%s: recall@10 is 0", r.Mode)
		}
	}
}

func TestEvalWithoutEmbedderSaysSo(t *testing.T) {
	rep, err := Evaluate(context.Background(), evalSet, EvalOptions{Scratch: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Mode != ModeBM25 || rep.Note == "" {
		t.Errorf("report without an embedder: %+v", rep)
	}
}
