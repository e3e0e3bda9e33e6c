package compact

import (
	"context"
	"errors"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
)

// countingEmbedder counts the texts it embeds and can be made to fail.
type countingEmbedder struct {
	calls int
	fail  bool
}

func (c *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if c.fail {
		return nil, errors.New("model exploded")
	}
	c.calls += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashembed.Vector(t)
	}
	return out, nil
}

func (c *countingEmbedder) Identity() string { return "counting" }

func TestVectorsSimilarity(t *testing.T) {
	e := &countingEmbedder{}
	v := NewVectors(context.Background(), e)
	same := "Integration tests must hit a real database, not mocks."
	near := "Integration tests must use a real database instead of mocks."
	far := "The quarterly offsite is booked for the first week of March."
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"identical texts", same, same, 0.999, 1},
		{"paraphrase scores high", same, near, 0.3, 0.999},
		{"unrelated scores low", same, far, 0, 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s := v.Similarity(tt.a, tt.b); s < tt.min || s > tt.max {
				t.Errorf("Similarity = %.3f, want in [%.3f, %.3f]", s, tt.min, tt.max)
			}
		})
	}
	if e.calls != 3 {
		t.Errorf("embedded %d texts, want 3 (each text once)", e.calls)
	}
}

func TestVectorsFallsBackToShingles(t *testing.T) {
	v := NewVectors(context.Background(), &countingEmbedder{fail: true})
	a, b := "real database in integration tests", "integration tests need a real database"
	if got, want := v.Similarity(a, b), (Shingles{}).Similarity(a, b); got != want {
		t.Errorf("Similarity = %v, want the Shingles score %v", got, want)
	}
	if v.Err() == nil {
		t.Error("Err() = nil after the model failed")
	}
}
