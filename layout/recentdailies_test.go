package layout

import (
	"os"
	"strings"
	"testing"
	"time"
)

// RecentDailies finds by name what Files lists among the recent dailies,
// and leaves out what Files leaves out.
func TestRecentDailies(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, day := range []string{"2026-11-20", "2026-11-18", "2026-11-14", "2026-11-13", "2026-11-21"} {
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
	if strings.Join(paths, " ") != strings.Join(want, " ") || len(paths) != 3 {
		t.Errorf("RecentDailies = %v, Files' recent dailies = %v", paths, want)
	}
}
