package layout

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

const handMemory = "---\nname: No mocks\ndescription: d\ntype: feedback\n---\n\nOld.\n"

// writeFiles writes each memory file under beacon/memory/.
func writeFiles(t *testing.T, w *Workspace, names []string) {
	t.Helper()
	for _, n := range names {
		if err := w.WriteFile("beacon/memory/"+n, []byte(handMemory)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteMemoryFindsARenamedTopic: a typed memory renamed by hand so its
// topic is not in slug form is the file a write of that topic goes to,
// when it is the only one; nothing is renamed.
func TestWriteMemoryFindsARenamedTopic(t *testing.T) {
	tests := []struct {
		name    string
		files   []string // in beacon/memory/
		mode    Mode
		want    string // the file written, under beacon/memory/
		wantErr string
	}{
		{"renamed alone, append", []string{"feedback_No-Mocks.md"}, ModeAppend, "feedback_No-Mocks.md", ""},
		{"renamed alone, create refused", []string{"feedback_No-Mocks.md"}, ModeCreate, "", "feedback_No-Mocks.md: file already exists"},
		{"slug form there too", []string{"feedback_No-Mocks.md", "feedback_no_mocks.md"}, ModeAppend, "feedback_no_mocks.md", ""},
		{"another type", []string{"project_No-Mocks.md"}, ModeAppend, "feedback_no_mocks.md", ""},
		{"another topic", []string{"feedback_No-Mocks-Ever.md"}, ModeAppend, "feedback_no_mocks.md", ""},
		{"two renamed", []string{"feedback_No-Mocks.md", "feedback_no.mocks.md"}, ModeAppend, "",
			"beacon/memory/feedback_No-Mocks.md, beacon/memory/feedback_no.mocks.md all have this topic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t, "beacon")
			writeFiles(t, w, tt.files)
			m := Memory{Type: "feedback", Topic: "no mocks", Name: "No mocks", Body: "New."}
			rel, err := w.WriteMemory(context.Background(), "beacon", m, tt.mode)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one holding %q", err, tt.wantErr)
				}
				if tt.mode == ModeCreate && !errors.Is(err, ErrExists) {
					t.Errorf("err %v is not ErrExists", err)
				}
			} else if err != nil || rel != "beacon/memory/"+tt.want {
				t.Fatalf("wrote %q, %v; want beacon/memory/%s", rel, err, tt.want)
			}
			for _, n := range tt.files {
				b, err := os.ReadFile(w.Abs("beacon/memory/" + n))
				if err != nil {
					t.Fatalf("%s: %v (renamed or removed)", n, err)
				}
				if wrote := n == tt.want; wrote != strings.Contains(string(b), "New.") {
					t.Errorf("%s holds %q", n, b)
				}
			}
		})
	}
}

// TestDoctorNamesTopicsNotInSlugForm: doctor warns about a typed memory
// whose file name holds its topic in a form Slug never gives, and names
// the fix.
func TestDoctorNamesTopicsNotInSlugForm(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"renamed", []string{"feedback_No-Mocks.md"}, []string{
			"beacon/memory/feedback_No-Mocks.md: warning: the topic in the file name is not in slug form: rename the file feedback_no_mocks.md (meanwhile tmem remember finds it by its topic, as long as no other file's topic reads the same once slugged)"}},
		{"slug form there too", []string{"feedback_No-Mocks.md", "feedback_no_mocks.md"}, []string{
			"beacon/memory/feedback_No-Mocks.md: warning: the topic in the file name is not in slug form, and feedback_no_mocks.md, the file tmem remember writes for this topic, exists too: merge this file into it"}},
		{"slug form", []string{"feedback_no_mocks.md"}, nil},
		{"no topic Slug takes", []string{"feedback_a+b.md"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorkspace(t, "beacon")
			writeFiles(t, w, tt.files)
			fs, err := w.Check()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				if strings.Contains(f.Message, "slug form") {
					got = append(got, f.String())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
