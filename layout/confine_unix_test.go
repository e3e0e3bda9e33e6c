//go:build unix

package layout

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkIn replaces rel in ws with a symlink to to, or skips the test on a
// system without symlinks.
func linkIn(t *testing.T, ws *Workspace, rel, to string) {
	t.Helper()
	if err := os.RemoveAll(ws.Abs(rel)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, ws.Abs(rel)); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}

// TestLinksOutOfATeammatesFolderAreRefused: a path under a teammate's
// folder that a link (of a folder or a file) leads out of it, into
// another teammate's folder, to CROSS-TEAM.md or into .tmp, is refused
// for reads and writes alike, with an error naming where it leads; the
// file it leads to is left as it was. (A file that is a link is never
// written through, wherever it leads, and removing it removes the link.)
func TestLinksOutOfATeammatesFolderAreRefused(t *testing.T) {
	tests := []struct {
		name, link, to, rel, leads string
	}{
		{"memory folder to another's", "pipe/memory", "../quill/memory", "pipe/memory/project_q.md", "quill/memory/project_q.md"},
		{"file to another's", "pipe/memory/project_qq.md", "../../quill/memory/project_q.md", "pipe/memory/project_qq.md", "quill/memory/project_q.md"},
		{"file to CROSS-TEAM.md", "pipe/WISDOM.md", "../CROSS-TEAM.md", "pipe/WISDOM.md", "CROSS-TEAM.md"},
		{"memory folder into .tmp", "pipe/memory", "../.tmp", "pipe/memory/project_q.md", ".tmp/project_q.md"},
		{"weekly folder to another's, deeper", "pipe/memory/weekly", "../../quill/memory", "pipe/memory/weekly/project_q.md", "quill/memory/project_q.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "pipe", "quill")
			for rel, body := range map[string]string{"quill/memory/project_q.md": "quill's\n", "CROSS-TEAM.md": "# Cross-team\n", ".tmp/project_q.md": "scratch\n"} {
				if err := ws.WriteFile(rel, []byte(body)); err != nil {
					t.Fatal(err)
				}
			}
			linkIn(t, ws, tt.link, tt.to)
			before, err := os.ReadFile(ws.Abs(tt.leads))
			if err != nil {
				t.Fatal(err)
			}
			_, rerr := ws.ReadFile(tt.rel, 0)
			_, serr := ws.Stat(tt.rel)
			ops := map[string]error{"ReadFile": rerr, "Stat": serr}
			writes := map[string]error{
				"WriteFile":  ws.WriteFile(tt.rel, []byte("pipe's\n")),
				"AppendFile": ws.AppendFile(tt.rel, []byte("pipe's\n")),
				"Remove":     ws.Remove(tt.rel),
			}
			if tt.link != tt.rel {
				maps.Copy(ops, writes)
			}
			for op, err := range ops {
				if !errors.Is(err, ErrOtherFolder) || !errors.Is(err, ErrOutside) {
					t.Errorf("%s: err = %v, want ErrOtherFolder (and ErrOutside)", op, err)
					continue
				}
				if msg := err.Error(); !strings.HasPrefix(msg, tt.rel+": ") || !strings.Contains(msg, " to "+tt.leads+", out of pipe's folder") {
					t.Errorf("%s: err = %q, want it to name %s and %s", op, msg, tt.rel, tt.leads)
				}
			}
			if after, err := os.ReadFile(ws.Abs(tt.leads)); err != nil || string(after) != string(before) {
				t.Errorf("%s = %q, %v; want it untouched: %q", tt.leads, after, err, before)
			}
			files, err := ws.Files("pipe")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Path == tt.rel {
					t.Errorf("Files lists %s", f.Path)
				}
			}
		})
	}
}

// TestLinksInsideATeammatesFolderWork: links that stay inside the
// teammate's folder, of a file or a folder, read and list as before, and
// a teammate's folder that is itself a link inside the workspace is
// read through.
func TestLinksInsideATeammatesFolderWork(t *testing.T) {
	ws := newWorkspace(t, "pipe")
	if err := ws.WriteFile("pipe/memory/project_p.md", []byte("pipe's\n")); err != nil {
		t.Fatal(err)
	}
	linkIn(t, ws, "pipe/memory/project_alias.md", "project_p.md")
	linkIn(t, ws, "pipe/notes", "memory")
	if err := os.Rename(ws.Abs("pipe"), ws.Abs("store")); err != nil {
		t.Fatal(err)
	}
	linkIn(t, ws, "pipe", "store")
	for _, rel := range []string{"pipe/memory/project_alias.md", "pipe/notes/project_p.md", "pipe/memory/project_p.md"} {
		if b, err := ws.ReadFile(rel, 0); err != nil || string(b) != "pipe's\n" {
			t.Errorf("ReadFile(%s) = %q, %v", rel, b, err)
		}
	}
	if err := ws.WriteFile("pipe/notes/project_n.md", []byte("new\n")); err != nil {
		t.Errorf("WriteFile through a link inside the folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "store/memory/project_n.md")); err != nil {
		t.Errorf("the write did not land in the folder: %v", err)
	}
}

// TestLinkOutsideTheWorkspaceStaysErrOutside: a link under a teammate's
// folder that leads out of the workspace, to a file or to nothing, is
// refused as before, not named as one into another folder; one to nothing
// in another teammate's folder is named as such.
func TestLinkOutsideTheWorkspaceStaysErrOutside(t *testing.T) {
	ws := newWorkspace(t, "pipe", "quill")
	outside := filepath.Join(t.TempDir(), "f.md")
	if err := os.WriteFile(outside, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linkIn(t, ws, "pipe/memory/project_x.md", outside)
	linkIn(t, ws, "pipe/memory/project_gone.md", "../../../nowhere/f.md")
	linkIn(t, ws, "pipe/memory/project_q.md", "../../quill/memory/project_gone.md")
	for _, rel := range []string{"pipe/memory/project_x.md", "pipe/memory/project_gone.md"} {
		_, err := ws.ReadFile(rel, 0)
		if !errors.Is(err, ErrOutside) || errors.Is(err, ErrOtherFolder) {
			t.Errorf("%s: err = %v, want ErrOutside only", rel, err)
		}
	}
	_, err := ws.ReadFile("pipe/memory/project_q.md", 0)
	if want := "to quill/memory/project_gone.md, out of pipe's folder"; !errors.Is(err, ErrOtherFolder) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("err = %v, want ErrOtherFolder naming %q", err, want)
	}
}

// TestDoctorReportsLinksOutOfATeammatesFolder: doctor names each link
// under a teammate's folder that leads out of it as an error, and where
// it leads; a link that stays in the folder is no finding.
func TestDoctorReportsLinksOutOfATeammatesFolder(t *testing.T) {
	ws := newWorkspace(t, "pipe", "quill")
	for rel, body := range map[string]string{"quill/memory/project_q.md": "---\nname: n\ndescription: d\ntype: project\n---\nq\n", "pipe/memory/project_p.md": "---\nname: n\ndescription: d\ntype: project\n---\np\n", "CROSS-TEAM.md": "# Cross-team\n"} {
		if err := ws.WriteFile(rel, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	linkIn(t, ws, "pipe/memory/project_qq.md", "../../quill/memory/project_q.md")
	linkIn(t, ws, "pipe/memory/weekly", "../../quill/memory")
	linkIn(t, ws, "pipe/WISDOM.md", "../CROSS-TEAM.md")
	linkIn(t, ws, "pipe/memory/project_alias.md", "project_p.md")
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range findings {
		got[f.String()] = true
		if strings.Contains(f.Path, "project_alias") {
			t.Errorf("a link inside the folder is reported: %s", f)
		}
	}
	for _, want := range []string{
		"pipe/memory/project_qq.md: error: symlink leads into another teammate's folder, quill's (to quill/memory/project_q.md): tmem does not follow a link out of a teammate's folder; put the file itself here",
		"pipe/memory/weekly: error: symlink leads into another teammate's folder, quill's (to quill/memory): tmem does not follow a link out of a teammate's folder; put the file itself here",
		"pipe/WISDOM.md: error: symlink leads out of pipe's folder (to CROSS-TEAM.md): tmem does not follow a link out of a teammate's folder; put the file itself here",
	} {
		if !got[want] {
			t.Errorf("no finding %q in:\n%s", want, findingLines(findings))
		}
	}
}

// TestDoctorWarnsOfAWorkspaceLinkedOutOfTheProject: a .teammates folder
// that is a symlink out of the folder holding it is warned of (tmem
// writes its index and temp files there), not refused; one that links
// within the project folder is no finding.
func TestDoctorWarnsOfAWorkspaceLinkedOutOfTheProject(t *testing.T) {
	elsewhere := newWorkspace(t, "pipe")
	real, err := filepath.EvalSymlinks(elsewhere.Root)
	if err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	if err := os.Symlink(elsewhere.Root, filepath.Join(proj, DirName)); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	ws, err := Open(proj)
	if err != nil {
		t.Fatal(err)
	}
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	want := ws.Root + ": warning: the workspace folder is a symlink that leads out of the project folder (to " + real + "): "
	if !strings.Contains(findingLines(findings), want) {
		t.Errorf("no finding starting %q in:\n%s", want, findingLines(findings))
	}

	inside := newWorkspace(t, "pipe")
	proj = filepath.Dir(inside.Root)
	if err := os.Rename(inside.Root, filepath.Join(proj, "memory")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("memory", inside.Root); err != nil {
		t.Fatal(err)
	}
	if findings, err = inside.Check(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(findingLines(findings), "workspace folder is a symlink") {
		t.Errorf("a workspace linked within the project is warned of:\n%s", findingLines(findings))
	}
}

// TestMissingTeammateFolderAndMissingWorkspace: under a teammate's folder
// that does not exist, ReadDir lists nothing and Remove has nothing to
// do; with no workspace folder at all, both fail.
func TestMissingTeammateFolderAndMissingWorkspace(t *testing.T) {
	ws := newWorkspace(t, "pipe")
	if ents, err := ws.ReadDir("nobody/memory"); err != nil || len(ents) != 0 {
		t.Errorf("ReadDir(nobody/memory) = %v, %v; want nothing", ents, err)
	}
	if err := ws.Remove("nobody/memory/project_x.md"); err != nil {
		t.Errorf("Remove(nobody/memory/project_x.md) = %v", err)
	}
	if err := os.RemoveAll(ws.Root); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ReadDir("pipe/memory"); err == nil {
		t.Error("ReadDir with no workspace folder did not fail")
	}
	if err := ws.Remove("pipe/memory/project_x.md"); err == nil {
		t.Error("Remove with no workspace folder did not fail")
	}
}
