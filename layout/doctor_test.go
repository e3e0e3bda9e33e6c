package layout

import (
	"strings"
	"testing"
)

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
