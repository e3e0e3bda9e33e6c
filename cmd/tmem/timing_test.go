package main

import (
	"testing"
	"time"

	memctx "github.com/tmemhq/tmem/context"
)

// TestTimedTokenizerSplits checks that timing a tokenizer keeps what it
// tells Build about its joins, so that -v times the counts an untimed
// call makes.
func TestTimedTokenizerSplits(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{memctx.O200k, true},
		{memctx.Cl100k, true},
		{memctx.Chars4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := memctx.NewTokenizer(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			timed := newStages(time.Now()).tokenizer(tok)
			s, ok := timed.(memctx.Splitter)
			if !ok {
				t.Fatal("the timed tokenizer is no memctx.Splitter")
			}
			if got := s.SplitsBetween("# Goals\n\n", "# Task\n\nx"); got != tt.want {
				t.Errorf("SplitsBetween = %v, want %v", got, tt.want)
			}
			if got := s.SplitsBetween("x", "# y"); got {
				t.Error("SplitsBetween with no line end = true")
			}
		})
	}
}
