package main

import (
	"strings"
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

// TestBackgroundStages: a stage recall runs in the background (named
// "background <stage>" by its trace, or begun for a context that
// recall.InBackground marks) is reported apart and takes no time from
// the stage that runs meanwhile.
func TestBackgroundStages(t *testing.T) {
	s := newStages(time.Now())
	endIndex := s.trace(stageIndex)
	endModel := s.trace("background " + stageModel)
	time.Sleep(2 * time.Millisecond)
	endModel()
	endIndex()
	if s.bg[stageModel] == 0 || s.d[stageModel] != 0 {
		t.Errorf("model: %v in the background, %v in the foreground; want all in the background", s.bg[stageModel], s.d[stageModel])
	}
	if s.d[stageIndex] < s.bg[stageModel] {
		t.Errorf("index %v: the background model's %v was taken from it", s.d[stageIndex], s.bg[stageModel])
	}
	if line := s.line(); !strings.Contains(line, ", background-model ") || strings.Contains(line, "background-embed") {
		t.Errorf("timing line %q: want background-model only", line)
	}
}
