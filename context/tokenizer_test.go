package context

import (
	"strings"
	"testing"
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
