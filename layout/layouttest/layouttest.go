package layouttest

import (
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
