package layout

import (
	"strings"
	"testing"
)

const slipMessage = "warning: this line is not a heading: Markdown needs a space after the #s, so it is read as text of the entry it sits in; if a heading is meant, put a space after the #s (\"## Title\")"

// TestDoctorHandEdits: doctor names the line of slips people make when
// they edit memory files by hand, and stays quiet about a clean file.
func TestDoctorHandEdits(t *testing.T) {
	tests := []struct {
		name string
		path string
		src  string
		want []string // findings about path
	}{
		{
			name: "a key set twice",
			path: "beacon/memory/feedback_dup.md",
			src:  "---\nname: x\ndescription: y\ntype: feedback\ntype: project\n---\nbody\n",
			want: []string{`beacon/memory/feedback_dup.md:5: warning: frontmatter sets "type" again (first at line 4): tmem reads the first value and other tools may take the last; keep one`},
		},
		{
			name: "a key set twice after blank lines",
			path: "beacon/memory/2026-03-09.md",
			src:  "\n\n---\nmood: ok\nmood: tired\n---\n# 2026-03-09\n",
			want: []string{`beacon/memory/2026-03-09.md:5: warning: frontmatter sets "mood" again (first at line 4): tmem reads the first value and other tools may take the last; keep one`},
		},
		{
			name: "a heading without its space",
			path: "beacon/memory/2026-03-10.md",
			src:  "# 2026-03-10\n\n##Deploy\n\ntext\n\n  ###Details\nmore text\n",
			want: []string{
				"beacon/memory/2026-03-10.md:3: " + slipMessage,
				"beacon/memory/2026-03-10.md:7: " + slipMessage,
			},
		},
		{
			name: "a heading without its space after frontmatter, in a paragraph",
			path: "beacon/memory/feedback_slip.md",
			src:  "---\nname: x\ndescription: y\ntype: feedback\n---\nThe rule.\n##Why\n",
			want: []string{"beacon/memory/feedback_slip.md:7: " + slipMessage},
		},
		{
			name: "hashes that are no slip",
			path: "beacon/memory/2026-03-11.md",
			src: "# 2026-03-11\n\n## Deploy\n\n```sh\n##not a heading in a fence\n```\n\n    ##indented code\n\n" +
				"<!--\n##in a comment\n-->\n\n#decision tagged\n\n- ##in a list item\n\n> ##quoted\n\n####### seven\n\n##\n",
		},
		{
			name: "distinct keys",
			path: "beacon/memory/feedback_ok.md",
			src:  "---\nname: x\ndescription: y\ntype: feedback\n---\nbody\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t, "beacon")
			if err := w.WriteFile(tt.path, []byte(tt.src)); err != nil {
				t.Fatal(err)
			}
			fs, err := w.Check()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if f.Path == tt.path {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
