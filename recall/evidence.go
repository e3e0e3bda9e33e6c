package recall

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// EvidenceQuestion is a question whose answer is in given turns of a
// conversation logged as memory: each turn is a line tagged with its id
// ("- [D1:3] Caroline: …"), as in the LoCoMo benchmark.
type EvidenceQuestion struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Category string   `json:"category_name"`
	Evidence []string `json:"evidence"` // turn ids: "D1:3"
}

// LoadEvidence reads questions, one JSON object a line.
func LoadEvidence(path string) ([]EvidenceQuestion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load evidence questions: %w", err)
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
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load evidence questions: %w", err)
	}
	return out, nil
}

// EvidenceScore is recall@k over evidence questions: the share of each
// question's evidence turns found in the text of its top k hits, averaged,
// with the tokens (chars/4) those hits cost on average.
type EvidenceScore struct {
	Questions int     `json:"questions"`
	K         int     `json:"k"`
	Recall    float64 `json:"recall"`
	Tokens    float64 `json:"tokens"`
	// ByCategory is the recall of each category of question.
	ByCategory map[string]float64 `json:"by_category"`
}

// ScoreEvidence asks every question of qs (with q.Text taken from it) and
// scores the top k hits.
func ScoreEvidence(ctx context.Context, ix *Index, qs []EvidenceQuestion, q Query, k int) (EvidenceScore, error) {
	s := EvidenceScore{Questions: len(qs), K: k, ByCategory: map[string]float64{}}
	counts := map[string]int{}
	for _, eq := range qs {
		q.Text, q.K = eq.Question, k
		hits, err := ix.Search(ctx, q)
		if err != nil {
			return s, fmt.Errorf("evidence %s: %w", eq.ID, err)
		}
		r, tokens := evidenceFound(hits, eq.Evidence, k)
		s.Recall += r
		s.Tokens += float64(tokens)
		s.ByCategory[eq.Category] += r
		counts[eq.Category]++
	}
	if len(qs) > 0 {
		s.Recall /= float64(len(qs))
		s.Tokens /= float64(len(qs))
	}
	for c, n := range counts {
		s.ByCategory[c] /= float64(n)
	}
	return s, nil
}

// evidenceFound returns the share of the evidence turns in the top k hits
// and the tokens of those hits.
func evidenceFound(hits []Hit, evidence []string, k int) (float64, int) {
	if len(hits) > k {
		hits = hits[:k]
	}
	var text strings.Builder
	for _, h := range hits {
		text.WriteString(h.Text)
		text.WriteString("\n")
	}
	all := text.String()
	if len(evidence) == 0 {
		return 0, len(all) / 4
	}
	found := 0
	for _, e := range evidence {
		if strings.Contains(all, "["+e+"]") {
			found++
		}
	}
	return float64(found) / float64(len(evidence)), len(all) / 4
}
