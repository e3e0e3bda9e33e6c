package layouttest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/tmemhq/tmem/layout"
)

// FromTxtar writes the files of a txtar archive, named relative to the
// .teammates folder, into t.TempDir()/.teammates and opens that workspace.
func FromTxtar(t testing.TB, ar *txtar.Archive) *layout.Workspace {
	t.Helper()
	root := filepath.Join(t.TempDir(), layout.DirName)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := layout.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// FromTxtarFile is FromTxtar for an archive file, e.g. testdata/name.txtar.
func FromTxtarFile(t testing.TB, path string) *layout.Workspace {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return FromTxtar(t, ar)
}

// Copy copies the workspace folder src (a .teammates folder) into
// t.TempDir()/.teammates, keeping modification times (compaction dates
// files by them) and leaving out recall indexes and scratch state, and
// opens the copy.
func Copy(t testing.TB, src string) *layout.Workspace {
	t.Helper()
	dst := filepath.Join(t.TempDir(), layout.DirName)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".index" || d.Name() == ".tmp" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(out, info.ModTime(), info.ModTime())
	})
	if err != nil {
		t.Fatalf("copy workspace %s: %v", src, err)
	}
	ws, err := layout.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// EditKeepingTimes replaces the first old in the file at path with new,
// of the same length, and sets the file's mtime back: the size and mtime
// stay, and only the content and the inode change time show the edit,
// which a cache keyed on stat data must notice.
func EditKeepingTimes(t testing.TB, path, old, new string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) || len(old) != len(new) {
		t.Fatalf("%s: cannot replace %q with %q (missing, or another length)", path, old, new)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), fi.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// IsolatedGit isolates the git commands a test runs (and those of the code
// it tests) from the user's config, with a fixed author and committer; it
// skips the test when git is not installed.
func IsolatedGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"} {
		t.Setenv(k, v)
	}
}
