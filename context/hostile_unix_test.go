//go:build unix

package context

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// makeHostile puts named pipes at fifos and, at outside, links to a file
// outside the workspace.
func makeHostile(t *testing.T, ws *layout.Workspace, fifos, outside []string) {
	t.Helper()
	for _, p := range fifos {
		if err := syscall.Mkfifo(ws.Abs(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range outside {
		target := filepath.Join(t.TempDir(), "outside.md")
		if err := os.WriteFile(target, []byte("# 2026-11-20\n\n## Leak\n\nsecret outside\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, ws.Abs(p)); err != nil {
			t.Fatal(err)
		}
	}
}
