//go:build unix

package layout

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// folderLinkCase is a teammate's folder, pipe, that is a link: folder is
// where it leads (made with pipe's SOUL.md and a memory file), links the
// symlinks to make, in order, each target relative to the workspace
// folder.
type folderLinkCase struct {
	name   string
	folder string
	links  [][2]string
	what   string // for a refused link, what it is, as errors say it
}

// makeFolderLink builds tt in a workspace that has teammate quill.
func makeFolderLink(t *testing.T, tt folderLinkCase) *Workspace {
	t.Helper()
	ws := newWorkspace(t, "quill")
	write(t, ws.Abs("quill/memory/project_q.md"), "---\nname: q\ndescription: quill's\ntype: project\n---\nquill's\n")
	write(t, ws.Abs(tt.folder+"/SOUL.md"), "# Pipe — Tester\n")
	write(t, ws.Abs(tt.folder+"/memory/project_p.md"), "---\nname: p\ndescription: pipe's\ntype: project\n---\npipe's\n")
	for _, l := range tt.links {
		if strings.HasSuffix(l[1], "/c") {
			write(t, ws.Abs(l[1]+"/SOUL.md"), "# Cedar — Other\n")
		}
		if err := os.Symlink(l[1], ws.Abs(l[0])); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	return ws
}

// TestTeammateFolderLinkedIntoOtherFilesIsRefused: a teammate's folder
// that is a link into another teammate's folder, into a dot-folder or
// templates, or to the workspace folder itself is no teammate, and every
// read and write under it is refused with an error naming the link and
// where it leads; nothing in the workspace changes, and doctor reports
// the link as an error.
func TestTeammateFolderLinkedIntoOtherFilesIsRefused(t *testing.T) {
	const rule = ": tmem follows a teammate's folder only to a folder of its own, not into another teammate's folder, a dot-folder or templates; make pipe a folder of its own"
	tests := []folderLinkCase{
		{name: "into another teammate's folder", folder: "quill/memory", links: [][2]string{{"pipe", "quill/memory"}},
			what: `symlink to quill/memory, in quill, the folder of teammate "quill"`},
		{name: "into a folder under a teammate's name", folder: "archive/pipe", links: [][2]string{{"pipe", "archive/pipe"}},
			what: `symlink to archive/pipe, in archive, the folder of teammate "archive"`},
		{name: "into .tmp", folder: ".tmp/pipe", links: [][2]string{{"pipe", ".tmp/pipe"}},
			what: "symlink to .tmp/pipe, in .tmp, a dot-folder"},
		{name: "into .index", folder: ".index/pipe", links: [][2]string{{"pipe", "./.index/pipe/"}},
			what: "symlink to .index/pipe, in .index, a dot-folder"},
		{name: "into .git", folder: ".git/pipe", links: [][2]string{{"pipe", ".git/pipe"}},
			what: "symlink to .git/pipe, in .git, a dot-folder"},
		{name: "to a dot-folder", folder: ".store", links: [][2]string{{"pipe", ".store"}},
			what: "symlink to .store, a dot-folder"},
		{name: "into templates", folder: "templates/pipe", links: [][2]string{{"pipe", "templates/pipe"}},
			what: "symlink to templates/pipe, in templates, the folder of template overrides"},
		{name: "to the workspace folder", folder: ".", links: [][2]string{{"pipe", "."}},
			what: "symlink to the workspace folder itself"},
		{name: "through a link with no teammate's name", folder: "quill/memory", links: [][2]string{{"Hop", "quill/memory"}, {"pipe", "Hop"}},
			what: `symlink to quill/memory, in quill, the folder of teammate "quill"`},
		{name: "into the folder another teammate's link leads to", folder: "Shared/c/pipe", links: [][2]string{{"cedar", "Shared/c"}, {"pipe", "Shared/c/pipe"}},
			what: `symlink to Shared/c/pipe, in Shared/c, the folder of teammate "cedar"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := makeFolderLink(t, tt)
			wantErr := "pipe is a " + tt.what + rule
			names := teammateNames(t, ws)
			if slices.Contains(names, "pipe") || !slices.Contains(names, "quill") {
				t.Errorf("Teammates = %v, want quill and not pipe", names)
			}
			if _, err := ws.Teammate("pipe"); err == nil || err.Error() != `teammate "pipe" cannot be used: `+wantErr {
				t.Errorf("Teammate(pipe) = %v,\nwant teammate \"pipe\" cannot be used: %s", err, wantErr)
			}
			if files, err := ws.Files("pipe"); err != nil || len(files) != 0 {
				t.Errorf("Files(pipe) = %v, %v; want none", files, err)
			}

			before := treeOf(t, ws)
			ctx := context.Background()
			ops := []struct {
				op string
				f  func() error
			}{
				{"ReadFile", func() error { _, err := ws.ReadFile("pipe/SOUL.md", 0); return err }},
				{"Open", func() error {
					f, err := ws.Open("pipe/memory/project_p.md")
					if err == nil {
						f.Close()
					}
					return err
				}},
				{"Stat", func() error { _, err := ws.Stat("pipe/memory/project_p.md"); return err }},
				{"Lstat", func() error { _, err := ws.Lstat("pipe/memory"); return err }},
				{"ReadDir", func() error { _, err := ws.ReadDir("pipe/memory"); return err }},
				{"WriteFile", func() error {
					return ws.WriteFile("pipe/memory/project_n.md", []byte("---\nname: n\ndescription: d\ntype: project\n---\nnew\n"))
				}},
				{"AppendFile", func() error { return ws.AppendFile("pipe/memory/2026-11-20.md", []byte("more\n")) }},
				{"Remove", func() error { return ws.Remove("pipe/memory/project_p.md") }},
				{"RemoveAll", func() error { return ws.RemoveAll("pipe/memory") }},
				{"Rename", func() error { return ws.Rename("pipe/memory/project_p.md", "pipe/memory/project_r.md") }},
				{"AppendDaily", func() error {
					_, err := ws.AppendDaily(ctx, "pipe", time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), "Entry", "text")
					return err
				}},
				{"WriteMemory", func() error {
					_, err := ws.WriteMemory(ctx, "pipe", Memory{Type: "project", Topic: "n", Name: "n", Description: "d", Body: "new"}, ModeCreate)
					return err
				}},
			}
			for _, o := range ops {
				op, err := o.op, o.f()
				if !errors.Is(err, ErrOtherFolder) || !errors.Is(err, ErrOutside) {
					t.Errorf("%s: err = %v, want ErrOtherFolder (and ErrOutside)", op, err)
					continue
				}
				if !strings.Contains(err.Error(), "pipe/") || !strings.HasSuffix(err.Error(), ": "+wantErr) {
					t.Errorf("%s: err = %q, want the path and %q", op, err, wantErr)
				}
			}
			if after := treeOf(t, ws); !maps.Equal(before, after) {
				t.Errorf("the workspace changed:\nbefore %v\nafter  %v", before, after)
			}

			findings, err := ws.Check()
			if err != nil {
				t.Fatal(err)
			}
			if want := "pipe: error: " + tt.what + rule; !strings.Contains(findingLines(findings), want+"\n") {
				t.Errorf("no finding %q in:\n%s", want, findingLines(findings))
			}
		})
	}
}

// TestTeammateFolderLinkedToAFolderOfItsOwn: a teammate's folder that is
// a link to a folder of its own in the workspace (under no teammate's
// name, no dot-folder, not templates) is a teammate, read and written
// through the link, and doctor finds nothing wrong with it.
func TestTeammateFolderLinkedToAFolderOfItsOwn(t *testing.T) {
	tests := []folderLinkCase{
		{name: "a plain folder", folder: "Shared/pipe", links: [][2]string{{"pipe", "Shared/pipe"}}},
		{name: "a plain folder at the top", folder: "Shared", links: [][2]string{{"pipe", "./Shared/"}}},
		{name: "through a link with no teammate's name", folder: "Shared/pipe", links: [][2]string{{"Hop", "Shared"}, {"pipe", "Hop/pipe"}}},
		{name: "beside another teammate's link", folder: "Shared/p", links: [][2]string{{"cedar", "Shared/c"}, {"pipe", "Shared/p"}}},
		{name: "holding the folder another link leads to", folder: "Shared", links: [][2]string{{"pipe", "Shared"}, {"cedar", "Shared/c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := makeFolderLink(t, tt)
			if names := teammateNames(t, ws); !slices.Contains(names, "pipe") {
				t.Errorf("Teammates = %v, want pipe in it", names)
			}
			if b, err := ws.ReadFile("pipe/memory/project_p.md", 0); err != nil || !strings.Contains(string(b), "pipe's") {
				t.Errorf("ReadFile = %q, %v", b, err)
			}
			if err := ws.WriteFile("pipe/memory/project_n.md", []byte("---\nname: n\ndescription: d\ntype: project\n---\nnew\n")); err != nil {
				t.Errorf("WriteFile: %v", err)
			}
			day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
			if _, err := ws.AppendDaily(context.Background(), "pipe", day, "Entry", "text"); err != nil {
				t.Errorf("AppendDaily: %v", err)
			}
			for _, rel := range []string{"memory/project_n.md", "memory/2026-11-20.md"} {
				if _, err := os.Stat(ws.Abs(tt.folder + "/" + rel)); err != nil {
					t.Errorf("the write did not land in %s: %v", tt.folder, err)
				}
			}
			findings, err := ws.Check()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				if f.Path == "pipe" || strings.HasPrefix(f.Path, "pipe/") && f.Severity == SevError {
					t.Errorf("finding: %s", f)
				}
			}
		})
	}
}

// TestDoctorLooksInsideALinkedTeammateFolder: doctor checks the files of
// a teammate's folder that is a link as it checks any teammate's, under
// the teammate's name and once, not again under the folder's own path.
func TestDoctorLooksInsideALinkedTeammateFolder(t *testing.T) {
	tt := folderLinkCase{folder: "Shared/pipe", links: [][2]string{{"pipe", "Shared/pipe"}}}
	ws := makeFolderLink(t, tt)
	if err := os.Symlink("../../../quill/memory/project_q.md", ws.Abs("Shared/pipe/memory/project_qq.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws.Abs("Shared/pipe/memory/user_dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(ws.Abs("Shared/pipe/memory/2026-11-20.md"), 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	findings, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	got := findingLines(findings)
	for _, want := range []string{
		"pipe/memory/project_qq.md: error: symlink leads into another teammate's folder, quill's (to quill/memory/project_q.md): tmem does not follow a link out of a teammate's folder; put the file itself here",
		"pipe/memory/user_dir.md: error: a folder, not a regular file, named like a memory file: ",
		"pipe/memory/2026-11-20.md: error: a named pipe (FIFO), not a regular file: tmem never reads it; remove it",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no finding %q in:\n%s", want, got)
		}
	}
	for _, f := range findings {
		if strings.HasPrefix(f.Path, "Shared/") {
			t.Errorf("reported under the folder's own path too: %s", f)
		}
	}
}

// treeOf returns every entry under the workspace folder, links not
// followed, with a file's content or a link's target; lock files and
// their folders are left out, as taking a lock makes them.
func treeOf(t *testing.T, ws *Workspace) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := ws.Rel(p)
		switch {
		case rel == ".tmp/locks":
			return fs.SkipDir
		case rel == ".tmp":
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			to, err := os.Readlink(p)
			out[rel] = "-> " + to
			return err
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			out[rel] = string(b)
			return err
		}
		out[rel] = "folder"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
