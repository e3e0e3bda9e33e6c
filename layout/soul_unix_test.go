//go:build unix

package layout

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUnreadableSoulKeepsTheTeammate: a SOUL.md that is too large, a
// named pipe or a link outside the workspace still makes its folder a
// teammate, so its memory stays listed; Teammates says so once on
// Notices, and doctor reports the SOUL.md and still checks the other
// files.
func TestUnreadableSoulKeepsTheTeammate(t *testing.T) {
	tests := []struct {
		name    string
		spoil   func(t *testing.T, soul string)
		problem string
	}{
		{"over the size limit", func(t *testing.T, soul string) {
			write(t, soul, "# Big\n"+strings.Repeat("a", MaxFileSize))
		}, "big/SOUL.md: file is 4.0 MiB, over the 4.0 MiB limit for memory files"},
		{"a named pipe", func(t *testing.T, soul string) {
			rm(t, soul)
			if err := syscall.Mkfifo(soul, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "big/SOUL.md: not a regular file (a named pipe (FIFO))"},
		{"a link outside the workspace", func(t *testing.T, soul string) {
			outside := filepath.Join(t.TempDir(), "SOUL.md")
			write(t, outside, "# Outside — never read\n")
			rm(t, soul)
			if err := os.Symlink(outside, soul); err != nil {
				t.Fatal(err)
			}
		}, "big/SOUL.md: leads outside the workspace through a symlink"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "atlas", "big")
			tt.spoil(t, filepath.Join(ws.Root, "big", "SOUL.md"))
			write(t, filepath.Join(ws.Root, "big", "memory", "2026-11-01.md"), "# 2026-11-01\n\n## Zebra \xff\n")
			var notices bytes.Buffer
			ws.Notices = &notices

			for range 2 {
				list, err := ws.Teammates()
				if err != nil {
					t.Fatal(err)
				}
				if len(list) != 2 || list[1].Name != "big" || list[1].Role != "" {
					t.Fatalf("teammates %+v, want atlas and big (no role)", list)
				}
				if p := list[1].SoulProblem; p == nil || !strings.Contains(p.Error(), tt.problem) {
					t.Errorf("SoulProblem %v, want %q", p, tt.problem)
				}
			}
			if got := strings.Count(notices.String(), "\n"); got != 1 || !strings.Contains(notices.String(), tt.problem) ||
				!strings.Contains(notices.String(), "big stays a teammate, with no role") {
				t.Errorf("notices:\n%s\nwant one line with %q", notices.String(), tt.problem)
			}
			listed, err := ws.List("big", "")
			if err != nil || !hasListing(listed, "big/memory/2026-11-01.md") {
				t.Errorf("List(big) = %v, %v; want the daily", listed, err)
			}

			notices.Reset()
			checked := &Workspace{Root: ws.Root, Notices: &notices} // nothing told yet
			findings := withTimeout(t, checked.Check)
			for _, want := range []string{"big/SOUL.md: error: ", "big/memory/2026-11-01.md:3: error: invalid UTF-8"} {
				if !strings.Contains(findingLines(findings), want) {
					t.Errorf("no finding %q in:\n%s", want, findingLines(findings))
				}
			}
			if _, err := checked.Teammates(); err != nil { // as doctor's later steps may
				t.Fatal(err)
			}
			if notices.Len() != 0 {
				t.Errorf("Notices told after Check what it reports as a finding:\n%s", notices.String())
			}
		})
	}
}

func hasListing(list []Listing, path string) bool {
	for _, it := range list {
		if it.Path == path {
			return true
		}
	}
	return false
}

// TestCheckNamesAFolderWhoseSoulLinksOutside: a folder under a name no
// teammate can have is named by doctor when its SOUL.md is a link that
// leads outside, which tmem never follows, as when it is a file.
func TestCheckNamesAFolderWhoseSoulLinksOutside(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	outside := filepath.Join(t.TempDir(), "SOUL.md")
	write(t, outside, "# Outside\n")
	if err := os.Mkdir(filepath.Join(ws.Root, "Upper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Root, "Upper", "SOUL.md")); err != nil {
		t.Fatal(err)
	}
	findings := withTimeout(t, ws.Check)
	if want := `Upper/SOUL.md: error: "Upper" is not a teammate name`; !strings.Contains(findingLines(findings), want) {
		t.Errorf("no finding %q in:\n%s", want, findingLines(findings))
	}
}
