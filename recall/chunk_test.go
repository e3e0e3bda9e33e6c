package recall

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

func TestChunkFixtureGolden(t *testing.T) {
	ws := newWorkspace(t, "ws")
	var got []Chunk
	for _, name := range []string{"beacon", "quill"} {
		files, err := ws.Files(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(ws.Abs(f.Path))
			if err != nil {
				t.Fatal(err)
			}
			cs, err := ChunkFile(f, src, DefaultChunkOptions)
			if err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
			got = append(got, cs...)
		}
	}
	golden(t, "chunks.golden.json", got)
}

// longEntry builds a daily with one entry of paragraphs of sentences.
func longEntry(paras, sentences, words int) string {
	var b strings.Builder
	b.WriteString("# 2026-01-05\n\n## Long entry\n\n")
	for p := 0; p < paras; p++ {
		for s := 0; s < sentences; s++ {
			for w := 0; w < words; w++ {
				b.WriteString("word ")
			}
			b.WriteString("end.")
			if s+1 < sentences {
				b.WriteString(" ")
			}
		}
		b.WriteString("\n\n")
	}
	b.WriteString("## Next entry\n\nShort.\n")
	return b.String()
}

func TestChunkSplitting(t *testing.T) {
	f := layout.File{Teammate: "a", Kind: layout.KindDaily, Path: "a/memory/2026-01-05.md"}
	tests := []struct {
		name       string
		src        string
		opts       ChunkOptions
		wantChunks int
	}{
		{"short entries stay whole", longEntry(1, 2, 5), DefaultChunkOptions, 2},
		{"paragraphs pack up to the target", longEntry(6, 2, 20), ChunkOptions{TargetTokens: 120, OverlapTokens: -1}, 4},
		{"a long paragraph splits at sentences", longEntry(1, 12, 20), ChunkOptions{TargetTokens: 60, OverlapTokens: -1}, 7},
		{"a runaway sentence splits at words", longEntry(1, 1, 300), ChunkOptions{TargetTokens: 100, OverlapTokens: -1}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := ChunkFile(f, []byte(tt.src), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != tt.wantChunks {
				t.Errorf("got %d chunks, want %d", len(cs), tt.wantChunks)
			}
			o := tt.opts.withDefaults()
			for i, c := range cs {
				if n := estimateTokens(c.Text); n > o.TargetTokens {
					t.Errorf("chunk %d has %d tokens, over the target %d", i, n, o.TargetTokens)
				}
				if c.Ordinal != i {
					t.Errorf("chunk %d has ordinal %d", i, c.Ordinal)
				}
			}
			last := cs[len(cs)-1]
			if last.Heading != "2026-01-05 > Next entry" || last.Text != "Short." {
				t.Errorf("last chunk %q / %q: an entry must start its own chunk", last.Heading, last.Text)
			}
		})
	}
}

func TestChunkOverlap(t *testing.T) {
	f := layout.File{Teammate: "a", Kind: layout.KindDaily, Path: "a/memory/2026-01-05.md"}
	src := "# 2026-01-05\n\n## E\n\nAlpha one two three four five six seven. Bravo one two three four five six seven. Charlie one two three four five six seven. Delta one two three four five six seven.\n"
	cs, err := ChunkFile(f, []byte(src), ChunkOptions{TargetTokens: 25, OverlapTokens: 12})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 2 {
		t.Fatalf("got %d chunks, want a split", len(cs))
	}
	for i := 1; i < len(cs); i++ {
		prev := cs[i-1].Text
		lastSentence := prev[strings.LastIndex(prev[:len(prev)-1], ". ")+2:]
		if !strings.HasPrefix(cs[i].Text, lastSentence) {
			t.Errorf("chunk %d %q does not start with the previous chunk's last sentence %q", i, cs[i].Text, lastSentence)
		}
	}
}

// TestLongHeadingOnce: an entry's first chunk has its heading whole; the
// others a bounded start of it, so that a heading of kilobytes is not
// indexed once per chunk.
func TestLongHeadingOnce(t *testing.T) {
	f := layout.File{Teammate: "a", Kind: layout.KindDaily, Path: "a/memory/2026-01-05.md"}
	heading := strings.Repeat("word ", 2000) + "lastword"
	src := "# 2026-01-05\n\n## " + heading + "\n\n" + strings.Repeat("Alpha one two three four five six seven. ", 40) + "\n"
	cs, err := ChunkFile(f, []byte(src), ChunkOptions{TargetTokens: 25, OverlapTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 3 {
		t.Fatalf("got %d chunks, want a split", len(cs))
	}
	if want := "2026-01-05 > " + heading; cs[0].Heading != want {
		t.Errorf("the first chunk's heading is %d bytes, want the whole %d", len(cs[0].Heading), len(want))
	}
	for _, c := range cs[1:] {
		if len(c.Heading) > maxCrumb+len(" …") || !strings.HasPrefix(c.Heading, "2026-01-05 > word word") {
			t.Errorf("chunk %d's heading is %d bytes: %.40q…", c.Ordinal, len(c.Heading), c.Heading)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"ten words", "a b c d e f g h i j", 13},
		{"cjk counts characters", "検索インデックス", 8},
		{"mixed", "search 検索", 2 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := estimateTokens(tt.in); got != tt.want {
				t.Errorf("estimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

// TestChunkCap checks that a file of very many tiny entries yields a
// bounded number of chunks that still hold every entry, in order, and
// cover its lines.
func TestChunkCap(t *testing.T) {
	for _, n := range []int{maxChunksPerFile, maxChunksPerFile + 1, 5 * maxChunksPerFile} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var b strings.Builder
			b.WriteString("# 2026-11-02\n")
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "\n## h%d\nword%d\n", i, i)
			}
			f := layout.File{Teammate: "beacon", Kind: layout.KindDaily, Path: "beacon/memory/2026-11-02.md"}
			cs, err := ChunkFile(f, []byte(b.String()), ChunkOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) > maxChunksPerFile {
				t.Fatalf("%d chunks, want at most %d", len(cs), maxChunksPerFile)
			}
			next, line := 0, 0
			for i, c := range cs {
				if c.Ordinal != i || c.StartLine <= line {
					t.Fatalf("chunk %d: ordinal %d, lines %d-%d after line %d", i, c.Ordinal, c.StartLine, c.EndLine, line)
				}
				line = c.EndLine
				for _, w := range strings.Fields(c.Text) {
					if w == fmt.Sprintf("word%d", next) {
						next++
					}
				}
			}
			if next != n {
				t.Errorf("found %d of %d entries in order", next, n)
			}
			if last := cs[len(cs)-1]; last.EndLine != 3*n+1 {
				t.Errorf("last chunk ends at line %d, want %d", last.EndLine, 3*n+1)
			}
		})
	}
}

// A summary's day cites its full log by the archived source's name, so it
// groups with every archive copy of that day wherever a merge of the
// archive put them, and with nothing else.
func TestSummaryDayGroupsWithItsLog(t *testing.T) {
	day := func(d string) layout.ArchiveSection {
		return layout.NewArchiveSection(d+".md", []byte("# "+d+"\n\n## Work\n\nMoved the queue on "+d+".\n"), time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC))
	}
	late := layout.NewArchiveSection("2026-03-10.md", []byte("# 2026-03-10\n\n## Late\n\nPaged.\n"), time.Date(2026, 3, 21, 0, 0, 0, 0, time.UTC))
	arch := layout.AppendArchive(nil, "2026-03", day("2026-03-09"), day("2026-03-10"), day("2026-03-11"), late)
	archive, err := ChunkFile(layout.File{Teammate: "beacon", Kind: layout.KindArchive, Month: "2026-03", Path: "beacon/memory/archive/2026-03.md"}, arch, ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	weekly := "---\ntype: weekly\n---\n\n# Week 2026-W11\n\n## 2026-03-10 Tuesday\n\n- Work — Moved the queue.\n\nLog: 2026-03-10.md in archive/2026-03.md\n"
	sum, err := ChunkFile(layout.File{Teammate: "beacon", Kind: layout.KindWeekly, Path: "beacon/memory/weekly/2026-W11.md"}, []byte(weekly), ChunkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cites string
	for _, c := range sum {
		if c.Cites != "" {
			cites = c.group()
		}
	}
	if cites == "" {
		t.Fatalf("no chunk of the weekly cites its log: %+v", sum)
	}
	tests := []struct {
		name   string
		source string
		want   bool
	}{
		{"the cited day, first copy and late copy", "2026-03-10.md", true},
		{"the day before", "2026-03-09.md", false},
		{"the day after", "2026-03-11.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			for _, c := range archive {
				if c.Source == tt.source {
					n++
					if got := c.group() == cites; got != tt.want {
						t.Errorf("archive chunk at line %d groups with the summary's day: %v, want %v", c.Section, got, tt.want)
					}
				}
			}
			if n == 0 {
				t.Fatalf("no archive chunk of %s", tt.source)
			}
		})
	}
}

// A compacted daily's stub yields no chunk (its text is found in the
// archive); entries appended to it since are found.
func TestStubChunks(t *testing.T) {
	d := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	f := layout.File{Teammate: "beacon", Kind: layout.KindDaily, Path: "beacon/memory/2026-03-09.md", Date: d}
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"bare stub", string(layout.DailyStub(d, true)), 0},
		{"stub with an entry appended", string(layout.DailyStub(d, true)) + "\n## Late\n\nPaged on the outage.\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := ChunkFile(f, []byte(tt.src), ChunkOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, c := range cs {
				if strings.Contains(c.Text, "Paged") {
					n++
				}
			}
			if tt.want == 0 && len(cs) != 0 || tt.want > 0 && n != tt.want {
				t.Errorf("chunks %+v, want %d holding the entry", cs, tt.want)
			}
		})
	}
}
