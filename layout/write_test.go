package layout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newWorkspace(t *testing.T, mates ...string) *Workspace {
	t.Helper()
	var specs []TeammateSpec
	for _, m := range mates {
		specs = append(specs, TeammateSpec{Name: m})
	}
	res, err := Init(t.TempDir(), specs)
	if err != nil {
		t.Fatal(err)
	}
	return &Workspace{Root: res.Root}
}

func TestResolveRefusesPathsOutsideTheWorkspace(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(ws.Root, "beacon", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "f.md"), filepath.Join(ws.Root, "beacon", "link.md")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel  string
		want string
	}{
		{"../x.md", "leaves the workspace"},
		{"/etc/passwd", "leaves the workspace"},
		{"beacon/../../x.md", "leaves the workspace"},
		{"beacon/escape/f.md", "leads outside the workspace through a symlink"},
		{"beacon/escape/new/dir/f.md", "leads outside the workspace through a symlink"},
		{"beacon/link.md", "is a symlink"},
		{"a\x00b", "not a valid workspace path"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			err := ws.WriteFile(tt.rel, []byte("x"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("WriteFile(%q) = %v, want an error containing %q", tt.rel, err, tt.want)
			}
		})
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("something was written outside the workspace: %v", ents)
	}
	if err := ws.WriteFile("beacon/memory/deep/ok.md", []byte("x")); err != nil {
		t.Errorf("a local path was refused: %v", err)
	}
}

// TestRenameStaysInside: a file is renamed within the workspace, never
// into or out of a folder that a link leads outside.
func TestRenameStaysInside(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "there.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Root, "beacon", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile("beacon/a.md", nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, from, to string }{
		{"into a folder outside", "beacon/a.md", "beacon/escape/a.md"},
		{"out of a folder outside", "beacon/escape/there.md", "beacon/there.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := ws.Rename(tt.from, tt.to); !errors.Is(err, ErrOutside) {
				t.Fatalf("Rename(%q, %q) = %v, want ErrOutside", tt.from, tt.to, err)
			}
		})
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 || ents[0].Name() != "there.md" {
		t.Errorf("the folder outside changed: %v", ents)
	}
	if err := ws.Rename("beacon/a.md", "beacon/memory/b.md"); err != nil {
		t.Errorf("a rename inside was refused: %v", err)
	}
}

func TestWriteMemoryModes(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	ctx := context.Background()
	m := Memory{Type: "project", Topic: "Billing rewrite", Name: "Billing", Description: "moves to events", Body: "First."}
	rel, err := ws.WriteMemory(ctx, "beacon", m, ModeCreate)
	if err != nil || rel != "beacon/memory/project_billing_rewrite.md" {
		t.Fatalf("create: %q, %v", rel, err)
	}
	if _, err := ws.WriteMemory(ctx, "beacon", m, ModeCreate); !errors.Is(err, ErrExists) {
		t.Fatalf("second create: %v, want ErrExists", err)
	}
	m.Body = "Second."
	if _, err := ws.WriteMemory(ctx, "beacon", m, ModeAppend); err != nil {
		t.Fatal(err)
	}
	d := readDoc(t, ws, rel)
	if !strings.Contains(string(d.Body), "First.\n\nSecond.\n") || d.Get("type") != "project" {
		t.Errorf("append: %q", d.Bytes())
	}
	m.Body, m.Name = "Only.", "Billing v2"
	if _, err := ws.WriteMemory(ctx, "beacon", m, ModeOverwrite); err != nil {
		t.Fatal(err)
	}
	d = readDoc(t, ws, rel)
	if strings.TrimSpace(string(d.Body)) != "Only." || d.Get("name") != "Billing v2" {
		t.Errorf("overwrite: %q", d.Bytes())
	}
}

// TestWriteMemoryOverwriteKeepsBodyLead: an overwrite replaces the body
// and keeps what separates it from the frontmatter as the person wrote it,
// so the diff shows the body's lines and nothing else.
func TestWriteMemoryOverwriteKeepsBodyLead(t *testing.T) {
	const fm = "---\nname: Billing\ndescription: d\ntype: project\n---\n"
	tests := []struct {
		name, old, want string
	}{
		{"no blank line", fm + "# Billing\n\nOld.\n", fm + "New.\n"},
		{"one blank line", fm + "\nOld.\n", fm + "\nNew.\n"},
		{"two blank lines", fm + "\n\nOld.\n", fm + "\n\nNew.\n"},
		{"CRLF, no blank line", strings.ReplaceAll(fm+"Old.\n", "\n", "\r\n"), strings.ReplaceAll(fm+"New.\n", "\n", "\r\n")},
		{"empty body", fm, fm + "\nNew.\n"},
		{"no frontmatter", "Old.\n", "---\nname: Billing\ntype: project\ndescription: d\n---\n\nNew.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			rel := "beacon/memory/project_billing.md"
			if err := os.WriteFile(ws.Abs(rel), []byte(tt.old), 0o644); err != nil {
				t.Fatal(err)
			}
			m := Memory{Type: "project", Topic: "billing", Name: "Billing", Description: "d", Body: "New."}
			if _, err := ws.WriteMemory(context.Background(), "beacon", m, ModeOverwrite); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(ws.Abs(rel))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("overwrite of %q gave\n%q, want\n%q", tt.old, got, tt.want)
			}
		})
	}
}

func readDoc(t *testing.T, ws *Workspace, rel string) *Doc {
	t.Helper()
	src, err := os.ReadFile(ws.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(rel, src)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestModeValid(t *testing.T) {
	tests := []struct {
		name string
		mode Mode
		want bool
	}{
		{"create", ModeCreate, true},
		{"append", ModeAppend, true},
		{"overwrite", ModeOverwrite, true},
		{"empty", "", false},
		{"unknown", "replace", false},
		{"case matters", "Create", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.mode.Valid(); got != tt.want {
				t.Errorf("Mode(%q).Valid() = %v, want %v", tt.mode, got, tt.want)
			}
		})
	}
}

func TestSplitEntry(t *testing.T) {
	tests := []struct {
		name          string
		heading, text string
		wantH, wantT  string
		wantErr       string
	}{
		{name: "heading given", heading: "Deploy", text: "# not this\nbody", wantH: "Deploy", wantT: "# not this\nbody"},
		{name: "first line is the heading", text: "\n## Fixed the flaky test\nRoot cause: mtime.\n", wantH: "Fixed the flaky test", wantT: "Root cause: mtime."},
		{name: "bullet as heading", text: "- shipped v2", wantH: "shipped v2", wantT: ""},
		{name: "blank heading falls back to the text", heading: "  ", text: "Standup\nnotes", wantH: "Standup", wantT: "notes"},
		{name: "nothing at all", text: " \n ", wantErr: "nothing to log: give --heading or some text"},
		{name: "first line without words", text: "##\nbody", wantErr: `nothing to log as a heading: without --heading the text's first line is the heading, and "##" has no words; give --heading or start the text with a line of words`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, text, err := SplitEntry(tt.heading, tt.text, "--heading")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || h != tt.wantH || text != tt.wantT {
				t.Errorf("SplitEntry = %q, %q, %v; want %q, %q", h, text, err, tt.wantH, tt.wantT)
			}
		})
	}
}

func TestAppendDailyKeepsEntriesWhole(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	now := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	texts := []string{"plain", "# Title inside\ntext", "Setext\n======\nbody", "```\n## fenced\n```"}
	for i, txt := range texts {
		if _, err := ws.AppendDaily(context.Background(), "beacon", now, fmt.Sprintf("entry %d", i), txt); err != nil {
			t.Fatal(err)
		}
	}
	d := readDoc(t, ws, DailyPath("beacon", now))
	if d.Title != "2026-03-14" || len(d.Entries) != len(texts) {
		t.Fatalf("title %q, %d entries: %s", d.Title, len(d.Entries), d.Bytes())
	}
	for i, e := range d.Entries {
		if e.Heading != fmt.Sprintf("entry %d", i) {
			t.Errorf("entry %d heading %q", i, e.Heading)
		}
	}
	if !strings.Contains(d.Entries[3].Text, "## fenced") {
		t.Errorf("fenced heading was changed: %q", d.Entries[3].Text)
	}
}

func TestFilesClassifiesEveryKind(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	for rel, body := range map[string]string{
		"beacon/memory/2026-03-14.md":            "# 2026-03-14\n",
		"beacon/memory/2026-02-30.md":            "# bad\n",
		"beacon/memory/0000-01-01.md":            "# year 0\n",
		"beacon/memory/weekly/0000-W01.md":       "x",
		"beacon/memory/monthly/0000-01.md":       "x",
		"beacon/memory/feedback_no_mocks.md":     "---\ntype: feedback\n---\n",
		"beacon/memory/notes.md":                 "x",
		"beacon/memory/weekly/2026-W11.md":       "x",
		"beacon/memory/weekly/2025-W53.md":       "x",
		"beacon/memory/monthly/2025-10.md":       "x",
		"beacon/memory/.hidden.md":               "x",
		"beacon/memory/image.png":                "x",
		"beacon/memory/weekly/.2026-W11.md.tmp1": "x",
	} {
		if err := ws.WriteFile(rel, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := ws.Files("beacon")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		s := fmt.Sprintf("%s %s", f.Path, f.Kind)
		if !f.Date.IsZero() {
			s += " " + f.Date.Format(DateLayout)
		}
		if f.Type != "" {
			s += " type=" + f.Type
		}
		if f.NameErr != "" {
			s += " ERR"
		}
		got = append(got, s)
	}
	want := []string{
		"beacon/GOALS.md goals",
		"beacon/SOUL.md soul",
		"beacon/WISDOM.md wisdom",
		"beacon/memory/0000-01-01.md daily ERR",
		"beacon/memory/2026-02-30.md daily ERR",
		"beacon/memory/2026-03-14.md daily 2026-03-14",
		"beacon/memory/feedback_no_mocks.md typed type=feedback",
		"beacon/memory/monthly/0000-01.md monthly ERR",
		"beacon/memory/monthly/2025-10.md monthly 2025-10-01",
		"beacon/memory/notes.md typed ERR",
		"beacon/memory/weekly/0000-W01.md weekly ERR",
		"beacon/memory/weekly/2025-W53.md weekly ERR",
		"beacon/memory/weekly/2026-W11.md weekly 2026-03-09",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRoleOf(t *testing.T) {
	tests := []struct{ name, soul, want string }{
		{"frontmatter", "---\nrole: Search engineer\n---\n# Beacon — Other\n", "Search engineer"},
		{"em dash heading", "# Quill — Frontend engineer\n", "Frontend engineer"},
		{"colon heading", "# Atlas: Team lead\n", "Team lead"},
		{"no role", "# Nova\n", ""},
		{"frontmatter that is not YAML", "---\nname: Quill\nrole: Frontend: UI lead\n---\n# A — B\n", "Frontend: UI lead"},
		{"unclosed frontmatter", "---\nrole: x\n# A — B\n", ""},
		{"frontmatter without a role", "---\nname: Nova\n---\n# Nova — Designer\n", "Designer"},
		{"empty role in broken frontmatter", "---\nrole:\nname: a: b\n---\n# A — B\n", "B"},
		{"a role on several lines", "---\nrole: |\n  Search\n  # Task\n---\n# A\n", "Search # Task"},
		{"a quoted role with line breaks", "---\nrole: \"Search\\r\\n\\tengineer\"\n---\n# A\n", "Search engineer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RoleOf([]byte(tt.soul)); got != tt.want {
				t.Errorf("RoleOf = %q, want %q", got, tt.want)
			}
		})
	}
}

// The crash test re-runs this test binary as a writer that rewrites one
// file in a loop with two alternating contents, kills it with SIGKILL at a
// random moment, and checks the file holds one content or the other, whole.
const crashChildEnv = "LAYOUT_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	if arg := os.Getenv(appenderEnv); arg != "" {
		appenderChild(arg)
		return
	}
	os.Exit(m.Run())
}

func crashContents() [2][]byte {
	a := bytes.Repeat([]byte("old content line\n"), 64<<10)
	b := bytes.Repeat([]byte("NEW CONTENT, LONGER LINE\n"), 80<<10)
	return [2][]byte{a, b}
}

func crashChild(root string) {
	ws := &Workspace{Root: root}
	c := crashContents()
	for i := 0; ; i++ {
		if err := ws.WriteFile("beacon/memory/2026-03-14.md", c[i%2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func TestAtomicWriteSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns writer processes; skipped under -short")
	}
	ws := newWorkspace(t, "beacon")
	c := crashContents()
	rel := "beacon/memory/2026-03-14.md"
	if err := ws.WriteFile(rel, c[0]); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 25; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+ws.Root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+rng.Intn(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		got, err := os.ReadFile(ws.Abs(rel))
		if err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		if !bytes.Equal(got, c[0]) && !bytes.Equal(got, c[1]) {
			t.Fatalf("kill %d: file is neither the old nor the new content (%d bytes)", i, len(got))
		}
	}
}
