package layout

import (
	"os"
	"strings"
	"testing"
	"time"
)

// RecentDailies finds by name what Files lists among the recent dailies,
// and leaves out what Files leaves out. At 10:00 UTC on the 20th it is the
// 21st in UTC+14: that day's daily is recent, the 22nd's is not.
func TestRecentDailies(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, day := range []string{"2026-11-20", "2026-11-18", "2026-11-14", "2026-11-13", "2026-11-21", "2026-11-22"} {
		if err := ws.WriteFile("beacon/memory/"+day+".md", []byte("# "+day+"\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(ws.Abs("beacon/memory/2026-11-19.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", ws.Abs("beacon/memory/2026-11-17.md")); err != nil {
		t.Fatal(err)
	}
	all, err := ws.Files("beacon")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range all {
		if f.Kind == KindDaily && InRecentWindow(f.Date, now, RecentDays) {
			want = append(want, f.Path)
		}
	}
	got, err := ws.RecentDailies("beacon", now, RecentDays)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range got {
		if f.Kind != KindDaily || f.Size == 0 {
			t.Errorf("%s: kind %v, size %d", f.Path, f.Kind, f.Size)
		}
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != strings.Join(want, " ") || len(paths) != 4 {
		t.Errorf("RecentDailies = %v, Files' recent dailies = %v", paths, want)
	}
}

// TestTitleNamesAnotherDay: a daily's title names another day only when
// it starts with a date, or a weekday and a date, that is not the log's.
func TestTitleNamesAnotherDay(t *testing.T) {
	const day = "2026-11-06"
	tests := []struct {
		title string
		want  bool
	}{
		{"2026-11-06", false},
		{"2026-11-06 — release day", false},
		{"Fri 2026-11-06", false},
		{"Friday, 2026-11-06", false},
		{"Notes", false},
		{"", false},
		{"Notes of 2026-11-05", false}, // a date, but not what the title starts with
		{"2026-11-05", true},
		{"Thu 2026-11-05", true},
		{"2026-11-05 Thursday", true},
	}
	for _, tt := range tests {
		if got := TitleNamesAnotherDay(tt.title, day); got != tt.want {
			t.Errorf("TitleNamesAnotherDay(%q, %s) = %v, want %v", tt.title, day, got, tt.want)
		}
	}
}
