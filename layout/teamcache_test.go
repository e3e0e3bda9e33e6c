package layout

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestTeammatesCached changes the workspace in every way that changes the
// teammate list, each time after the list was kept, and checks that the
// kept list is never returned stale: every answer equals a fresh listing.
// The clock runs an hour ahead so that nothing is too recent to keep;
// each change then moves the changed file's mtime to a time of its own,
// as a later change would on any file-system clock.
func TestTeammatesCached(t *testing.T) {
	root := filepath.Join(t.TempDir(), DirName)
	writeSoul(t, root, "beacon", "role: Search\n")
	writeSoul(t, root, "atlas", "role: Platform\n")
	if err := os.MkdirAll(filepath.Join(root, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := &Workspace{Root: root}
	ws.CacheTeammates(func() time.Time { return time.Now().Add(time.Hour) })
	tick := time.Unix(1_000_000_000, 0)
	touch := func(rel string) {
		t.Helper()
		tick = tick.Add(time.Minute)
		if err := os.Chtimes(filepath.Join(root, rel), tick, tick); err != nil {
			t.Fatal(err)
		}
	}
	changes := []struct {
		name   string
		change func()
	}{
		{"nothing", func() {}},
		{"a role edited", func() { writeSoul(t, root, "beacon", "role: Recall\n"); touch("beacon/SOUL.md") }},
		{"a teammate added", func() { writeSoul(t, root, "cedar", "role: Ops\n"); touch("") }},
		{"a SOUL.md added to a plain folder", func() { writeSoul(t, root, "notes", "role: Notes\n"); touch("notes") }},
		{"a SOUL.md removed", func() { rm(t, filepath.Join(root, "atlas/SOUL.md")); touch("atlas") }},
		{"a teammate renamed", func() { mv(t, filepath.Join(root, "cedar"), filepath.Join(root, "dune")); touch("") }},
		{"a teammate folder removed", func() { rm(t, filepath.Join(root, "notes")); touch("") }},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ws.Teammates(); err != nil {
				t.Fatal(err)
			}
			if !ws.team.ok {
				t.Fatal("the list was not kept")
			}
			c.change()
			got, err := ws.Teammates()
			if err != nil {
				t.Fatal(err)
			}
			want, err := ws.listTeammates()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after %s: got %v, want %v", c.name, got, want)
			}
		})
	}
}

// TestTeammatesNotKept: a list made from files changed within the racy
// window, or through a linked teammate folder, is not kept.
func TestTeammatesNotKept(t *testing.T) {
	tests := []struct {
		name  string
		ahead time.Duration // how far the clock runs ahead of the files
		link  bool
	}{
		{"files changed just now", 0, false},
		{"a linked teammate folder", time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, DirName)
			writeSoul(t, root, "beacon", "role: Search\n")
			if tt.link {
				writeSoul(t, root, "Shared", "role: Shared\n")
				if err := os.Symlink("Shared", filepath.Join(root, "linked")); err != nil {
					t.Fatal(err)
				}
			}
			ws := &Workspace{Root: root}
			ws.CacheTeammates(func() time.Time { return time.Now().Add(tt.ahead) })
			list, err := ws.Teammates()
			if err != nil || len(list) == 0 {
				t.Fatalf("Teammates = %v, %v", list, err)
			}
			if ws.team.ok {
				t.Error("the list was kept")
			}
		})
	}
}

func writeSoul(t *testing.T, root, name, front string) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SOUL.md"), []byte("---\n"+front+"---\n# "+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rm(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

func mv(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}
