//go:build unix

package layout

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFindRefusesAnotherUsersWorkspace finds a .teammates above the
// current folder that another user owns (tmem runs as uid 0 here, stood
// in by effectiveUID; the folder belongs to someone else): it is refused,
// unless sudo says that user ran tmem, or it is named with Open.
func TestFindRefusesAnotherUsersWorkspace(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, DirName)
	sub := filepath.Join(root, "proj", "src")
	for _, d := range []string{ws, sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(ws)
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := ownerOf(st)
	if owner == 0 { // the tests run as root: give the folder to nobody
		if err := os.Chown(ws, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		owner = 65534
	}
	defer func(f func() int) { effectiveUID = f }(effectiveUID)
	effectiveUID = func() int { return 0 }
	t.Setenv("SUDO_UID", "")

	_, err = Find(sub)
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), "uid "+strconv.Itoa(owner)+", not 0") || !strings.Contains(err.Error(), "--dir") {
		t.Fatalf("Find: %v, want it refused as another user's", err)
	}
	if w, err := Open(root); err != nil || w.Root != ws {
		t.Errorf("Open(%s): %v, %v; want the workspace named", root, w, err)
	}
	t.Setenv("SUDO_UID", strconv.Itoa(owner))
	if w, err := Find(sub); err != nil || w.Root != ws {
		t.Errorf("Find under sudo by its owner: %v, %v", w, err)
	}
	t.Setenv("SUDO_UID", "")
	effectiveUID = func() int { return owner }
	if w, err := Find(ws); err != nil || w.Root != ws {
		t.Errorf("Find as its owner: %v, %v", w, err)
	}
}
