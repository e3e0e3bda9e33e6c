//go:build linux

package layout

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestTeammateFolderLinkSpelledInAnotherCase: on a disk that ignores case
// (macOS, Windows) a link spelled "QUILL/memory" leads into quill's
// folder, and "Templates/x" into templates. The refusal goes by the
// folders being one, not by the spelling: a bind mount makes QUILL the
// folder quill here, as such a disk does.
func TestTeammateFolderLinkSpelledInAnotherCase(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a bind mount, which stands in for a disk that ignores case, needs root")
	}
	tests := []struct {
		name, bind, as string
		links          [][2]string
		folder, where  string
	}{
		{name: "a teammate's folder", bind: "quill", as: "QUILL", folder: "quill/memory",
			links: [][2]string{{"pipe", "QUILL/memory"}}, where: `symlink to QUILL/memory, in quill, the folder of teammate "quill"`},
		{name: "templates", bind: "templates", as: "Templates", folder: "templates/pipe",
			links: [][2]string{{"pipe", "Templates/pipe"}}, where: "symlink to Templates/pipe, in templates, the folder of template overrides"},
		{name: "the folder another teammate's link leads to", bind: "Shared", as: "SHARED", folder: "Shared/c/pipe",
			links: [][2]string{{"cedar", "Shared/c"}, {"pipe", "SHARED/c/pipe"}}, where: `symlink to SHARED/c/pipe, in Shared/c, the folder of teammate "cedar"`},
		{name: "a teammate's folder spelled with a long s", bind: "quill", as: "ſquill", folder: "quill/memory",
			links: [][2]string{{"pipe", "ſquill/memory"}}, where: "symlink to ſquill/memory, in quill, the folder of teammate \"quill\""},
		{name: "another link's folder in another Unicode form", bind: "Shared/café", as: "Shared/café", folder: "Shared/café/pipe",
			links: [][2]string{{"cedar", "Shared/café"}, {"pipe", "Shared/café/pipe"}}, where: "symlink to Shared/café/pipe, in Shared/café, the folder of teammate \"cedar\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := makeFolderLink(t, folderLinkCase{name: tt.name, folder: tt.folder, links: tt.links})
			if err := os.MkdirAll(ws.Abs(tt.as), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount(ws.Abs(tt.bind), ws.Abs(tt.as), "", syscall.MS_BIND, ""); err != nil {
				t.Skipf("no bind mount here: %v", err)
			}
			t.Cleanup(func() { syscall.Unmount(ws.Abs(tt.as), syscall.MNT_DETACH) })
			if _, err := ws.Teammate("pipe"); err == nil || !strings.Contains(err.Error(), "pipe is a "+tt.where+": ") {
				t.Errorf("Teammate(pipe) = %v; want it refused, %s", err, tt.where)
			}
			if _, err := ws.ReadFile("pipe/memory/project_p.md", 0); !errors.Is(err, ErrOtherFolder) {
				t.Errorf("ReadFile under pipe: %v, want ErrOtherFolder", err)
			}
		})
	}
}
