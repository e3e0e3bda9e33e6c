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

func TestCountJoined(t *testing.T) {
	tests := []struct {
		name      string
		tokenizer string
		texts     []string
		// additive is whether the parts' counts add up to the whole's.
		additive bool
	}{
		{"sections", O200k, []string{"# Identity\n\nI am **beacon**.\n\n", "# Goals\n\n- ship it\n\n", "# Task\n\nWhy?"}, true},
		{"entries under a day", Cl100k, []string{"## Friday 2026-11-20 — .teammates/b/memory/2026-11-20.md\n\n", "### Fix\n\nDone.\n\n", "Loose text\n\n"}, true},
		{"an empty part", O200k, []string{"# A\n\nx\n\n", "", "# B\n\ny"}, true},
		{"a slash after punctuation and line breaks", O200k, []string{"## Notes:\n\n", "/usr/bin/env"}, false},
		{"more line breaks", O200k, []string{"x\n\n", "\n# y"}, false},
		{"no line break", Cl100k, []string{"abc", "def"}, false},
		{"chars4 rounds each part", Chars4, []string{"# A\n\n", "# B\n\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := mustTokenizer(t, tt.tokenizer)
			var bs []block
			sum := 0
			for _, s := range tt.texts {
				bs = append(bs, block{s, tok.Count(s)})
				sum += tok.Count(s)
			}
			whole := tok.Count(strings.Join(tt.texts, ""))
			if got := countJoined(tok, bs); got != whole {
				t.Errorf("countJoined = %d, the joined text counts %d", got, whole)
			}
			if (sum == whole) != tt.additive {
				t.Errorf("parts add up to %d, the whole counts %d: the case does not test what it says", sum, whole)
			}
		})
	}
}

// recordingTokenizer records the texts a built-in tokenizer is asked to
// count.
type recordingTokenizer struct {
	Tokenizer
	texts []string
}

func (r *recordingTokenizer) Count(text string) int {
	r.texts = append(r.texts, text)
	return r.Tokenizer.Count(text)
}

func (r *recordingTokenizer) SplitsBetween(left, right string) bool {
	return r.Tokenizer.(Splitter).SplitsBetween(left, right)
}

// TestBuildCountsEachTextOnce checks that a build reads each piece of the
// stack with the tokenizer once, and never the document or a budget
// section whole: their counts are the sums of their pieces'.
func TestBuildCountsEachTextOnce(t *testing.T) {
	for _, name := range []string{O200k, Cl100k} {
		t.Run(name, func(t *testing.T) {
			ws := copyExample(t)
			tok := &recordingTokenizer{Tokenizer: mustTokenizer(t, name)}
			r, err := Build(context.Background(), ws, Options{
				Teammate: "beacon", Task: exampleTask, Tokenizer: tok, Now: fixedClock(exampleNow),
				Location: time.UTC, Recaller: &fakeRecaller{ws: ws, now: exampleNow, vectors: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, r, mustTokenizer(t, name))
			whole := map[string]string{r.Text: "the document"}
			for _, s := range r.Manifest.Sections {
				if s.InBudget {
					whole[r.Text[s.Offset:s.Offset+s.Bytes]] = "the " + s.Name + " section"
				}
			}
			seen := map[string]bool{}
			for _, text := range tok.texts {
				if what, ok := whole[text]; ok {
					t.Errorf("%s was counted whole", what)
				}
				if seen[text] {
					t.Errorf("%.60q was counted twice", text)
				}
				seen[text] = true
			}
		})
	}
}
