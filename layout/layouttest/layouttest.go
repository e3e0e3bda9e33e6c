package layouttest

import (
	"io/fs"
	"os"
	"path/filepath"
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
// t.TempDir()/.teammates, leaving out recall indexes and scratch state,
// and opens the copy.
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
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
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
