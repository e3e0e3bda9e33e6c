package compact

import (
	"context"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/tmemhq/tmem/layout"
)

// FuzzFirstSentence checks that the sentence a summary quotes is the
// start of its paragraph word for word, ends at a word's end, leaves no
// Markdown open and fits maxSentence.
func FuzzFirstSentence(f *testing.F) {
	for _, s := range []string{
		"Moved session validation into its own module, which\nwas overdue. Tests still pass.",
		"We did and it hurt. The rollback took 3 hours.",
		"Use e.g. the staging DB. Then ship.",
		"Met J. Smith at 3. pm today. Fine.",
		"部署完成。用户没有报告问题。",
		"Fixed `a. b` and [the link](http://x.y/a. b). Done.",
		"**Bold. still bold** after. Next.",
		"Wait!!) Then \"quoted.\" more",
		"<!-- a. b --> text. More",
		"Ends with an ellipsis… then more.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		s := firstSentence(p)
		if s == "" {
			return
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(p), s)
		switch {
		case !ok:
			t.Fatalf("firstSentence(%q) = %q, not the paragraph's start", p, s)
		case utf8.ValidString(p) && !utf8.ValidString(s):
			t.Fatalf("firstSentence(%q) = %q, cut inside a character", p, s)
		case !balanced(s) || utf8.RuneCountInString(s) > maxSentence:
			t.Fatalf("firstSentence(%q) = %q, open Markdown or too long", p, s)
		case rest != "" && !cutAtWordEnd(s, rest):
			t.Fatalf("firstSentence(%q) = %q, cut inside a word", p, s)
		}
	})
}

// cutAtWordEnd reports whether s ends a word: white space follows it, or
// it ends in a CJK full stop, which needs none.
func cutAtWordEnd(s, rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	last, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r) || strings.ContainsRune("。！？", last)
}

// FuzzExtractiveWeekly summarizes any daily log, into any earlier
// summary of its week, its full text kept in the archive or not (a long
// entry then keeps more sentences), and checks that the summary parses,
// holds the day's section, and keeps every marked paragraph word for word.
func FuzzExtractiveWeekly(f *testing.F) {
	ar, err := txtar.ParseFile("testdata/messy-in.txtar")
	if err != nil {
		f.Fatal(err)
	}
	existing := "# Week 2026-W11\n\n## 2026-03-10 Tuesday\n\n- Fixed it\n\nLog: 2026-03-10.md in archive/2026-03.md\n"
	for i, file := range ar.Files {
		f.Add(string(file.Data), []string{"", existing}[i%2], i*40, i%3 != 0)
	}
	f.Fuzz(func(t *testing.T, daily, existing string, budget int, archived bool) {
		where := ""
		if archived {
			where = "2026-03-09.md in archive/2026-03.md"
		}
		req := Request{Kind: KindWeekly, Teammate: "beacon", Unit: "2026-W11", Existing: existing, Budget: budget,
			Sources: []Source{{Path: "beacon/memory/2026-03-09.md", Label: "2026-03-09", Text: daily, Where: where}}}
		out, err := Extractive{}.Summarize(context.Background(), req)
		if err != nil {
			return // a daily or summary that does not parse
		}
		d, err := layout.Parse("summary", []byte(out))
		if err != nil {
			t.Fatalf("the summary does not parse: %v\n%q", err, out)
		}
		if !hasEntry(d, "2026-03-09 Monday") {
			t.Fatalf("the summary has no section of the day:\n%s", out)
		}
		src, _ := layout.Parse("daily", []byte(daily))
		for _, g := range digestDoc(src, !archived) {
			for _, m := range g.Marked {
				if !strings.Contains(out, m) {
					t.Fatalf("marked text %q is not in the summary:\n%s", m, out)
				}
			}
		}
	})
}

func hasEntry(d *layout.Doc, heading string) bool {
	for _, e := range d.Entries {
		if e.Heading == heading {
			return true
		}
	}
	return false
}
