package recall

import (
	"path/filepath"
	"strings"
	"testing"
)

// Sentences of three topics that share no word but stop words; within a
// topic they share most of theirs.
var topicSentences = map[string][]string{
	"river": {
		"Our kayak drifted down the river past rapids.",
		"The river rapids tipped my kayak twice.",
		"A kayak paddle snapped on the river rocks.",
		"Rapids upstream made the river kayak trip slow.",
	},
	"bread": {
		"The oven baked sourdough bread from rye flour.",
		"Rye flour makes sourdough bread dense in the oven.",
		"Bread dough with rye flour rose before the oven.",
		"Sourdough starter fed the bread flour overnight.",
		"The oven crust on sourdough bread cracked.",
		"Flour dust covered the bread oven door.",
	},
	"chess": {
		"Her chess opening sacrificed a bishop early.",
		"The bishop endgame decided the chess match.",
		"A chess clock ran out during the bishop exchange.",
	},
}

// topicEntry writes one paragraph of the topics' sentences, in order,
// n[i] sentences of topics[i].
func topicEntry(topics []string, n []int) string {
	var s []string
	for i, t := range topics {
		s = append(s, topicSentences[t][:n[i]]...)
	}
	return strings.Join(s, " ")
}

// topicsOf returns the topics whose sentences a piece holds.
func topicsOf(text string) []string {
	var out []string
	for _, t := range []string{"river", "bread", "chess"} {
		for _, s := range topicSentences[t] {
			if strings.Contains(text, s) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func TestCohesionCutsBetweenTopics(t *testing.T) {
	tests := []struct {
		name   string
		topics []string
		n      []int
		target int
		want   [][]string // topics of each piece
	}{
		// Greedy fills the first piece to the target: three river
		// sentences and the first bread one.
		{"two topics", []string{"river", "bread"}, []int{3, 5}, 60, [][]string{{"river"}, {"bread"}}},
		// Greedy cuts inside the bread sentences and again after them.
		{"three topics", []string{"river", "bread", "chess"}, []int{4, 6, 3}, 60, [][]string{{"river"}, {"bread"}, {"chess"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := topicEntry(tt.topics, tt.n)
			ps := splitEntry(text, 1, ChunkOptions{TargetTokens: tt.target, OverlapTokens: -1, Cohesion: true})
			var got [][]string
			for _, p := range ps {
				got = append(got, topicsOf(p.text))
			}
			if !equalTopics(got, tt.want) {
				t.Errorf("topics of the pieces: %v, want %v; pieces %q", got, tt.want, pieceTexts(ps))
			}
			if joined := joinTexts(ps); joined != text {
				t.Errorf("pieces joined: %q, want the entry %q", joined, text)
			}
		})
	}
}

func TestCohesionKeepsSizeWindow(t *testing.T) {
	// The river sentences alone, and the chess one, are under half the
	// target: neither is a piece of its own (greedy leaves the chess
	// sentence alone in a third piece).
	text := topicEntry([]string{"river", "bread", "chess"}, []int{2, 6, 1})
	const target = 50
	ps := splitEntry(text, 1, ChunkOptions{TargetTokens: target, OverlapTokens: -1, Cohesion: true})
	if len(ps) != (estimateTokens(text)+target-1)/target {
		t.Errorf("%d pieces of an entry of %d tokens at target %d: %q", len(ps), estimateTokens(text), target, pieceTexts(ps))
	}
	for _, p := range ps {
		if n := estimateTokens(p.text); n < target/2 || n > target+target/2 {
			t.Errorf("piece of %d tokens, want %d..%d: %q", n, target/2, target+target/2, p.text)
		}
	}
}

func TestCohesionOverlap(t *testing.T) {
	text := topicEntry([]string{"river", "bread"}, []int{3, 5})
	ps := splitEntry(text, 1, ChunkOptions{TargetTokens: 60, OverlapTokens: 12, Cohesion: true})
	if len(ps) != 2 {
		t.Fatalf("%d pieces, want 2: %q", len(ps), pieceTexts(ps))
	}
	last := topicSentences["river"][2]
	if !strings.HasPrefix(ps[1].text, last+" "+topicSentences["bread"][0]) {
		t.Errorf("second piece %q, want it led by the last river sentence", ps[1].text)
	}
	if strings.Contains(ps[1].text, topicSentences["river"][1]) {
		t.Errorf("second piece %q carries more than the overlap budget", ps[1].text)
	}
}

func TestCohesionRebuildsIndex(t *testing.T) {
	ws := newWorkspace(t, "ws")
	q := Query{Text: "bulk lookup container", Teammates: []string{"beacon"}, RecencyDepth: -1}
	greedy, _ := openIndex(t, ws, Options{})
	before := paths(runSearch(t, greedy, q))
	opts := Options{Chunking: ChunkOptions{Cohesion: true}}
	tiled, warn := openIndex(t, ws, opts)
	after := paths(runSearch(t, tiled, q))
	if !strings.Contains(warn.String(), "chunker settings changed") {
		t.Errorf("warnings %q, want the index rebuilt for the new chunker", warn.String())
	}
	m, err := readManifest(filepath.Join(ws.IndexDir("beacon"), manifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := opts.Chunking.String(); m.Chunker != want || want == DefaultChunkOptions.String() {
		t.Errorf("manifest chunker %q, want %q (not the default %q)", m.Chunker, want, DefaultChunkOptions.String())
	}
	if strings.Join(before, ",") != strings.Join(after, ",") {
		t.Errorf("hits after the rebuild %v, want %v", after, before)
	}
}

func equalTopics(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], ",") != strings.Join(b[i], ",") {
			return false
		}
	}
	return true
}

func pieceTexts(ps []piece) []string {
	var s []string
	for _, p := range ps {
		s = append(s, p.text)
	}
	return s
}

// joinTexts joins pieces cut without overlap back into one paragraph.
func joinTexts(ps []piece) string { return strings.Join(pieceTexts(ps), " ") }
