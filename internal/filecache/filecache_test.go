package filecache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

// fixture is a workspace with one file, a.md, and a cache over it that
// counts how often it derives a value.
type fixture struct {
	ws      *layout.Workspace
	path    string
	cache   *Cache[string]
	derived int
}

func newFixture(t *testing.T, now func() time.Time, withCache bool) *fixture {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, layout.DirName)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := layout.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{ws: ws, path: filepath.Join(root, "a.md")}
	if withCache {
		f.cache = New[string](now)
	}
	f.write(t, "first")
	return f
}

func (f *fixture) write(t *testing.T, s string) {
	t.Helper()
	if err := os.WriteFile(f.path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t *testing.T) string {
	t.Helper()
	v, err := f.cache.Read(f.ws, "a.md", 0, func(src []byte) (string, error) {
		f.derived++
		return strings.ToUpper(string(src)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// later is a wall clock an hour ahead: every file written now is settled.
func later() time.Time { return time.Now().Add(time.Hour) }

func TestRead(t *testing.T) {
	tests := []struct {
		name      string
		now       func() time.Time
		cache     bool
		change    func(t *testing.T, f *fixture)
		want      string
		wantReads int // derive calls over three reads
	}{
		{"unchanged file is derived once", later, true, nil, "FIRST", 1},
		{"no cache derives every time", later, false, nil, "FIRST", 3},
		{"a file changed within the racy window is derived every time", time.Now, true, nil, "FIRST", 3},
		{"a changed file is derived again", later, true, func(t *testing.T, f *fixture) { f.write(t, "second, longer") }, "SECOND, LONGER", 2},
		{"same size and mtime, new content: the inode change time tells", later, true, func(t *testing.T, f *fixture) {
			time.Sleep(20 * time.Millisecond) // past a coarse clock tick, so the ctime moves
			layouttest.EditKeepingTimes(t, f.path, "first", "FIRST")
		}, "FIRST", 2},
		{"a replaced file is derived again", later, true, func(t *testing.T, f *fixture) {
			tmp := f.path + ".tmp"
			if err := os.WriteFile(tmp, []byte("third"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, f.path); err != nil {
				t.Fatal(err)
			}
		}, "THIRD", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.now, tt.cache)
			f.read(t)
			if tt.change != nil {
				tt.change(t, f)
			}
			f.read(t)
			if got := f.read(t); got != tt.want {
				t.Errorf("read %q, want %q", got, tt.want)
			}
			if f.derived != tt.wantReads {
				t.Errorf("derived %d times, want %d", f.derived, tt.wantReads)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	f := newFixture(t, later, true)
	f.read(t)
	t.Run("a deleted file is an error that matches fs.ErrNotExist", func(t *testing.T) {
		if err := os.Remove(f.path); err != nil {
			t.Fatal(err)
		}
		_, err := f.cache.Read(f.ws, "a.md", 0, func(src []byte) (string, error) { return string(src), nil })
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error %v, want one matching fs.ErrNotExist", err)
		}
	})
	t.Run("a failed derive is not kept", func(t *testing.T) {
		f.write(t, "bad")
		fail := errors.New("does not parse")
		for i := 0; i < 2; i++ {
			if _, err := f.cache.Read(f.ws, "a.md", 0, func([]byte) (string, error) { f.derived++; return "", fail }); !errors.Is(err, fail) {
				t.Fatalf("error %v, want %v", err, fail)
			}
		}
		if got := f.read(t); got != "BAD" {
			t.Errorf("read %q after failures, want %q", got, "BAD")
		}
	})
	t.Run("a link that leads outside is refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "secret.md")
		if err := os.WriteFile(out, []byte("outside"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(f.path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(out, f.path); err != nil {
			t.Fatal(err)
		}
		if v, err := f.cache.Read(f.ws, "a.md", 0, func(src []byte) (string, error) { return string(src), nil }); err == nil {
			t.Errorf("read %q through a link outside the workspace", v)
		}
	})
}
