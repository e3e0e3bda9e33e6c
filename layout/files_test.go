package layout

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestAppendDailyRefusesYearsNoNameHolds(t *testing.T) {
	for _, day := range []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		t.Run(fmt.Sprint(day.Year()), func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			rel, err := ws.AppendDaily(context.Background(), "beacon", day, "h", "text")
			if err == nil || !strings.Contains(err.Error(), "year from 0001 to 9999") {
				t.Fatalf("AppendDaily = %q, %v; want it refused", rel, err)
			}
			files, err := ws.Files("beacon")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Kind == KindDaily || f.Kind == KindTyped {
					t.Errorf("%s was written", f.Path)
				}
			}
		})
	}
}

func TestClassifyNamesTheFix(t *testing.T) {
	tests := []struct {
		name, fn string
		kind     Kind
		nameErr  string
	}{
		{"daily", "2026-11-04.md", KindDaily, ""},
		{"unpadded day", "2026-11-4.md", KindTyped, `file name "2026-11-4.md" is not a daily log's YYYY-MM-DD.md, so tmem reads it as a typed memory; rename it 2026-11-04.md`},
		{"unpadded month and day", "2026-1-9.md", KindTyped, `file name "2026-1-9.md" is not a daily log's YYYY-MM-DD.md, so tmem reads it as a typed memory; rename it 2026-01-09.md`},
		{"no real date", "2026-2-30.md", KindTyped, `typed memory file name "2026-2-30.md" is not <type>_<topic>.md`},
		{"typed", "feedback_x.md", KindTyped, ""},
		{"neither", "notes.md", KindTyped, `typed memory file name "notes.md" is not <type>_<topic>.md`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Classify("beacon", "memory", tt.fn)
			if f.Kind != tt.kind || f.NameErr != tt.nameErr {
				t.Errorf("Classify(%q) = kind %q, NameErr %q; want %q, %q", tt.fn, f.Kind, f.NameErr, tt.kind, tt.nameErr)
			}
		})
	}
}
