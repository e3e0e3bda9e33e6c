package recall

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/internal/quote"
)

// EvidenceQuestion is a question whose answer is in given turns of a
// conversation logged as memory: each turn is a line tagged with its id
// ("- [D1:3] Caroline: …"), as in the LoCoMo benchmark. It is one line of
// a queries.jsonl file.
type EvidenceQuestion struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Category string   `json:"category_name"`
	Evidence []string `json:"evidence"` // turn ids: "D1:3"
}

func (q EvidenceQuestion) evalQuestion() EvalQuestion {
	eq := EvalQuestion{ID: q.ID, Query: q.Question, Evidence: q.Evidence}
	if q.Category != "" {
		eq.Tags = []string{q.Category}
	}
	return eq
}

// LoadEvidence reads questions, one JSON object a line.
func LoadEvidence(path string) ([]EvidenceQuestion, error) {
	f, err := OpenEvalFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []EvidenceQuestion
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q EvidenceQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", quote.IfNeeded(path), n, err)
		}
		if len(q.Evidence) == 0 {
			return nil, fmt.Errorf("%s:%d: question %q lists no evidence", quote.IfNeeded(path), n, q.ID)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load evidence questions: %w", err)
	}
	return out, nil
}

// EvidenceScore is recall@k over evidence questions: the share of each
// question's evidence turns found in its top k hits (their text or the
// file lines they point at), averaged, with the tokens (bytes/4) those
// hits cost on average.
type EvidenceScore struct {
	Questions int     `json:"questions"`
	K         int     `json:"k"`
	Recall    float64 `json:"recall"`
	Tokens    float64 `json:"tokens"`
	// Cutoffs are the same at every cut-off up to K (1, 5, 10 and K), from
	// the same K hits: recall@5 is that of the first five of K.
	Cutoffs []AtK `json:"cutoffs"`
	// ByCategory is the recall of each category of question.
	ByCategory map[string]float64 `json:"by_category"`
}

// ScoreEvidence asks every question of qs (with q.Text taken from it) and
// scores the top k hits.
func ScoreEvidence(ctx context.Context, ix *Index, qs []EvidenceQuestion, q Query, k int) (EvidenceScore, error) {
	s := EvidenceScore{Questions: len(qs), K: k, ByCategory: map[string]float64{}}
	var all []qScore
	byCat := map[string][]qScore{}
	lines := newFileLines(ix.ws)
	for _, eq := range qs {
		q.Text, q.K = eq.Question, k
		hits, err := ix.Search(ctx, q)
		if err != nil {
			return s, fmt.Errorf("evidence %s: %w", eq.ID, err)
		}
		qs := scoreHits(hits, eq.evalQuestion(), k, lines)
		all = append(all, qs)
		byCat[eq.Category] = append(byCat[eq.Category], qs)
	}
	scores := average(all, cutoffs(k))
	at := scores.At(k)
	s.Recall, s.Tokens, s.Cutoffs = at.Recall, at.Tokens, scores.Cutoffs
	for c, ss := range byCat {
		s.ByCategory[c] = average(ss, []int{k}).At(k).Recall
	}
	return s, nil
}
