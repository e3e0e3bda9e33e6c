package main

import (
	"strconv"
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

// TestStagesAside: a stage timed aside shows its own time and is not
// taken out of "other", so the stages on the main path and "other" still
// add up to the time since main.
func TestStagesAside(t *testing.T) {
	s := newStages(time.Now().Add(-100 * time.Millisecond))
	s.d[stageIndex] = 20 * time.Millisecond
	s.d[stageEmbed] = 5 * time.Millisecond
	s.beside[stageModel] = 70 * time.Millisecond
	s.beside[stageRuntime] = 40 * time.Millisecond
	line := s.line()
	got := map[string]float64{}
	total, rest, ok := strings.Cut(strings.TrimPrefix(line, "timing: "), " ms since main: ")
	if !ok {
		t.Fatalf("line %q", line)
	}
	for _, part := range strings.Split(rest, ", ") {
		name, v, _ := strings.Cut(part, " ")
		got[name], _ = strconv.ParseFloat(v, 64)
	}
	if got[stageModel] != 70 || got[stageRuntime] != 40 || got[stageIndex] != 20 {
		t.Errorf("line %q: want model 70.0, runtime 40.0, index 20.0", line)
	}
	sum, _ := strconv.ParseFloat(total, 64)
	if d := sum - (got["other"] + got[stageIndex] + got[stageEmbed]); d > 0.2 || d < -0.2 {
		t.Errorf("line %q: main-path stages and other add up to %.1f less than the total", line, d)
	}
}

// TestStagesNest: a stage begun inside another is taken out of it; one
// timed aside inside it is not.
func TestStagesNest(t *testing.T) {
	s := newStages(time.Now())
	start := time.Now()
	endOuter := s.begin(stageIndex)
	endInner := s.begin(stageEmbed)
	endAside := s.aside(stageModel)
	time.Sleep(2 * time.Millisecond)
	endAside()
	endInner()
	endOuter()
	elapsed := time.Since(start)
	if s.beside[stageModel] < 2*time.Millisecond || s.d[stageEmbed] < s.beside[stageModel] {
		t.Errorf("embed %v, model aside %v: want the aside stage, at least the 2ms slept, within the embed", s.d[stageEmbed], s.beside[stageModel])
	}
	if s.d[stageIndex]+s.d[stageEmbed] > elapsed {
		t.Errorf("index %v and the embed %v nested in it add up to more than the %v elapsed", s.d[stageIndex], s.d[stageEmbed], elapsed)
	}
}

// TestTraceBackground: recall's phases are stages, but what it runs in
// the background (the query embedded ahead) takes no time from them.
func TestTraceBackground(t *testing.T) {
	s := newStages(time.Now())
	endIndex := s.trace(stageIndex)
	endBG := s.trace("background " + stageEmbed)
	time.Sleep(time.Millisecond)
	endBG()
	endIndex()
	if s.d[stageIndex] == 0 || s.d[stageEmbed] != 0 || s.beside[stageEmbed] != 0 {
		t.Errorf("index %v, embed %v (%v aside); want only index timed", s.d[stageIndex], s.d[stageEmbed], s.beside[stageEmbed])
	}
}
