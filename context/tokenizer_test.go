package context

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/tmemhq/tmem/layout"
)

func TestTokenizers(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
	}{
		{O200k, "hello world", 2},
		{Cl100k, "hello world", 2},
		{Chars4, "hello world", 3},
		{Chars4, "東京", 1},
		{O200k, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.text, func(t *testing.T) {
			tok := mustTokenizer(t, tt.name)
			if tok.Name() != tt.name {
				t.Errorf("name %q", tok.Name())
			}
			for i := 0; i < 2; i++ { // the second count comes from the cache
				if got := tok.Count(tt.text); got != tt.want {
					t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
				}
			}
		})
	}
	t.Run("unknown name", func(t *testing.T) {
		_, err := NewTokenizer("gpt2")
		if err == nil || !strings.Contains(err.Error(), `unknown tokenizer "gpt2" (known: chars4, cl100k, o200k)`) {
			t.Errorf("err = %v", err)
		}
	})
}

// referenceTokenizer counts with github.com/tiktoken-go/tokenizer, the
// tokenizer the built-in BPE tables are generated from.
type referenceTokenizer struct {
	name  string
	codec tokenizer.Codec
}

func (r referenceTokenizer) Name() string { return r.name }

func (r referenceTokenizer) Count(text string) int {
	n, err := r.codec.Count(text)
	if err != nil {
		panic(err)
	}
	return n
}

// TestBudgetDecisionsMatchReference builds the golden workspaces' stacks
// over a sweep of budgets with the built-in tokenizers and with the
// reference tokenizer: every count, inclusion and drop must be the same.
func TestBudgetDecisionsMatchReference(t *testing.T) {
	encodings := map[string]tokenizer.Encoding{O200k: tokenizer.O200kBase, Cl100k: tokenizer.Cl100kBase}
	budgets := []int{MinBudget, 300, 700, 1000, 1500, 2200, 3000, 4000, 6000, 9000, DefaultBudget}
	ws := copyExample(t)
	for name, enc := range encodings {
		codec, err := tokenizer.Get(enc)
		if err != nil {
			t.Fatal(err)
		}
		ref := referenceTokenizer{name: name, codec: codec}
		for _, teammate := range []string{"beacon", "quill", "atlas"} {
			t.Run(name+"/"+teammate, func(t *testing.T) {
				for _, budget := range budgets {
					got := buildWith(t, ws, teammate, budget, mustTokenizer(t, name))
					want := buildWith(t, ws, teammate, budget, ref)
					if got.Text != want.Text {
						t.Errorf("budget %d: the stack differs from the reference tokenizer's", budget)
					}
					if g, w := manifestJSON(t, got.Manifest), manifestJSON(t, want.Manifest); !bytes.Equal(g, w) {
						t.Errorf("budget %d: the manifest differs from the reference tokenizer's\n--- got:\n%s\n--- want:\n%s", budget, g, w)
					}
				}
			})
		}
	}
}

func buildWith(t *testing.T, ws *layout.Workspace, teammate string, budget int, tok Tokenizer) *Result {
	t.Helper()
	rec := &fakeRecaller{ws: ws, now: exampleNow, vectors: true}
	r, err := Build(context.Background(), ws, Options{
		Teammate: teammate, Task: exampleTask, Budget: budget, Tokenizer: tok,
		Now: fixedClock(exampleNow), Location: time.UTC, Recaller: rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
