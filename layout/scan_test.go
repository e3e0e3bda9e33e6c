package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestScanHeadingsAgrees checks that the line scan used for deeply
// nested files finds the same entry headings as the block parser on
// every memory file the repository holds and on tricky hand-made cases.
func TestScanHeadingsAgrees(t *testing.T) {
	cases := map[string]string{
		"atx":          "# Title\n\n## One\ntext\n## Two ##\nmore\n### three\n",
		"setext":       "Title\n=====\n\nPara one\nstill para\n---\n\ntext\n",
		"fenced":       "## A\n```go\n## not a heading\n```\n~~~~\n# nor this\n~~~~\n## B\n",
		"unclosed":     "## A\n```\n## inside\n",
		"indented":     "    ## code, not a heading\n   ## three spaces is a heading\n",
		"quote-list":   "> ## quoted\n- ## in a list\n\n## real\n",
		"break":        "text\n\n---\n\n## after a break\n",
		"no-space":     "##nospace\n#\n## \n",
		"crlf":         "# T\r\n\r\n## A\r\ntext\r\n",
		"closing-hash": "## C# is a language\n## x ##\n## y#\n",
		"lazy":         "- item\nlazy line\n---\n\n## after\n> quote\nlazy\n===\n",
		"list-para":    "- a\n\n  inner para\n  ---\n\n## out\n1. one\n2) two\n   ## in item\n",
		"html":         "<div>\n## in html\n</div>\n\n<!-- a\n## in comment\n-->\n## after\n",
		"html-inline":  "text <b>bold</b>\n===\n",
		"frontish":     "<!-- c -->\n---\nkey: v\n---\n\n# T\n",
		"lazy-indent":  "> a\n    <div>\nb\n===\n\n> c\n    # d\ne\n---\n",
		"lazy-item":    ">0\n*\n00\n=\n",
		"lazy-nested":  "* >0\n0\n=\n\n> > a\nb\n===\n\n- a\n  > b\nc\n===\n\n> a\n>     b\nc\n===\n",
		"quote-setext": "> a\n> -\nb\n===\n",
		"marker-tab":   "2. \tb\nb\n===\n",
		"item-break":   "- a\n- - -\n  b\n===\n",
		"quote-quote":  ">>0\na\n>>*\n0\n-\n",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) { compareHeadings(t, []byte(src)) })
	}
	for name, src := range repoMarkdown(t) {
		t.Run(name, func(t *testing.T) { compareHeadings(t, src) })
	}
}

func compareHeadings(t *testing.T, src []byte) {
	t.Helper()
	want, got := blockHeadings(src), scanHeadings(src)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("line scan found %+v\nblock parser found %+v", got, want)
	}
}

// repoMarkdown returns the bodies of the Markdown files under the
// repository's testdata folders, loose and inside txtar archives.
func repoMarkdown(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	add := func(name string, b []byte) {
		if d, err := Parse(name, b); err == nil {
			out[name] = d.Body
		}
	}
	for _, root := range []string{"../testdata", "../compact/testdata", "../context/testdata", "../cmd/tmem/testdata"} {
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasSuffix(p, ".md"):
				add(p, b)
			case strings.HasSuffix(p, ".txtar"):
				for _, f := range txtar.Parse(b).Files {
					if strings.HasSuffix(f.Name, ".md") {
						add(p+"/"+f.Name, f.Data)
					}
				}
			}
			return nil
		})
	}
	if len(out) < 20 {
		t.Fatalf("found only %d Markdown files to compare", len(out))
	}
	return out
}

func TestDeeplyNested(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want bool
	}{
		{"plain", "# t\n\n## a\n- x\n  - y\n> quote\n", false},
		{"quotes at the limit", strings.Repeat(">", maxQuoteDepth) + " x\n", false},
		{"quotes past the limit", "ok\n" + strings.Repeat("> ", maxQuoteDepth+1) + "x\n", true},
		{"indent past the limit", strings.Repeat(" ", maxIndent+1) + "- x\n", true},
		{"tabs count as four", strings.Repeat("\t", maxIndent/4+1) + "x\n", true},
		{"long line of quotes inside text", "a " + strings.Repeat(">", 1000) + "\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DeeplyNested([]byte(tc.src)); got != tc.want {
				t.Errorf("DeeplyNested = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestParseDeeplyNested parses input nested far past the limits, at the
// size limit, and still finds its entries.
func TestParseDeeplyNested(t *testing.T) {
	for name, filler := range map[string]string{
		"quotes": strings.Repeat(">", MaxFileSize/2),
		"lists":  nestedList(MaxFileSize / 2),
	} {
		t.Run(name, func(t *testing.T) {
			src := "# 2026-11-20\n\n## First\n" + filler + "\n\n## Second\nlast words\n"
			d, err := Parse("deep.md", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var heads []string
			for _, e := range d.Entries {
				heads = append(heads, e.Heading)
			}
			if !reflect.DeepEqual(heads, []string{"First", "Second"}) || d.Title != "2026-11-20" {
				t.Fatalf("title %q, entries %q", d.Title, heads)
			}
			if last := d.Entries[1]; last.Text != "last words" {
				t.Errorf("second entry text %q", last.Text)
			}
		})
	}
}

func TestThematicBreak(t *testing.T) {
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"three dashes", "---", true},
		{"spaced stars", "* * *", true},
		{"underscores with tabs", "_\t_ _", true},
		{"indented, trailing spaces", "  ----  ", true},
		{"two marks", "--", false},
		{"mixed marks", "-*-", false},
		{"text after", "---a", false},
		{"equals signs", "===", false},
		{"empty", "", false},
		{"blank", "   ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := thematicBreak([]byte(tt.line)); got != tt.want {
				t.Errorf("thematicBreak(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

func TestInCode(t *testing.T) {
	tests := []struct {
		name, text string
		want       []bool
	}{
		{"fenced code, its closing line included", "a\n```\nx\n```\nb", []bool{false, false, true, true, false}},
		{"a longer fence is closed only by as long a run", "~~~~\n~~~\n~~~~\nc", []bool{false, true, true, false}},
		{"an HTML block until its end", "<pre>\nx\n</pre>\nb", []bool{false, true, true, false}},
		{"a comment closed on its own line opens nothing", "<!-- tmem:at 2026-03-14T09:00:00Z -->\nb", []bool{false, false}},
		{"an unclosed fence runs to the end", "```go\n## h\n", []bool{false, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := InCode(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("InCode(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}
