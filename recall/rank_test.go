package recall

import (
	"fmt"
	"strings"
	"testing"
)

func ids(rs []ranked) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.chunk.ID)
	}
	return strings.Join(out, ",")
}

func TestFuse(t *testing.T) {
	bm := []scored{{"a", 10}, {"b", 5}, {"c", 1}}
	vec := []scored{{"c", 0.9}, {"d", 0.8}, {"a", 0.1}}
	tests := []struct {
		name string
		r    Ranking
		bm   []scored
		vec  []scored
		want string
	}{
		{"rrf rewards agreement", Ranking{Fusion: FusionRRF, RRFK: 60}, bm, vec, "a,c,b,d"},
		{"weighted keeps score gaps", Ranking{Fusion: FusionWeighted, VectorWeight: 0.5}, bm, vec, "a,c,d,b"},
		{"weighted leaning on vectors", Ranking{Fusion: FusionWeighted, VectorWeight: 0.9}, bm, vec, "c,d,a,b"},
		{"bm25 only", Ranking{Fusion: FusionWeighted, VectorWeight: 0.5}, bm, nil, "a,b,c"},
		{"vectors only", Ranking{Fusion: FusionWeighted, VectorWeight: 0.5}, nil, vec, "c,d,a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(fuse(tt.r, tt.bm, tt.vec)); got != tt.want {
				t.Errorf("fuse = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFuseReasons(t *testing.T) {
	rs := fuse(DefaultRanking, []scored{{"a", 1}}, []scored{{"a", 0.5}, {"b", 0.4}})
	got := map[string]string{}
	for _, r := range rs {
		got[r.chunk.ID] = strings.Join(r.reason, "+")
	}
	if got["a"] != "bm25+vector" || got["b"] != "vector" {
		t.Errorf("reasons %v", got)
	}
}

func rk(path string, ord int, kind string, score float64) ranked {
	return ranked{chunk: Chunk{ID: fmt.Sprintf("%s#%d", path, ord), Path: path, Ordinal: ord, Kind: kind, Heading: "h", Text: fmt.Sprintf("%s text %d", path, ord), StartLine: ord * 10, EndLine: ord*10 + 5}, score: score, reason: []string{"bm25"}}
}

func TestBoost(t *testing.T) {
	tests := []struct {
		name string
		in   []ranked
		want string
	}{
		{"typed memory overtakes a close weekly", []ranked{rk("w", 0, "weekly", 1), rk("t", 0, "typed", 0.95)}, "t#0,w#0"},
		{"a weekly 15% better stays ahead", []ranked{rk("w", 0, "weekly", 1), rk("t", 0, "typed", 0.85)}, "w#0,t#0"},
		{"a far better weekly stays ahead", []ranked{rk("w", 0, "weekly", 1), rk("t", 0, "typed", 0.5)}, "w#0,t#0"},
		{"daily sinks below an equal monthly", []ranked{rk("d", 0, "daily", 1), rk("m", 0, "monthly", 1)}, "m#0,d#0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			boost(DefaultRanking, tt.in)
			if got := ids(tt.in); got != tt.want {
				t.Errorf("boost order %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPassages(t *testing.T) {
	otherEntry := rk("a", 4, "daily", 2)
	otherEntry.chunk.Heading = "another entry"
	tests := []struct {
		name      string
		in        []ranked
		k         int
		decay     float64
		want      string
		wantLines string // of the first passage
	}{
		{"several passages of one file", []ranked{rk("a", 3, "daily", 3), rk("a", 7, "daily", 2.5), rk("b", 0, "daily", 1)}, 10, 1, "a#3,a#7,b#0", "30-35"},
		{"a file's second passage is decayed", []ranked{rk("a", 3, "daily", 3), rk("a", 7, "daily", 2.5), rk("b", 0, "daily", 2)}, 10, 0.5, "a#3,b#0,a#7", "30-35"},
		{"near-zero decay: one passage a file first", []ranked{rk("a", 3, "daily", 3), rk("a", 7, "daily", 2.5), rk("b", 0, "daily", 0.1)}, 2, 0.01, "a#3,b#0", "30-35"},
		{"neighbours merge and take one place", []ranked{rk("a", 3, "daily", 3), rk("a", 4, "daily", 2), rk("a", 2, "daily", 1.5), rk("b", 0, "daily", 1)}, 2, 1, "a#2,b#0", "20-45"},
		{"a gap stops merging", []ranked{rk("a", 3, "daily", 3), rk("a", 5, "daily", 2)}, 10, 1, "a#3,a#5", "30-35"},
		{"another entry does not merge", []ranked{rk("a", 3, "daily", 3), otherEntry}, 10, 1, "a#3,a#4", "30-35"},
		{"k passages at most", []ranked{rk("a", 1, "daily", 3), rk("b", 1, "daily", 2), rk("c", 1, "daily", 1)}, 2, 1, "a#1,b#1", "10-15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := passages(tt.in, tt.k, tt.decay)
			if got := ids(out); got != tt.want {
				t.Fatalf("passages = %s, want %s", got, tt.want)
			}
			if got := fmt.Sprintf("%d-%d", out[0].chunk.StartLine, out[0].chunk.EndLine); got != tt.wantLines {
				t.Errorf("first passage lines %s, want %s", got, tt.wantLines)
			}
			if out[0].score != tt.in[0].score {
				t.Errorf("first passage score %v, want the best chunk's %v", out[0].score, tt.in[0].score)
			}
			for i := 1; i < len(out); i++ {
				if out[i].score > out[i-1].score {
					t.Errorf("passage %d scores %v, above the one before it (%v)", i, out[i].score, out[i-1].score)
				}
			}
		})
	}
}

func TestJoinOverlap(t *testing.T) {
	tests := []struct{ name, a, b, want string }{
		{"overlapping sentence", "One. Two.", "Two. Three.", "One. Two. Three."},
		{"no overlap", "One.", "Three.", "One.\nThree."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := joinOverlap(tt.a, tt.b); got != tt.want {
				t.Errorf("joinOverlap = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWithRecency(t *testing.T) {
	hits := []ranked{rk("a", 0, "typed", 3), rk("w1", 0, "weekly", 2), rk("b", 0, "typed", 1)}
	recent := []ranked{{chunk: Chunk{ID: "w1#0", Path: "w1"}}, {chunk: Chunk{ID: "w2#0", Path: "w2"}}}
	tests := []struct {
		name string
		k    int
		want string
	}{
		{"room for both", 5, "a#0,w1#0,b#0,w2#0"},
		{"added after k hits", 2, "a#0,w1#0,w2#0"},
		{"cut below a recent weekly", 1, "a#0,w1#0,w2#0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := withRecency(append([]ranked(nil), hits...), recent, tt.k)
			if got := ids(out); got != tt.want {
				t.Errorf("withRecency = %s, want %s", got, tt.want)
			}
			n := 0
			for _, r := range out {
				if r.chunk.Path == "w1" {
					n++
					if !hasReason(r.reason, "recency") {
						t.Error("w1 not marked recency")
					}
				}
			}
			if n != 1 {
				t.Errorf("w1 appears %d times, want once", n)
			}
		})
	}
}

// logChunk is a chunk of the log (or a memory) with a date, a source
// when archived, and the given text.
func logChunk(path string, ord int, kind, date, source, text string, score float64) ranked {
	x := rk(path, ord, kind, score)
	x.chunk.Teammate, x.chunk.Date, x.chunk.Source, x.chunk.Text = "beacon", date, source, text
	if source != "" {
		x.chunk.Section = 10 * (ord + 1)
	}
	return x
}

// TestDropCopies: the same words are one memory only where compaction
// copied them (the same time, in two files of the log); two days that
// say the same thing, or a memory repeating a daily, stay two.
func TestDropCopies(t *testing.T) {
	const line = "- Rotated the staging database password"
	tests := []struct {
		name string
		in   []ranked
		want string
	}{
		{"the same line on two days", []ranked{
			logChunk("d1", 0, "daily", "2026-03-03", "", line, 2),
			logChunk("d2", 0, "daily", "2026-03-10", "", line, 1)}, "d1#0,d2#0"},
		{"a typed memory repeating a daily", []ranked{
			logChunk("d", 0, "daily", "2026-03-03", "", line, 2),
			logChunk("t", 0, "typed", "2026-03-03", "", line, 1)}, "d#0,t#0"},
		{"a daily repeating WISDOM.md", []ranked{
			logChunk("w", 0, "wisdom", "", "", line, 2),
			logChunk("d", 0, "daily", "2026-03-03", "", line, 1)}, "w#0,d#0"},
		{"two entries of one daily", []ranked{
			logChunk("d", 0, "daily", "2026-03-03", "", line, 2),
			logChunk("d", 4, "daily", "2026-03-03", "", line, 1)}, "d#0,d#4"},
		{"a weekly's copy of a day of its week", []ranked{
			logChunk("wk", 0, "weekly", "2026-03-02", "", line, 2),
			logChunk("d", 0, "daily", "2026-03-08", "", line, 1)}, "wk#0"},
		{"a weekly of another week", []ranked{
			logChunk("wk", 0, "weekly", "2026-03-09", "", line, 2),
			logChunk("d", 0, "daily", "2026-03-08", "", line, 1)}, "wk#0,d#0"},
		{"spacing aside", []ranked{
			logChunk("d", 0, "daily", "2026-03-03", "", line, 2),
			logChunk("a", 0, "archive", "2026-03-03", "2026-03-03.md", "-  Rotated the\nstaging database   password", 1)}, "d#0"},
		{"a monthly's day copied from an archived weekly", []ranked{
			logChunk("a", 0, "archive", "2026-03-02", "weekly/2026-W10.md", line, 2),
			logChunk("m", 0, "monthly", "2026-03-01", "", line, 1)}, "a#0"},
		{"a monthly and a day of a week it shares with the next month", []ranked{
			logChunk("m", 0, "monthly", "2026-09-01", "", line, 2),
			logChunk("d", 0, "daily", "2026-10-02", "", line, 1)}, "m#0"},
		{"a monthly and a day of another month", []ranked{
			logChunk("m", 0, "monthly", "2026-09-01", "", line, 2),
			logChunk("d", 0, "daily", "2026-10-05", "", line, 1)}, "m#0,d#0"},
		{"two archived sources of one archive file", []ranked{
			logChunk("a", 0, "archive", "2026-03-02", "weekly/2026-W10.md", line, 2),
			logChunk("a", 3, "archive", "2026-03-04", "2026-03-04.md", line, 1)}, "a#0"},
		{"an archived typed memory is no log", []ranked{
			logChunk("m", 0, "monthly", "2026-03-01", "", line, 2),
			logChunk("x", 0, "archive", "2026-03-04", "", line, 1)}, "m#0,x#0"},
		{"different words", []ranked{
			logChunk("wk", 0, "weekly", "2026-03-02", "", line, 2),
			logChunk("d", 0, "daily", "2026-03-03", "", line+" again", 1)}, "wk#0,d#0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(dropCopies(tt.in)); got != tt.want {
				t.Errorf("dropCopies = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestSameWords: what dropCopies compares when two texts hash alike.
func TestSameWords(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"- Caroline: the ETA test", "-  Caroline:\tthe ETA test\n", true},
		{"- Caroline: the ETA test", "- Caroline: the ETA tests", false},
		{"one two", "two one", false},
		{"", " \n", true},
	}
	for _, tt := range tests {
		if got := sameWords(tt.a, tt.b); got != tt.want {
			t.Errorf("sameWords(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if tt.want && wordsHash(tt.a) != wordsHash(tt.b) {
			t.Errorf("wordsHash(%q) != wordsHash(%q)", tt.a, tt.b)
		}
	}
}

// TestPreferLogs: a summary's day is left out when a chunk of the log it
// cites scored too, and kept when none did.
func TestPreferLogs(t *testing.T) {
	day := func(cites string, score float64) ranked {
		r := rk("w", 2, "weekly", score)
		r.chunk.Cites = cites
		return r
	}
	tests := []struct {
		name string
		in   []ranked
		want string
	}{
		{"the cited log scored", []ranked{day("a", 3), rk("a", 1, "daily", 1)}, "a#1"},
		{"the cited log did not score", []ranked{day("a", 3), rk("b", 1, "daily", 1)}, "w#2,b#1"},
		{"another log scored", []ranked{day("c", 3), rk("a", 1, "daily", 1)}, "w#2,a#1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(passages(tt.in, 10, 1)); got != tt.want {
				t.Errorf("passages = %s, want %s", got, tt.want)
			}
		})
	}
}
