package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	type metric struct {
		name      string
		got, base float64
	}
	ms := []metric{{"MRR", got.MRR, base.MRR}}
	for _, k := range []int{1, 5, 10} {
		g, b := got.At(k), base.At(k)
		ms = append(ms, metric{fmt.Sprintf("recall@%d", k), g.Recall, b.Recall}, metric{fmt.Sprintf("hit@%d", k), g.Hit, b.Hit})
	}
	for _, m := range ms {
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
		if r.At(10).Recall == 0 {
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
	if d := rep.Details(); !strings.Contains(d, "bm25 keyword ") {
		t.Errorf("details lack the per-tag rows:\n%s", d)
	}
}
