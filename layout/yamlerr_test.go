package layout

import (
	"fmt"
	"strings"
	"testing"
)

// frontmatterShapes are the ways frontmatter YAML goes wrong when edited
// by hand: the block between the delimiters, the line of it (counted
// from 1) that holds the mistake, and what doctor says is wrong.
var frontmatterShapes = []struct {
	name string
	yaml string
	line int
	msg  string
}{
	{"unclosed double quote on the first line", "description: \"never closed\nname: x\ntype: project\n", 1, "found unexpected end of stream: the quote opened on this line is not closed"},
	{"unclosed single quote further down", "name: x\ndescription: 'never closed\ntype: project\n", 2, "found unexpected end of stream: the quote opened on this line is not closed"},
	{"unclosed quote after a closed two-line one", "name: \"two\n  lines\"\ndescription: \"never closed\ntype: project\n", 3, "found unexpected end of stream: the quote opened on this line is not closed"},
	{"key indented more than the one before", "name: x\n  type: project\n", 2, "mapping values are not allowed in this context"},
	{"list item indented less than the one before", "name: x\ntags:\n  - a\n - b\ntype: project\n", 4, "did not find expected key"},
	{"nested key indented less than the one before", "name: x\nmeta:\n  a: 1\n b: 2\n", 4, "did not find expected key"},
	{"tab indentation on the first line", "\tname: x\ntype: project\n", 1, "found character that cannot start any token"},
	{"tab indentation further down", "name: x\n\ttype: project\n", 2, "found a tab character that violates indentation"},
	{"tab indentation in a block scalar", "description: |\n  a\n\tb\nname: x\n", 3, "found a tab character where an indentation space is expected"},
	{"colon in the first value", "name: Ingest: events\ntype: project\n", 1, "mapping values are not allowed in this context"},
	{"colon in a value's second line", "description: a long\n  text: with a colon\nname: x\n", 2, "mapping values are not allowed in this context"},
	{"key without a colon on the first line", "justtext\nname: x\n", 1, "want key: value lines"},
	{"key without a colon further down", "name: x\njusttext\ntype: project\n", 2, "could not find expected ':'"},
	{"key without a space after its colon", "name:x\ntype: project\n", 1, "want key: value lines"},
	{"stray list item on the first line", "- a\nname: x\n", 1, "want key: value lines"},
	{"stray list item further down", "name: x\n- a\ntype: project\n", 2, "did not find expected key"},
	{"stray list item in a nested mapping", "name: x\nmeta:\n  a: 1\n  - b\n", 4, "did not find expected key"},
	{"key among list items", "tags:\n  - a\n  b: c\nname: x\n", 3, "did not find expected '-' indicator"},
	{"unclosed flow sequence on the first line", "tags: [a, b\nname: x\n", 1, "did not find expected ',' or ']'"},
	{"unclosed flow sequence after a closed two-line one", "a: [x,\n  y]\ntags: [a, b\nname: x\n", 3, "did not find expected ',' or ']'"},
	{"unclosed flow mapping", "name: x\nmeta: {a: 1\ntype: project\n", 2, "did not find expected ',' or '}'"},
	{"flow sequence open at the end", "name: x\ntags: [\n  a,\n", 2, "did not find expected node content"},
	{"bracket where a value goes", "a: [x,\n  y]\nb: ]\nname: x\n", 3, "did not find expected node content"},
	{"text after a quoted value", "name: \"x\" y\ntype: project\n", 1, "did not find expected key"},
	{"stray closing bracket", "name: x\ntype: [a]]\n", 2, "did not find expected key"},
	{"unknown escape in a two-line quote", "description: \"abc\n  x\\qy\"\nname: x\n", 2, "found unknown escape character"},
	{"character that cannot start a value", "name: x\ntype: @project\n", 2, "found character that cannot start any token"},
	{"control character", "name: x\ndescription: a\x01b\n", 2, "control characters are not allowed"},
	{"alias of an anchor defined later", "name: *x\ntype: &x project\n", 1, "unknown anchor 'x' referenced"},
	{"secret in an alias", "name: x\ntype: *" + testGitHubToken + "\n", 2, "unknown anchor '[REDACTED:github-token]' referenced"},
}

// blockLayouts place a frontmatter block in a file in the ways files
// come: src is the file, lead the number of its lines before the
// block's first YAML line.
var blockLayouts = []struct {
	name string
	file func(yaml string) (src string, lead int)
}{
	{"plain", func(y string) (string, int) { return "---\n" + y + "---\nbody\n", 1 }},
	{"after blank lines and a comment", func(y string) (string, int) { return "\n\n---\n# about\n\n" + y + "---\nbody\n", 5 }},
	{"byte order mark", func(y string) (string, int) { return bom + "---\n" + y + "---\nbody\n", 1 }},
	{"CRLF", func(y string) (string, int) {
		return strings.ReplaceAll("\n---\n"+y+"---\nbody\n", "\n", "\r\n"), 2
	}},
}

// TestFrontmatterErrorLine: frontmatter that does not parse is reported
// at the line holding the mistake, the line a person fixing the file
// looks at, saying what is wrong: whether the mistake is on the block's
// first line or further down, after blank lines and comments or not,
// behind a byte order mark, with CRLF line endings. yaml.v3's own line
// is one off for many of these, and off by more after a comment.
func TestFrontmatterErrorLine(t *testing.T) {
	for _, sh := range frontmatterShapes {
		for _, l := range blockLayouts {
			t.Run(sh.name+"/"+l.name, func(t *testing.T) {
				src, lead := l.file(sh.yaml)
				want := fmt.Sprintf("beacon/memory/project_x.md:%d: error: bad frontmatter: %s", lead+sh.line, sh.msg)
				got := frontmatterErrors(t, "beacon/memory/project_x.md", src)
				if len(got) != 1 || got[0] != want {
					t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
				}
			})
		}
	}
}

// TestFrontmatterErrorLineOverTheSearchBound: a frontmatter too large to
// parse again line by line (maxLineSearch) is still reported, with what
// is wrong, at the line yaml.v3 names: one of the lines of the block.
func TestFrontmatterErrorLineOverTheSearchBound(t *testing.T) {
	var y strings.Builder
	lines := 0
	for ; y.Len() <= maxLineSearch; lines++ {
		fmt.Fprintf(&y, "key%d: value %d\n", lines, lines)
	}
	y.WriteString("description: \"never closed\n")
	lines++
	got := frontmatterErrors(t, "beacon/memory/project_x.md", "---\n"+y.String()+"---\nbody\n")
	if len(got) != 1 || !strings.HasSuffix(got[0], ": error: bad frontmatter: found unexpected end of stream") {
		t.Fatalf("errors %q, want the unclosed quote named in yaml.v3's words, without the search's", got)
	}
	var line int
	if _, err := fmt.Sscanf(strings.TrimPrefix(got[0], "beacon/memory/project_x.md:"), "%d", &line); err != nil || line < 2 || line > lines+2 {
		t.Errorf("line %d (%v): want a line of the block, 2 to %d", line, err, lines+2)
	}
}

// frontmatterErrors writes src to path in a new workspace and returns
// the frontmatter errors Check reports about it.
func frontmatterErrors(t *testing.T, path, src string) []string {
	t.Helper()
	var out []string
	for _, f := range checkPath(t, path, src) {
		if strings.Contains(f, ": error: bad frontmatter: ") {
			out = append(out, f)
		}
	}
	return out
}

// BenchmarkParseBadFrontmatter parses a frontmatter of keys up to the 4
// MiB limit with a mistake on its last line, which is found by parsing
// cuts of the block again; "valid" has none. A leading comment makes
// yaml.v3 name the first key's line, so the search starts there.
func BenchmarkParseBadFrontmatter(b *testing.B) {
	for _, sh := range []struct{ name, lead, last string }{
		{"valid", "", "last: x\n"},
		{"stray item", "", "- stray\n"},
		{"stray item after a comment", "# keys\n", "- stray\n"},
		{"unclosed quote", "", "last: \"open\n"},
		{"key without a colon", "", "stray\n"},
	} {
		for _, size := range []int{maxLineSearch, MaxFileSize} {
			var src strings.Builder
			src.WriteString("---\n" + sh.lead)
			for i := 0; src.Len() < size-100; i++ {
				fmt.Fprintf(&src, "key%d: value %d\n", i, i)
			}
			src.WriteString(sh.last + "---\n")
			b.Run(fmt.Sprintf("%s/%dKiB", sh.name, size>>10), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := Parse("p.md", []byte(src.String())); (err == nil) != (sh.name == "valid") {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
