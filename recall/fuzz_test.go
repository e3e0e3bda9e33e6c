package recall

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/tmemhq/tmem/layout"
)

// dateSeeds are queries and log lines from the date tests.
var dateSeeds = []string{
	"what happened on 2026-06-03?",
	"the week of 2026-08-17",
	"notes from 2020-W53",
	"what did I do in week 52 of 2023",
	"the first week of March 2026",
	"outage in mid April 2026",
	"the week before Christmas 2025",
	"on the 8th of May 2023",
	"between August 11 and August 15 2023",
	"what happened May 3–7",
	"December 28 to January 3, 2024",
	"between 2023-01-15 and 2023-06-15",
	"the last week of 2023",
	"winter 2023",
	"what did she do during the summer",
	"the day before yesterday",
	"a couple of months ago",
	"last weekend",
	"what did we ship last Friday",
	"this winter",
	"early July",
	"DX-2023 and v1.7 in us-east-1 at 0.07%",
	"- [D1:3] Caroline: I went to a support group last Friday.",
}

// dateToken is the shape of every date token (see dates.go).
var dateToken = regexp.MustCompile(`^(?:d(\d{8})|w(\d{4})w(\d{2})|m(\d{6})|y(\d{1,4})|mo(\d{2}))$`)

// checkDateTokens fails unless every token has its shape, names a real
// day, week or month, and comes once.
func checkDateTokens(t *testing.T, in string, toks []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, tok := range toks {
		if seen[tok] {
			t.Fatalf("%q: token %s twice in %v", in, tok, toks)
		}
		seen[tok] = true
		if !realDateToken(tok) {
			t.Fatalf("%q: token %q names no date, in %v", in, tok, toks)
		}
	}
}

func realDateToken(tok string) bool {
	m := dateToken.FindStringSubmatch(tok)
	switch {
	case m == nil:
		return false
	case m[1] != "":
		t, err := time.Parse("20060102", m[1])
		return err == nil && t.Year() >= 1
	case m[2] != "":
		y, n := atoi(m[2]), atoi(m[3])
		return y >= 1 && n >= 1 && n <= layout.WeeksInYear(y)
	case m[4] != "":
		t, err := time.Parse("200601", m[4])
		return err == nil && t.Year() >= 1
	case m[5] != "":
		return atoi(m[5]) >= 1
	}
	n := atoi(m[6])
	return n >= 1 && n <= 12
}

// fuzzNow is a clock reading from 1900 to 2199.
func fuzzNow(days int64) time.Time {
	start := time.Date(1900, 1, 1, 12, 0, 0, 0, time.UTC)
	return start.AddDate(0, 0, int(uint64(days)%(300*365)))
}

// FuzzQueryWhen checks that the dates read from any query are real dates,
// each once, and that reading is deterministic.
func FuzzQueryWhen(f *testing.F) {
	for i, s := range dateSeeds {
		f.Add(s, int64(i*9001))
	}
	f.Fuzz(func(t *testing.T, q string, days int64) {
		now := fuzzNow(days)
		got := queryWhen(q, now)
		checkDateTokens(t, q, got)
		if again := queryWhen(q, now); strings.Join(again, " ") != strings.Join(got, " ") {
			t.Fatalf("%q: read twice, %v then %v", q, got, again)
		}
	})
}

// FuzzMentionTokens checks that the dates a chunk's text names, and those
// of its own date, are real dates, each once, and no more than
// maxMentions of the text's.
func FuzzMentionTokens(f *testing.F) {
	for i, s := range dateSeeds {
		f.Add(s, uint8(i), "2023-05-10")
	}
	f.Add("shipped 0001-01-01, a year after 9999-12-31", uint8(0), "0001-01-01")
	f.Fuzz(func(t *testing.T, text string, kind uint8, date string) {
		kinds := []string{"daily", "weekly", "monthly", "typed", "archive"}
		k := kinds[int(kind)%len(kinds)]
		checkDateTokens(t, date, strings.Fields(whenTokens(k, date)))
		got := mentionTokens(k, date, text)
		checkDateTokens(t, text, got)
		if len(got) > maxMentions {
			t.Fatalf("%q: %d tokens, over %d", text, len(got), maxMentions)
		}
	})
}

// FuzzQueryWhenDay checks that a day written in any of the forms the
// reader knows, with a year, is read as that day.
func FuzzQueryWhenDay(f *testing.F) {
	f.Add(2023, uint8(5), uint8(8), uint8(0))
	f.Add(2020, uint8(2), uint8(29), uint8(1))
	f.Add(1999, uint8(12), uint8(31), uint8(2))
	f.Fuzz(func(t *testing.T, y int, m, d, form uint8) {
		y = 1900 + int(uint(y)%200)
		day, ok := validDay(y, time.Month(m), int(d))
		if !ok {
			return
		}
		forms := []string{
			"what happened on " + day.Format("2006-01-02") + "?",
			"on " + day.Format("January 2, 2006"),
			"the " + strconv.Itoa(day.Day()) + " " + day.Format("January 2006"),
			"on " + day.Format("Jan. 2 2006") + " we met",
		}
		q := forms[int(form)%len(forms)]
		want := dayToken(day)
		if got := queryWhen(q, time.Time{}); !strings.Contains(" "+strings.Join(got, " ")+" ", " "+want+" ") {
			t.Fatalf("queryWhen(%q) = %v, want %s", q, got, want)
		}
	})
}

// FuzzChunkFile checks the chunks of any memory file: each spans lines of
// the file in order, holds only words found on those lines, fits the
// target size, and is numbered in order.
func FuzzChunkFile(f *testing.F) {
	addChunkSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, kind uint8, target, overlap int8) {
		file := chunkFuzzFiles[int(kind)%len(chunkFuzzFiles)]
		opts := ChunkOptions{TargetTokens: int(target), OverlapTokens: int(overlap)}
		cs, err := ChunkFile(file, src, opts)
		if err != nil {
			return
		}
		checkChunks(t, file, src, cs, opts.withDefaults())
	})
}

// chunkFuzzFiles are the kinds of file FuzzChunkFile reads its input as.
var chunkFuzzFiles = []layout.File{
	layout.Classify("beacon", "memory", "2026-03-09.md"),
	layout.Classify("beacon", "memory", "project_auth.md"),
	layout.Classify("beacon", "memory/weekly", "2026-W11.md"),
	layout.Classify("beacon", "memory/monthly", "2026-03.md"),
	layout.Classify("beacon", "memory/archive", "2026-03.md"),
	layout.Classify("beacon", "", "WISDOM.md"),
}

// addChunkSeeds adds the files of the test workspace and a few shapes
// the splitter cuts: long paragraphs, runaway sentences, CJK, an archive.
func addChunkSeeds(f *testing.F) {
	ar, err := txtar.ParseFile("testdata/ws.txtar")
	if err != nil {
		f.Fatal(err)
	}
	for i, file := range ar.Files {
		f.Add(file.Data, uint8(i), int8(0), int8(0))
	}
	f.Add([]byte(longEntry(2, 4, 12)), uint8(0), int8(20), int8(8))
	f.Add([]byte(longEntry(1, 1, 40)), uint8(0), int8(10), int8(-1))
	f.Add([]byte("# 2026-03-09\r\n\r\n## 検索\r\n\r\n検索エンジンの設定。次に索引を作る。\r\n"), uint8(0), int8(3), int8(1))
	f.Add([]byte("Title\nmore\n===\n"), uint8(1), int8(0), int8(0))
	f.Add([]byte("# T\n\nPart\none\n---\n"), uint8(1), int8(0), int8(0))
	f.Add([]byte("# A title of many words and nothing under it\n"), uint8(1), int8(4), int8(0))
	sec := layout.NewArchiveSection("2026-03-09.md", []byte("# 2026-03-09\n\n## Work\n\nMoved the queue.\n"), time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC))
	f.Add(layout.AppendArchive(nil, "2026-03", sec), uint8(4), int8(0), int8(0))
}

// checkChunks checks the chunks of src against the invariants above.
func checkChunks(t *testing.T, file layout.File, src []byte, cs []Chunk, opts ChunkOptions) {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	for i, c := range cs {
		if c.Ordinal != i || c.ID != file.Path+"#"+strconv.Itoa(i) {
			t.Fatalf("chunk %d has ordinal %d and id %q", i, c.Ordinal, c.ID)
		}
		if c.StartLine < 1 || c.StartLine > c.EndLine || c.EndLine > len(lines) {
			t.Fatalf("chunk %d spans lines %d-%d of a file of %d:\n%q", i, c.StartLine, c.EndLine, len(lines), src)
		}
		if !utf8.ValidString(c.Text) {
			t.Fatalf("chunk %d text is not utf-8: %q", i, c.Text)
		}
		span := strings.Join(lines[c.StartLine-1:c.EndLine], "\n")
		for _, w := range strings.Fields(c.Text) {
			if !strings.Contains(span, w) {
				t.Fatalf("chunk %d holds %q, not on its lines %d-%d:\n%q\nsource:\n%q", i, w, c.StartLine, c.EndLine, c.Text, src)
			}
		}
		if n := estimateTokens(c.Text); len(cs) < maxChunksPerFile && n > max(opts.TargetTokens, 2) {
			t.Fatalf("chunk %d has %d tokens, over the target %d:\n%q", i, n, opts.TargetTokens, c.Text)
		}
	}
}

// FuzzWordPairs checks wordsAndPairs against bleve's own analysis: the
// words are the terms bleve indexes for the text, and each pair is two
// words that follow each other, in order, each pair once per place.
func FuzzWordPairs(f *testing.F) {
	for _, s := range []string{
		"Thanks, Melanie! I painted this.",
		"Melanie painted the\ngarden shed",
		"blue\r\n \r\nsky\n- item\n2. next\n> quote",
		"café — naïve – e-mail… ¿qué? 東京。大阪、",
		"won't stop, can't stop; ice-cream\tcone",
		"\xff\xfe broken \x80 bytes",
	} {
		f.Add(s)
	}
	a, err := analyzers()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ws, ps := wordsAndPairs(a.en, s)
		if want := terms(a.en, s); strings.Join(ws, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("%q: words %q, bleve gives %q", s, ws, want)
		}
		if len(ws) > 0 && len(ps) > len(ws)-1 {
			t.Fatalf("%q: %d pairs of %d words", s, len(ps), len(ws))
		}
		next := 1
		for _, p := range ps {
			for next < len(ws) && ws[next-1]+"\x1f"+ws[next] != p {
				next++
			}
			if next >= len(ws) {
				t.Fatalf("%q: pair %q is no two neighbouring words of %q, in order", s, p, ws)
			}
			next++
		}
	})
}
