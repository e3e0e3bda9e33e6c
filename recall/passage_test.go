package recall

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// standup is a daily whose first entry is long enough to be cut into
// several chunks: "walrus" is on two lines far apart, "kiwi" on two lines
// next to each other, and the answer to "what broke" sits on the line
// after the question, without its words.
const standup = `# 2026-09-01

## Standup notes
<!-- tmem:at 2026-09-01T09:00:00Z -->
- [A1] Ana: the walrus migration started on Monday morning after the freeze.
- [A2] Ben: ok.
- [A3] Ana: the cache layer needs new eviction settings before the launch.
- [A4] Ben: the dashboard export is slow for the larger tenants this week.
- [A5] Ana: the billing report totals were off by one cent again today.
- [A6] Ben: the kiwi rollout reached every region without a single alert.
- [A7] Ana: the kiwi flags can be removed from the config next sprint then.
- [A8] Ben: the onboarding guide still shows the old login screen images.
- [A9] Ana: the pager rotation moves to the new schedule on the first.
- [A10] Ben: the search latency graph has a gap around midnight sometimes.
- [A11] Ana: the walrus backfill finished overnight with no errors at all.
- [A12] Ben: nice.

## Lunch
- [B1] Ana: tacos again.
`

func standupIndex(t *testing.T) *Index {
	t.Helper()
	ws := newWorkspace(t, "ws")
	writeFile(t, ws, "beacon/memory/2026-09-01.md", standup)
	ix, _ := openIndex(t, ws, Options{Chunking: ChunkOptions{TargetTokens: 30, OverlapTokens: -1}})
	return ix
}

// linesOf returns lines from..to of standup as a hit shows them.
func linesOf(from, to int) string {
	var out []string
	for i, l := range strings.Split(standup, "\n") {
		if n := i + 1; n >= from && n <= to && !strings.HasPrefix(l, "<!--") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestPassagesOfOneFile: a file gives several passages, neighbouring
// chunks that both rank merge into one, each passage shows whole lines
// with a short line of context within its entry, and path:start-end is
// exactly what it shows.
func TestPassagesOfOneFile(t *testing.T) {
	ix := standupIndex(t)
	const path = "beacon/memory/2026-09-01.md"
	tests := []struct {
		name  string
		query string
		want  []string // tags each passage of the file must show, in order of the file
	}{
		{"two passages far apart", "walrus", []string{"[A1] [A2]", "[A10] [A11] [A12]"}},
		{"neighbours merge into one", "kiwi rollout flags", []string{"[A5] [A6] [A7] [A8]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := runSearch(t, ix, Query{Text: tt.query, Teammates: []string{"beacon"}, NoSync: true, Mode: ModeBM25, RecencyDepth: -1})
			var got []Hit
			for _, h := range hits {
				if h.Path == path {
					got = append(got, h)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d passages of %s, want %d: %+v", len(got), path, len(tt.want), got)
			}
			for i := range got {
				for j := range got {
					if i != j && got[i].StartLine <= got[j].EndLine+1 && got[j].StartLine <= got[i].EndLine+1 {
						t.Errorf("passages %d-%d and %d-%d touch but were not merged", got[i].StartLine, got[i].EndLine, got[j].StartLine, got[j].EndLine)
					}
				}
			}
			for _, h := range got {
				if h.Text != linesOf(h.StartLine, h.EndLine) {
					t.Errorf("%s:%d-%d shows\n%s\nwant those lines:\n%s", h.Path, h.StartLine, h.EndLine, h.Text, linesOf(h.StartLine, h.EndLine))
				}
				if strings.Contains(h.Text, "## Standup notes") {
					t.Errorf("passage %d-%d repeats the entry's heading, which its Heading holds:\n%s", h.StartLine, h.EndLine, h.Text)
				}
				if strings.Contains(h.Text, "## Lunch") || strings.Contains(h.Text, "# 2026-09-01\n") {
					t.Errorf("passage %d-%d runs outside its entry:\n%s", h.StartLine, h.EndLine, h.Text)
				}
			}
			for _, tags := range tt.want {
				found := false
				for _, h := range got {
					all := true
					for _, tag := range strings.Fields(tags) {
						all = all && strings.Contains(h.Text, "- "+tag+" ")
					}
					found = found || all
				}
				if !found {
					t.Errorf("no passage shows all of %s:\n%s", tags, fmt.Sprint(got))
				}
			}
		})
	}
}

// TestHeadingShownOnce: a hit's text starts below its entry's heading
// line, which its Heading holds, unless the entry is only a heading.
func TestHeadingShownOnce(t *testing.T) {
	ws := exactWorkspace(t, map[string]string{
		"2026-09-02.md": "# 2026-09-02\n\n## Deployed the kiwi flags\n\n- every region, no alert\n\n## Paged about walrus\n",
	})
	ix, _ := openIndex(t, ws, Options{})
	tests := []struct {
		name, query, text, lines string
	}{
		{"an entry with a body", "kiwi flags deployed", "- every region, no alert", "5-5"},
		{"an entry that is only a heading", "paged walrus", "## Paged about walrus", "7-7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := runSearch(t, ix, Query{Text: tt.query, Teammates: []string{"beacon"}, Mode: ModeBM25, RecencyDepth: -1})
			if len(hits) == 0 {
				t.Fatalf("no hit for %q", tt.query)
			}
			h := hits[0]
			if got := fmt.Sprintf("%d-%d", h.StartLine, h.EndLine); h.Text != tt.text || got != tt.lines {
				t.Errorf("hit %s:%s shows %q, want lines %s showing %q", h.Path, got, h.Text, tt.lines, tt.text)
			}
		})
	}
}

// TestWidenWithinEntry: context is whole lines next to a passage, within
// its entry (its heading included, the next entry's not), skipping stamps
// and blank lines, and only as many tokens as allowed.
func TestWidenWithinEntry(t *testing.T) {
	f := &fileText{lines: strings.Split(standup, "\n"), skip: map[int]bool{4: true}}
	tests := []struct {
		name             string
		from, to         int
		lines, tokens    int
		wantFrom, wantTo int
	}{
		{"a line each side", 7, 7, 1, 30, 6, 8},
		{"two lines each side", 7, 7, 2, 60, 5, 9},
		{"a long line costs too much", 7, 7, 1, 10, 6, 7},
		{"none asked", 7, 7, 0, 30, 7, 7},
		{"up to the heading, past the stamp", 5, 5, 1, 30, 3, 6},
		{"not into the next entry", 16, 16, 1, 30, 15, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := f.entryOf(tt.from, tt.to)
			if lo != 3 || hi != 17 {
				t.Fatalf("entry of %d-%d is %d-%d, want 3-17", tt.from, tt.to, lo, hi)
			}
			from, to := f.widen(tt.from, tt.to, lo, hi, tt.lines, tt.tokens)
			if from != tt.wantFrom || to != tt.wantTo {
				t.Errorf("widen(%d-%d) = %d-%d, want %d-%d", tt.from, tt.to, from, to, tt.wantFrom, tt.wantTo)
			}
		})
	}
}

// TestLongHeadingOnePassage: the chunks of an entry whose heading is too
// long to carry whole after its first chunk still merge into one passage.
func TestLongHeadingOnePassage(t *testing.T) {
	f := layout.File{Teammate: "beacon", Kind: layout.KindDaily, Path: "beacon/memory/2026-09-01.md"}
	src := "# 2026-09-01\n\n## " + strings.Repeat("standup ", 100) + "\n\n" + strings.Repeat("The walrus migration went on for a while. ", 30) + "\n"
	cs, err := ChunkFile(f, []byte(src), ChunkOptions{TargetTokens: 30, OverlapTokens: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 3 || cs[0].Heading == cs[1].Heading {
		t.Fatalf("want an entry of 3+ chunks whose later ones carry the heading cut, got %d", len(cs))
	}
	var rs []ranked
	for i, c := range cs[:3] {
		rs = append(rs, ranked{chunk: c, score: float64(3 - i)})
	}
	if got := passages(rs, 10, 1); len(got) != 1 {
		t.Errorf("%d passages of one entry's neighbouring chunks, want 1", len(got))
	}
}
