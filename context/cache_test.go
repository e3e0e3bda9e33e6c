package context

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout/layouttest"
)

// TestBuildCache builds with a Cache, again and after files change: each
// stack and manifest must be what a build without a cache gives on the
// same files.
func TestBuildCache(t *testing.T) {
	ws := copyExample(t)
	keyID := "AKIA" + "Z7QRSTUVWXY2345A" // split so that the repository holds no secret
	path := func(rel string) string { return filepath.Join(ws.Root, filepath.FromSlash(rel)) }
	edit := func(rel, old, new string) func(t *testing.T) {
		return func(t *testing.T) { layouttest.EditKeepingTimes(t, path(rel), old, new) }
	}
	today := "beacon/memory/2026-11-20.md"
	b, err := os.ReadFile(path(today))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path(today), append(b, "\n## Keys\n\nRotated "+keyID+" today.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	// An hour ahead of the files' times: every file counts as settled.
	cache := NewCache(func() time.Time { return time.Now().Add(time.Hour) })
	steps := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"first build", nil},
		{"unchanged", nil},
		{"unchanged again, the secret still listed", nil},
		{"WISDOM.md edited", edit("beacon/WISDOM.md", "never", "NEVER")},
		{"today's log edited", edit(today, "Rotated", "ROTATED")},
		{"an earlier log edited", edit("beacon/memory/2026-11-19.md", "the", "THE")},
		{"GOALS.md removed", func(t *testing.T) {
			if err := os.Remove(path("beacon/GOALS.md")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.change != nil {
				st.change(t)
			}
			opts := Options{Teammate: "beacon", Task: exampleTask, Now: fixedClock(exampleNow), Location: time.UTC,
				Tokenizer: mustTokenizer(t, O200k), Recaller: &fakeRecaller{ws: ws, now: exampleNow}}
			want, err := Build(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Cache = cache
			opts.Recaller = &fakeRecaller{ws: ws, now: exampleNow}
			got, err := Build(context.Background(), ws, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != want.Text {
				t.Errorf("stack with a cache differs:\n--- cached\n%s\n--- uncached\n%s", got.Text, want.Text)
			}
			gm, _ := json.Marshal(got.Manifest)
			wm, _ := json.Marshal(want.Manifest)
			if string(gm) != string(wm) {
				t.Errorf("manifest with a cache differs:\n--- cached\n%s\n--- uncached\n%s", gm, wm)
			}
			if !strings.Contains(string(gm), `"path":"`+today) || !strings.Contains(string(gm), "aws") {
				t.Errorf("the manifest does not list the redacted key in %s: %s", today, gm)
			}
		})
	}
}
