//go:build !unix

package context

import (
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// makeHostile skips: named pipes and symlinks are made on Unix only.
func makeHostile(t *testing.T, ws *layout.Workspace, fifos, outside []string) {
	t.Helper()
	if len(fifos)+len(outside) > 0 {
		t.Skip("named pipes and symlinks are made on Unix only")
	}
}
