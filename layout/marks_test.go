package layout

import (
	"strings"
	"testing"
	"time"
)

func TestConflictMarkers(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []int
	}{
		{"conflict", "a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\nd\n", []int{2, 4, 6}},
		{"diff3 style", "<<<<<<< ours\nb\n||||||| base\na\n=======\nc\n>>>>>>> theirs\n", []int{1, 3, 5, 7}},
		{"setext underline alone", "Title\n=======\n", nil},
		{"longer runs are text", "<<<<<<<< no\n>>>>>>>> no\n", nil},
		{"crlf", "<<<<<<< ours\r\nb\r\n=======\r\n>>>>>>> theirs\r\n", []int{1, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConflictMarkers([]byte(tt.src))
			if len(got) != len(tt.want) {
				t.Fatalf("lines %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("lines %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestParseSkipsMarksAndStamps: the text of entries never holds a stamp
// or a conflict marker, and a "=======" marker does not turn the line
// above into a heading.
func TestParseSkipsMarksAndStamps(t *testing.T) {
	src := "# 2026-03-09\n\n## One\n" + Stamp(time.Date(2026, 3, 9, 10, 0, 0, 0, time.UTC)) +
		"\n\nfirst\n\n<<<<<<< ours\n## Two\n\nmine\n=======\n## Two\n\nyours\n>>>>>>> theirs\n"
	d, err := Parse("memory/2026-03-09.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range d.Entries {
		got = append(got, e.Heading+"|"+e.Text+"|"+e.At)
	}
	want := "One|first|2026-03-09T10:00:00Z;Two|mine|;Two|yours|"
	if strings.Join(got, ";") != want {
		t.Errorf("entries %q, want %q", strings.Join(got, ";"), want)
	}
	if string(d.Bytes()) != src {
		t.Error("Bytes does not give the file back")
	}
}

func TestDoctorReportsConflictMarkers(t *testing.T) {
	w := newWorkspace(t, "beacon")
	src := "# 2026-03-09\n\n<<<<<<< ours\n## A\n=======\n## B\n>>>>>>> theirs\n"
	if err := w.WriteFile("beacon/memory/2026-03-09.md", []byte(src)); err != nil {
		t.Fatal(err)
	}
	fs, err := w.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		if strings.Contains(f.Message, "conflict marker") {
			got = append(got, f.String()[:strings.Index(f.String(), ": error")])
		}
	}
	want := "beacon/memory/2026-03-09.md:3 beacon/memory/2026-03-09.md:5 beacon/memory/2026-03-09.md:7"
	if strings.Join(got, " ") != want {
		t.Errorf("findings %q, want %q", strings.Join(got, " "), want)
	}
}

// TestLastStamp: the newest stamp of a body counts, wherever it is; one
// with an impossible date does not.
func TestLastStamp(t *testing.T) {
	src := "---\nname: n\n---\n\n<!-- tmem:at 2026-10-03T10:00:00Z -->\n\nrule\n\n<!-- tmem:at 2026-10-05T08:30:00Z -->\r\n\nmore\n\n<!-- tmem:at 2026-10-01T10:00:00Z -->\n\n<!-- tmem:at 2026-13-01T00:00:00Z -->\n"
	d, err := Parse("memory/feedback_x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.LastStamp(), time.Date(2026, 10, 5, 8, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("LastStamp %v, want %v", got, want)
	}
	d, _ = Parse("memory/feedback_y.md", []byte("rule\n"))
	if got := d.LastStamp(); !got.IsZero() {
		t.Errorf("LastStamp of a body without stamps %v, want zero", got)
	}
}
