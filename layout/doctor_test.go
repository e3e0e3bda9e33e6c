package layout

import (
	"fmt"
	"slices"
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

// TestDoctorFieldLine: doctor names the line of the frontmatter field a
// finding is about (a type that is a list or unknown, a name that is a
// mapping, a date that is no date, a key set twice, a summary's week or
// period), wherever the block sits in the file and however its lines
// end; the opening "---" when the field is missing.
func TestDoctorFieldLine(t *testing.T) {
	const typed, weekly = "beacon/memory/project_x.md", "beacon/memory/weekly/2026-W10.md"
	const want = "(want one of user, feedback, project, reference)"
	tests := []struct {
		name, path, yaml string
		line             int    // of yaml, counted from 1; 0: the opening "---"
		msg              string // may name the line of yaml's first line with %d
	}{
		{"type is a list", typed, "name: x\ndescription: d\ntype: [project, feedback]\n", 3, "error: frontmatter type is a list " + want},
		{"type is a list of lines", typed, "name: x\ntype:\n  - project\ndescription: d\n", 2, "error: frontmatter type is a list " + want},
		{"type is empty", typed, "name: x\ndescription: d\ntype:\n", 3, "error: frontmatter has no type " + want},
		{"type is missing", typed, "name: x\ndescription: d\n", 0, "error: frontmatter has no type " + want},
		{"type is unknown", typed, "name: x\ndescription: d\ntype: projet\n", 3, `warning: unknown memory type "projet" (known: user, feedback, project, reference); the file is kept and indexed as is`},
		{"type is not the file name's", typed, "name: x\ndescription: d\ntype: feedback\n", 3, `warning: file name says type "project" but frontmatter says "feedback"`},
		{"name is a mapping", typed, "description: d\ntype: project\nname:\n  first: x\n", 3, "warning: frontmatter name is a mapping (want one line of text)"},
		{"date is no date", typed, "name: x\ndescription: d\ntype: project\ndate: next week\n", 4, `warning: frontmatter date is "next week", not a date (want YYYY-MM-DD): tmem ignores it`},
		{"date is a list", typed, "name: x\ndate: [2026-03-02]\ndescription: d\ntype: project\n", 2, "warning: frontmatter date is a list, not a date (want YYYY-MM-DD): tmem ignores it"},
		{"key set twice", typed, "name: x\ndescription: d\ntype: project\nname: y\n", 4, `warning: frontmatter sets "name" again (first at line %d): tmem reads the first value and other tools may take the last; keep one`},
		{"week is another", weekly, "type: weekly\nweek: 2026-W11\nteammate: beacon\nperiod: 2026-03-02 to 2026-03-08\n", 2, `error: frontmatter week "2026-W11" does not match the file name (2026-W10)`},
		{"period is no period", weekly, "type: weekly\nweek: 2026-W10\nteammate: beacon\nperiod: last week\n", 4, `error: period "last week": want YYYY-MM-DD to YYYY-MM-DD`},
	}
	for _, tt := range tests {
		for _, l := range blockLayouts {
			t.Run(tt.name+"/"+l.name, func(t *testing.T) {
				src, lead := l.file(tt.yaml)
				msg := tt.msg
				if strings.Contains(msg, "%d") {
					msg = fmt.Sprintf(msg, lead+1)
				}
				line := lead + tt.line
				if tt.line == 0 {
					line = strings.Count(src[:strings.Index(src, "---")], "\n") + 1
				}
				want := fmt.Sprintf("%s:%d: %s", tt.path, line, msg)
				got := checkPath(t, tt.path, src)
				if !slices.Contains(got, want) {
					t.Errorf("findings:\n%s\nwant among them\n%s", strings.Join(got, "\n"), want)
				}
			})
		}
	}
}
