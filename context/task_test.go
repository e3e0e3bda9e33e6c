package context

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTaskNotUTF8: a task with bytes that are not UTF-8 gives a stack
// that is, whose JSON text is the text itself, with a note saying so;
// a UTF-8 task is left as it is.
func TestTaskNotUTF8(t *testing.T) {
	tests := []struct {
		name, task, shown string
		noted             bool
	}{
		{"utf-8", "search the index 搜索", "search the index 搜索", false},
		{"invalid bytes", "search \xff\xfe index", "search \uFFFD index", true},
		{"cut multibyte", "search \xe6\x90", "search \uFFFD", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := writeFiles(t, map[string]string{"beacon/SOUL.md": "# Beacon\n\nSearch engineer.\n"})
			r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: tt.task, Now: fixedClock(exampleNow)})
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.ValidString(r.Text) {
				t.Errorf("the stack is not UTF-8")
			}
			if got := sectionText(t, r, SectionTask); !strings.Contains(got, tt.shown) {
				t.Errorf("task section %q does not show %q", got, tt.shown)
			}
			enc, err := json.Marshal(r.Text)
			if err != nil {
				t.Fatal(err)
			}
			var back string
			if err := json.Unmarshal(enc, &back); err != nil || back != r.Text {
				t.Errorf("the text does not survive JSON (%v)", err)
			}
			noted := false
			for _, n := range r.Manifest.Notes {
				noted = noted || strings.Contains(n, "not valid UTF-8")
			}
			if noted != tt.noted {
				t.Errorf("noted %v, want %v: %q", noted, tt.noted, r.Manifest.Notes)
			}
		})
	}
}
