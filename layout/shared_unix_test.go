//go:build unix

package layout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedLinks: CROSS-TEAM.md, templates and the files in it are read
// by every teammate, so one that is a link into a teammate's folder is
// refused wherever it is read, and doctor names whose folder it leads
// into; a link among the shared files, or to a folder of no teammate,
// is followed.
func TestSharedLinks(t *testing.T) {
	tests := []struct {
		name  string
		links [][2]string // link, its text; made in order
		read  string
		owner string // whose folder read leads into; "" when it is read
		where string // where doctor says the link leads, when owner is set
	}{
		{name: "cross-team to a memory", links: [][2]string{{"CROSS-TEAM.md", "quill/memory/user_x.md"}},
			read: "CROSS-TEAM.md", owner: "quill", where: "into quill's folder"},
		{name: "templates to a memory folder", links: [][2]string{{"templates", "quill/memory"}},
			read: "templates/user_x.md", owner: "quill", where: "into quill's folder"},
		{name: "a template to a memory", links: [][2]string{{"templates/q.md", "../quill/memory/user_x.md"}},
			read: "templates/q.md", owner: "quill", where: "into quill's folder"},
		{name: "through the workspace folder", links: [][2]string{{"templates", "."}},
			read: "templates/quill/memory/user_x.md", owner: "quill", where: "to a folder that holds beacon's folder"},
		{name: "into a linked teammate's folder", links: [][2]string{{"beacon", "_team/beacon"}, {"CROSS-TEAM.md", "_team/beacon/memory/user_b.md"}},
			read: "CROSS-TEAM.md", owner: "beacon", where: "into beacon's folder"},
		{name: "cross-team to a template", links: [][2]string{{"CROSS-TEAM.md", "templates/cross.md"}},
			read: "CROSS-TEAM.md"},
		{name: "a template to a folder of no teammate", links: [][2]string{{"templates/s.md", "../common/notes.md"}},
			read: "templates/s.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := sharedWorkspace(t, tt.links)
			_, err := w.ReadFile(tt.read, 0)
			findings, cerr := w.Check()
			if cerr != nil {
				t.Fatal(cerr)
			}
			if tt.owner == "" {
				if err != nil {
					t.Errorf("read %s: %v, want it read", tt.read, err)
				}
				if f := sharedFinding(findings); f != "" {
					t.Errorf("doctor: %s, want no finding about the link", f)
				}
				return
			}
			if !errors.Is(err, ErrIntoFolder) || !strings.Contains(err.Error(), "into "+tt.owner+"'s folder") {
				t.Errorf("read %s: %v, want it refused as leading into %s's folder", tt.read, err, tt.owner)
			}
			if f := sharedFinding(findings); !strings.Contains(f, "error: symlink leads "+tt.where) {
				t.Errorf("doctor: %q, want the link reported as leading %s", f, tt.where)
			}
		})
	}
}

// sharedWorkspace is a workspace of two teammates, beacon's folder in
// _team/beacon unless a link puts it there, with a folder of common notes
// and the links made.
func sharedWorkspace(t *testing.T, links [][2]string) *Workspace {
	t.Helper()
	root := filepath.Join(t.TempDir(), DirName)
	beacon := "beacon"
	for _, l := range links {
		if l[0] == "beacon" {
			beacon = "_team/beacon"
		}
	}
	files := map[string]string{
		"quill/SOUL.md":              "# Quill\n",
		"quill/memory/user_x.md":     "---\nname: x\ndescription: d\ntype: user\n---\nQuill's own.\n",
		beacon + "/SOUL.md":          "# Beacon\n",
		beacon + "/memory/user_b.md": "---\nname: b\ndescription: d\ntype: user\n---\nBeacon's own.\n",
		"templates/cross.md":         "# Cross-team\n",
		"common/notes.md":            "# Notes\n",
		"CROSS-TEAM.md":              "# Cross-team\n",
	}
	for rel, body := range files {
		write(t, filepath.Join(root, rel), body)
	}
	for _, l := range links {
		p := filepath.Join(root, l[0])
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l[1], p); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	return &Workspace{Root: root}
}

// sharedFinding is what doctor found about the shared paths, a finding a
// line (a link into a teammate's folder, a template override under it).
func sharedFinding(findings []Finding) string {
	var out []string
	for _, f := range findings {
		if sharedPath(f.Path) {
			out = append(out, f.String())
		}
	}
	return strings.Join(out, "\n")
}
