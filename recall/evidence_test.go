package recall

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evidenceSet writes a two-session conversation, one daily per session
// and one tagged turn a line, with a queries.jsonl beside it, and returns
// the path of the questions file.
func evidenceSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".teammates/conv/SOUL.md": "# Conv\n",
		".teammates/conv/memory/2023-05-08.md": "# 2023-05-08\n\n## Session 1 — 1:56 pm\n" +
			"- [D1:1] Ana: I went to a pottery class in Lisbon yesterday.\n" +
			"- [D1:2] Ben: How did the glaze come out?\n" +
			"- [D1:3] Ana: Bright turquoise, I loved it.\n",
		".teammates/conv/memory/2023-05-20.md": "# 2023-05-20\n\n## Session 2 — 4:10 pm\n" +
			"- [D2:1] Ben: My violin recital went well in Denver.\n" +
			"- [D2:2] Ana: Congratulations on the recital!\n",
		"queries.jsonl": `{"id": "q1", "question": "Where was the pottery class?", "category": 4, "category_name": "single-hop", "evidence": ["D1:1"], "answer": "Lisbon"}` + "\n\n" +
			`{"id": "q2", "question": "Where did Ben play his violin recital?", "category": 4, "category_name": "single-hop", "evidence": ["D2:1"]}` + "\n" +
			`{"id": "q3", "question": "Which class and which recital happened?", "category": 1, "category_name": "multi-hop", "evidence": ["D1:1", "D2:1"]}` + "\n" +
			`{"id": "q4", "question": "What colour was the kayak?", "category": 1, "category_name": "multi-hop", "evidence": ["D9:9"]}` + "\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "queries.jsonl")
}

// TestEvalEvidenceFormat reads the queries.jsonl format: questions asked
// after the newest daily (so both are indexed), scored per category at
// each cut-off, with the tokens of the hits.
func TestEvalEvidenceFormat(t *testing.T) {
	rep, err := Evaluate(context.Background(), evidenceSet(t), EvalOptions{Scratch: t.TempDir(), K: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Questions != 4 || len(r.Cutoffs) != 2 || r.Cutoffs[0].K != 1 || r.Cutoffs[1].K != 3 {
		t.Fatalf("want 4 questions at cut-offs 1 and 3, got %+v", r.EvalScores)
	}
	for _, tc := range []struct {
		name           string
		got            AtK
		recall, hit    float64
		tokensPositive bool
	}{
		{"single-hop@3", r.ByTag["single-hop"].At(3), 1, 1, true},
		{"multi-hop@3", r.ByTag["multi-hop"].At(3), 0.5, 0.5, true},
		{"all@3", r.At(3), 0.75, 0.75, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got.Recall != tc.recall || tc.got.Hit != tc.hit || (tc.got.Tokens > 0) != tc.tokensPositive {
				t.Errorf("got %+v, want recall %.2f, hit %.2f, tokens > 0", tc.got, tc.recall, tc.hit)
			}
		})
	}
	if strings.Join(r.Misses, ",") != "q4" {
		t.Errorf("misses %v, want [q4]", r.Misses)
	}
	if d := rep.Details(); !strings.Contains(d, "bm25 multi-hop ") || !strings.Contains(d, "recall@1/3") {
		t.Errorf("details lack the per-category rows:\n%s", d)
	}
}

// TestEvidenceInHitLines finds a tagged line by the lines a hit points
// at when its text does not show the tag.
func TestEvidenceInHitLines(t *testing.T) {
	ws := newWorkspace(t, "ws")
	writeFile(t, ws, "beacon/memory/2026-01-05.md", "# 2026-01-05\n\n## Talk\n- [D1:1] Ana: hello\n- [D1:2] Ben: hi\n")
	lines := newFileLines(ws)
	for _, tc := range []struct {
		name string
		hit  Hit
		want bool
	}{
		{"in text", Hit{Path: "beacon/memory/2026-01-05.md", StartLine: 4, EndLine: 4, Text: "- [D1:2] Ben: hi"}, true},
		{"in lines", Hit{Path: "beacon/memory/2026-01-05.md", StartLine: 3, EndLine: 5, Text: "Ben: hi"}, true},
		{"outside lines", Hit{Path: "beacon/memory/2026-01-05.md", StartLine: 1, EndLine: 4, Text: "Ana: hello"}, false},
		{"other file", Hit{Path: "beacon/memory/2026-01-06.md", StartLine: 1, EndLine: 9, Text: ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := holds(tc.hit, "D1:2", true, lines); got != tc.want {
				t.Errorf("holds = %v, want %v", got, tc.want)
			}
		})
	}
}
