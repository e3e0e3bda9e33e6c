package context

import (
	"context"
	"slices"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/tmemhq/tmem/recall"
)

func TestDemote(t *testing.T) {
	tests := []struct {
		name, in, want string
		levels         int
	}{
		{"title and entries", "# T\n\n## E\n\ntext # not heading\n", "## T\n\n### E\n\ntext # not heading\n", 1},
		{"two levels", "## E\n### S", "#### E\n##### S", 2},
		{"capped at six", "##### five\n###### six", "###### five\n###### six", 2},
		{"fenced code untouched", "```sh\n# comment\n```\n# real", "```sh\n# comment\n```\n## real", 1},
		{"tilde fence needs its own closer", "~~~\n# a\n```\n# b\n~~~\n# c", "~~~\n# a\n```\n# b\n~~~\n## c", 1},
		{"hash without space is text", "#hashtag\n#5", "#hashtag\n#5", 1},
		{"indented code is text", "    # code", "    # code", 1},
		{"empty heading", "#\n", "##\n", 1},
		{"setext headings become ATX", "Title\n=====\n\nPart\n---\ntext", "## Title\n\n\n### Part\n\ntext", 1},
		{"a setext heading of several lines keeps them all", "one\n  two\n      three\n---\ntext", "### one two three\n\n\n\ntext", 1},
		{"thematic break stays", "text\n\n---\n\nmore", "text\n\n---\n\nmore", 1},
		{"list item then dashes stays", "- item\n---", "- item\n---", 1},
		{"two dashes underline too", "Title\n--\ntext", "### Title\n\ntext", 1},
		{"one dash underlines too", "Title\n-", "### Title\n", 1},
		{"a lone dash after a list item stays", "- item\n-", "- item\n-", 1},
		{"underline in a fence stays", "```\nx\n===\n```", "```\nx\n===\n```", 1},
		{"open fence closed", "text\n```go\nfunc main() {\n", "text\n```go\nfunc main() {\n\n```", 1},
		{"open tilde fence closed with its length", "~~~~\n# a\n~~~", "~~~~\n# a\n~~~\n~~~~", 1},
		{"open comment closed", "<!-- TODO\n# a", "<!-- TODO\n# a\n-->", 1},
		{"open pre closed", "<pre>\n+--+", "<pre>\n+--+\n</pre>", 1},
		{"closed comment stays", "<!-- a -->\n# b", "<!-- a -->\n## b", 1},
		{"comment over lines stays", "<!--\n# a\n-->\n# b", "<!--\n# a\n-->\n## b", 1},
		{"link reference definitions above an underline stay", "[a]: /url\nTitle\n===", "[a]: /url\n## Title\n", 1},
		{"an underline of nothing but definitions is text", "[a]: /url\n===", "[a]: /url\n===", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := demote(tt.in, tt.levels); got != tt.want {
				t.Errorf("demote(%q, %d) = %q, want %q", tt.in, tt.levels, got, tt.want)
			}
		})
	}
}

func TestHitBlock(t *testing.T) {
	b := &builder{prefix: ".teammates/", tok: mustTokenizer(t, Chars4)}
	tests := []struct {
		name string
		hit  recall.Hit
		want string
	}{
		{"typed memory with a section",
			recall.Hit{Path: "b/memory/feedback_x.md", Kind: "typed", Type: "feedback", Name: "No mocks", Heading: "Why", StartLine: 6, EndLine: 9, Text: "Use real services.\n# Note"},
			"## No mocks — Why\n\n_Source: .teammates/b/memory/feedback_x.md:6-9 · typed · feedback_\n\nUse real services.\n### Note\n\n"},
		{"weekly by heading",
			recall.Hit{Path: "b/memory/weekly/2026-W43.md", Kind: "weekly", Heading: "2026-W43", Date: "2026-10-19", StartLine: 7, EndLine: 14, Text: "- shipped"},
			"## 2026-W43\n\n_Source: .teammates/b/memory/weekly/2026-W43.md:7-14 · weekly · 2026-10-19_\n\n- shipped\n\n"},
		{"nothing but a path",
			recall.Hit{Path: "CROSS-TEAM.md", Kind: "crossteam", StartLine: 1, EndLine: 1},
			"## CROSS-TEAM\n\n_Source: .teammates/CROSS-TEAM.md:1-1 · crossteam_\n\n"},
		{"a file name with a line break, quoted",
			recall.Hit{Path: "b/memory/user_a\nb.md", Kind: "typed", Type: "user", Name: "Split", StartLine: 6, EndLine: 6, Text: "text"},
			"## Split\n\n_Source: \".teammates/b/memory/user_a\\nb.md\":6-6 · typed · user_\n\ntext\n\n"},
		{"a file name with a terminal escape, quoted in the title too",
			recall.Hit{Path: "b/memory/user_\x1b[31mred.md", Kind: "typed", StartLine: 6, EndLine: 6},
			"## \"user_\\x1b[31mred\"\n\n_Source: \".teammates/b/memory/user_\\x1b[31mred.md\":6-6 · typed_\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := b.hitBlock(tt.hit)
			if got.text != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got.text, tt.want)
			}
			if got.tokens != b.tok.Count(tt.want) {
				t.Errorf("tokens %d", got.tokens)
			}
		})
	}
}

// TestDemoteAgreesWithTheParser checks, with the Markdown parser memory
// files are read with, that demoting pushes every heading the parser sees
// down by the levels asked (capped at six) and makes no new one: a
// memory's heading never reads as one of the stack's own sections.
func TestDemoteAgreesWithTheParser(t *testing.T) {
	texts := map[string]string{
		"atx":              "# T\n\n## E\ntext",
		"setext equals":    "Title\n=\n\ntext",
		"setext one dash":  "Title\n-\ntext",
		"setext two":       "Title\n--",
		"setext spaced":    "Title\n- \ntext",
		"lazy paragraph":   "one\ntwo\n---",
		"after a list":     "- item\n-\n\nPara\n---",
		"after a quote":    "> quoted\n---",
		"indented lazy":    "> quoted\n    <div>\nlazy\n===",
		"item after quote": ">0\n*\n00\n=",
		"tab continuation": "Title\n\tgoes on\n===",
		"reference ===":    "[a]: /url\n===\n\n[b]: <u> 'title'\n  [c]:\n/v\n===\n===",
		"reference ---":    "[a]: /url\n---\ntext",
		"spaces are blank": "Para\n    \n===",
		"tab-indented ---": "Para\n\t---\n=",
		"nested lazy":      "* >0\n0\n=\n\n> > a\nb\n===",
		"tab after marker": "2. \tb\nb\n===",
		"break, not item":  "- a\n- - -\n  b\n===",
		"quote in quote":   ">>0\na\n>>*\n0\n-",
		"fenced":           "```\n# no\n```\n# yes",
		"comment":          "<!--\n# no\n-->\n# yes",
		"one-line comment": "<!-- x -->\n# yes",
		"empty comment":    "<!-->\n# yes",
		"indented heading": "   ## three spaces",
		"deep":             "###### six\n##### five",
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			out := demote(text, 1)
			want := headingLevels(text)
			for i := range want {
				want[i] = min(want[i]+1, 6)
			}
			if got := headingLevels(out); !slices.Equal(got, want) {
				t.Errorf("demote(%q) = %q: heading levels %v, want %v", text, out, got, want)
			}
		})
	}
}

// headingLevels lists the levels of the headings the parser finds in s.
func headingLevels(s string) []int {
	var out []int
	doc := goldmark.DefaultParser().Parse(gmtext.NewReader([]byte(s)))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			out = append(out, h.Level)
		}
		return ast.WalkContinue, nil
	})
	return out
}

// TestOpenBlockStaysInItsSection builds stacks whose memory files leave a
// code fence or an HTML comment open: every section heading of the stack must still parse as
// a heading, so nothing after the file reads as code.
func TestOpenBlockStaysInItsSection(t *testing.T) {
	tests := []struct {
		name, path, body string
	}{
		{"SOUL.md", "beacon/SOUL.md", "# Beacon\n\n## Snippet\n\n```go\nfunc main() {\n"},
		{"WISDOM.md", "beacon/WISDOM.md", "# Wisdom\n\n## Query\n\n~~~sql\nSELECT 1\n"},
		{"today's log", "beacon/memory/2026-11-20.md", "# 2026-11-20\n\n## Repro\n\n```\n$ make test\n"},
		{"an open comment", "beacon/SOUL.md", "# Beacon\n\n## Notes\n\n<!-- TODO: rewrite this\n"},
		{"a comment closed on its line", "beacon/GOALS.md", "# Goals\n\n<!-- draft -->\n\n## Ship it\n"},
		{"an open <pre>", "beacon/SOUL.md", "# Beacon\n\n## Layout\n\n<pre>\n+---+\n"},
		{"an open <script>", "beacon/WISDOM.md", "# Wisdom\n\n## Snippet\n\n<script>\nlet x = 1\n"},
		{"an open CDATA", "beacon/GOALS.md", "# Goals\n\n<![CDATA[\nraw\n"},
		{"a fence in a list item ends with it", "beacon/GOALS.md", "# Goals\n\n- step\n\n  ```sh\n  make\n\ndone\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"beacon/SOUL.md": "# Beacon\n\nSearch engineer.\n"}
			files[tt.path] = tt.body
			ws := writeFiles(t, files)
			r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: "run the tests",
				Now: fixedClock(exampleNow)})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Manifest.Sections) == 0 {
				t.Fatal("no sections")
			}
			level1 := 0
			for _, l := range headingLevels(r.Text) {
				if l == 1 {
					level1++
				}
			}
			if level1 != len(r.Manifest.Sections) {
				t.Errorf("%d level-1 headings parse, want one per section (%d):\n%s", level1, len(r.Manifest.Sections), r.Text)
			}
		})
	}
}
