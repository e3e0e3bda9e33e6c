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

// TestCutoffs: each report row is one cut-off, 1, 5 and 10 below k, then
// k itself, never twice.
func TestCutoffs(t *testing.T) {
	tests := []struct {
		k    int
		want []int
	}{
		{1, []int{1}},
		{3, []int{1, 3}},
		{5, []int{1, 5}},
		{10, []int{1, 5, 10}},
		{20, []int{1, 5, 10, 20}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("k=", tt.k), func(t *testing.T) {
			if got := cutoffs(tt.k); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("cutoffs(%d) = %v, want %v", tt.k, got, tt.want)
			}
		})
	}
}

// TestScoreHitsStopsAtK: an answer found below the k-th hit counts as
// not found, for the reciprocal rank as for recall.
func TestScoreHitsStopsAtK(t *testing.T) {
	hits := []Hit{{Path: "a.md", Text: "aaaa"}, {Path: "b.md", Text: "bbbbbbbb"}, {Path: "c.md", Text: "cccc"}}
	tests := []struct {
		name   string
		answer string
		k      int
		rank   int
	}{
		{"first hit", "a.md", 2, 1},
		{"k-th hit", "b.md", 2, 2},
		{"below k", "c.md", 2, 0},
		{"not returned", "d.md", 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := scoreHits(hits, EvalQuestion{ID: "q", Answers: []string{tt.answer}}, tt.k, nil)
			if len(s.ranks) != 1 || s.ranks[0] != tt.rank {
				t.Errorf("ranks %v, want [%d]", s.ranks, tt.rank)
			}
			if len(s.tokens) != min(tt.k, len(hits)) {
				t.Errorf("tokens of %d hits, want %d", len(s.tokens), min(tt.k, len(hits)))
			}
			mrr := average([]qScore{s}, cutoffs(tt.k)).MRR
			want := 0.0
			if tt.rank > 0 {
				want = 1 / float64(tt.rank)
			}
			if mrr != want {
				t.Errorf("MRR %v, want %v", mrr, want)
			}
		})
	}
}

// TestLoadEvalSetRejects: a set that cannot be scored is refused, naming
// the file and the question.
func TestLoadEvalSetRejects(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"no questions", "set.json", `{"questions": []}`, "no questions"},
		{"a question with neither answers nor evidence", "set.json",
			`{"questions": [{"id": "q1", "query": "a", "answers": ["x.md"]}, {"id": "q2", "query": "b"}]}`,
			`question 2 ("q2") has neither answers nor evidence`},
		{"an evidence question without evidence", "set.jsonl",
			`{"id": "q1", "question": "a", "evidence": ["D1:1"]}` + "\n" + `{"id": "q2", "question": "b", "evidence": []}` + "\n",
			`set.jsonl:2: question "q2" lists no evidence`},
		{"JSON cut short", "set.json", "{\"questions\": [\n  {\"id\": \"q1\",\n", "set.json:3: unexpected end of JSON input"},
		{"a value of the wrong type", "set.json", "{\"questions\": [\n  {\"id\": 7}\n]}\n", "set.json:2: json: cannot unmarshal number into Go struct field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := LoadEvalSet(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadEvalSet = %+v, %v; want an error holding %q", s, err, tt.want)
			}
		})
	}
}
