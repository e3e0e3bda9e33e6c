package layout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"proj/.teammates/beacon", "plain/beacon", "named/.teammates"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		dir      string
		wantRoot string // "" means refused
		wantErr  string
	}{
		{"a folder holding .teammates", "proj", "proj/.teammates", ""},
		{"the .teammates folder itself", "proj/.teammates", "proj/.teammates", ""},
		{"a .teammates folder with nothing in it", "named/.teammates", "named/.teammates", ""},
		{"a folder that is not a workspace", "plain", "", "plain: no .teammates workspace found (it is not a .teammates folder and holds none)"},
		{"a teammate-looking folder inside it", "plain/beacon", "", "no .teammates workspace found"},
		{"a file", "file", "", "no .teammates workspace found"},
		{"a missing folder", "nope", "", "nope: no .teammates workspace found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := Open(filepath.Join(base, tt.dir))
			if tt.wantRoot == "" {
				if !errors.Is(err, ErrNoWorkspace) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open = %v, %v; want ErrNoWorkspace with %q", ws, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(base, tt.wantRoot); ws.Root != want {
				t.Errorf("root %s, want %s", ws.Root, want)
			}
		})
	}
}

// TestRelPath: a path given by a user, relative to the root, to the
// working folder or absolute, comes back relative to the root; one that
// leads out of the workspace is refused.
func TestRelPath(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	root := ws.Root
	project := filepath.Dir(root)
	soul := filepath.Join(root, "beacon", "SOUL.md")
	tests := []struct {
		name    string
		p, wd   string
		want    string
		wantErr string
	}{
		{name: "relative to the root", p: "beacon/SOUL.md", wd: project, want: "beacon/SOUL.md"},
		{name: "relative to the working folder", p: "SOUL.md", wd: filepath.Join(root, "beacon"), want: "beacon/SOUL.md"},
		{name: "through the workspace folder", p: filepath.Join(DirName, "beacon", "SOUL.md"), wd: project, want: "beacon/SOUL.md"},
		{name: "no working folder", p: "beacon/SOUL.md", want: "beacon/SOUL.md"},
		{name: "a file not there yet", p: "./beacon/memory/missing.md", wd: project, want: "beacon/memory/missing.md"},
		{name: "absolute inside", p: soul, wd: project, want: "beacon/SOUL.md"},
		{name: "absolute outside", p: filepath.Join(project, "x.md"), wd: project, wantErr: "is outside the workspace"},
		{name: "leaves the root", p: "../x.md", wd: project, wantErr: "leaves the workspace"},
		{name: "empty", p: " ", wd: project, wantErr: "the path is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ws.RelPath(tt.p, tt.wd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("RelPath(%q) = %q, %v; want an error saying %q", tt.p, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("RelPath(%q) = %q, %v; want %q", tt.p, got, err, tt.want)
			}
		})
	}
}

// TestTeammatesSkipFoldersWithNoTeammateName: a folder holding a SOUL.md
// whose name no teammate can have (a SOUL.md template override in
// templates/, a folder made by hand) is no teammate, so listing, checking
// and the roster work, and doctor names the hand-made ones.
func TestTeammatesSkipFoldersWithNoTeammateName(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	for _, name := range []string{"templates", "Upper", "-rf", "sp ace"} {
		writeSoul(t, ws.Root, name, "role: x\n")
	}
	mates, err := ws.Teammates()
	if err != nil || len(mates) != 1 || mates[0].Name != "beacon" {
		t.Fatalf("Teammates = %v, %v; want beacon alone", mates, err)
	}
	if _, err := ws.List("", ""); err != nil {
		t.Errorf("List: %v", err)
	}
	findings, err := ws.Check()
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	var named []string
	for _, f := range findings {
		if strings.Contains(f.Message, "not a teammate name") {
			named = append(named, f.String())
		}
	}
	want := []string{
		`-rf/SOUL.md: error: "-rf" is not a teammate name (lowercase letters, digits, '-' and '_', starting with a letter or digit): tmem skips this folder; rename it`,
		`Upper/SOUL.md: error: "Upper" is not a teammate name (lowercase letters, digits, '-' and '_', starting with a letter or digit): tmem skips this folder; rename it`,
		`sp ace/SOUL.md: error: "sp ace" is not a teammate name (lowercase letters, digits, '-' and '_', starting with a letter or digit): tmem skips this folder; rename it`,
	}
	if strings.Join(named, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(named, "\n"), strings.Join(want, "\n"))
	}
}

// TestListNamesOnOneLine: a name written on several lines, or with tabs,
// is listed on one line, as `tmem list` prints one line per file.
func TestListNamesOnOneLine(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	src := "---\nname: \"Pin images\\n---\\n\\tto digests\"\ndescription: d\ntype: user\n---\nBody.\n"
	if err := ws.WriteFile("beacon/memory/user_pin.md", []byte(src)); err != nil {
		t.Fatal(err)
	}
	items, err := ws.List("beacon", KindTyped)
	if err != nil || len(items) != 1 {
		t.Fatalf("List = %v, %v", items, err)
	}
	if want := "Pin images --- to digests"; items[0].Name != want {
		t.Errorf("name %q, want %q", items[0].Name, want)
	}
}

// TestListReadsBadFrontmatterLeniently: a memory whose frontmatter is not
// valid YAML is listed under the name recall and context read from it,
// with the YAML error said alongside.
func TestListReadsBadFrontmatterLeniently(t *testing.T) {
	tests := []struct {
		name, src          string
		wantName, wantType string
		wantErr            string // "" for none
	}{
		{"valid YAML", "---\nname: \"Ingest: carrier events\"\ndescription: d\ntype: project\n---\nBody.\n",
			"Ingest: carrier events", "project", ""},
		{"unquoted colon in the name", "---\nname: Ingest: carrier events\ndescription: d\ntype: reference\n---\nBody.\n",
			"Ingest: carrier events", "reference", "project_ingest.md:2: bad frontmatter"},
		{"frontmatter never closed", "---\nname: Ingest: carrier events\nBody.\n",
			"", "project", "project_ingest.md:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			if err := ws.WriteFile("beacon/memory/project_ingest.md", []byte(tt.src)); err != nil {
				t.Fatal(err)
			}
			items, err := ws.List("beacon", KindTyped)
			if err != nil || len(items) != 1 {
				t.Fatalf("List = %v, %v", items, err)
			}
			it := items[0]
			if it.Name != tt.wantName || it.Type != tt.wantType {
				t.Errorf("name %q, type %q; want %q, %q", it.Name, it.Type, tt.wantName, tt.wantType)
			}
			if tt.wantErr == "" && it.Error != "" || !strings.Contains(it.Error, tt.wantErr) {
				t.Errorf("error %q, want one holding %q", it.Error, tt.wantErr)
			}
		})
	}
}
