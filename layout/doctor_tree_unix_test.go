//go:build unix

package layout

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckTree: doctor reports, without opening them, entries that are not
// regular files, links that lead outside or nowhere, leftover temp files
// and byte order marks.
func TestCheckTree(t *testing.T) {
	root := filepath.Join(t.TempDir(), DirName)
	outside := filepath.Join(t.TempDir(), "outside.md")
	files := map[string]string{
		"beacon/SOUL.md":                          "# Beacon\n",
		"beacon/memory/2026-11-19.md":             "# 2026-11-19\n\n## Ok\n\nfine\n",
		"beacon/memory/.2026-11-19.md.tmp-381204": "half a write",
		"beacon/.WISDOM.md.tmp-3501a1bb2656":      "half a write, named as writes name them now",
		"beacon/memory/user_bom.md":               "\xef\xbb\xbf---\nname: n\ndescription: d\ntype: user\n---\nBody.\n",
		"beacon/memory/user_real.md":              "---\nname: n\ndescription: d\ntype: user\n---\nBody.\n",
		"beacon/.index/.manifest.bin.tmp-1":       "index scratch is not reported",
	}
	for rel, body := range files {
		write(t, filepath.Join(root, rel), body)
	}
	write(t, outside, "# outside\n")
	links := map[string]string{
		"beacon/memory/user_out.md":    outside,
		"beacon/memory/user_gone.md":   filepath.Join(root, "nothing-here.md"),
		"beacon/memory/user_inside.md": filepath.Join(root, "beacon/memory/user_real.md"),
	}
	for rel, to := range links {
		if err := os.Symlink(to, filepath.Join(root, rel)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	fifo := filepath.Join(root, "beacon/memory/2026-11-20.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	realOutside, err := filepath.EvalSymlinks(outside)
	if err != nil {
		t.Fatal(err)
	}
	w := &Workspace{Root: root}
	findings, err := w.Check()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want string // a whole finding line
	}{
		{"named pipe", "beacon/memory/2026-11-20.md: error: a named pipe (FIFO), not a regular file: tmem never reads it; remove it"},
		{"link outside", "beacon/memory/user_out.md: error: symlink leads outside the workspace (to " + realOutside + "): tmem does not follow it; put the file itself here"},
		{"dangling link", "beacon/memory/user_gone.md: warning: symlink leads nowhere (to " + filepath.Join(root, "nothing-here.md") + "): remove it"},
		{"temp file", "beacon/memory/.2026-11-19.md.tmp-381204: warning: temp file left by an interrupted write: delete it when no tmem command is running"},
		{"temp file with a hex suffix", "beacon/.WISDOM.md.tmp-3501a1bb2656: warning: temp file left by an interrupted write: delete it when no tmem command is running"},
		{"byte order mark", "beacon/memory/user_bom.md:1: warning: file starts with a UTF-8 byte order mark (BOM): tmem reads past it, other tools may not; save it without one"},
	}
	got := map[string]bool{}
	for _, f := range findings {
		got[f.String()] = true
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !got[tt.want] {
				t.Errorf("no finding %q in:\n%s", tt.want, findingLines(findings))
			}
		})
	}
	t.Run("nothing else is reported", func(t *testing.T) {
		for _, f := range findings {
			for _, quiet := range []string{"user_inside.md", ".index", "2026-11-19.md:", "outside.md:"} {
				if strings.HasPrefix(f.Path, quiet) || strings.Contains(f.Path, quiet) {
					t.Errorf("unexpected finding %s", f)
				}
			}
		}
	})
}

// TestCheckConfigNeverOpensAPipe: a tmem.yaml that is a named pipe would
// block whoever opens it.
func TestCheckConfigNeverOpensAPipe(t *testing.T) {
	type schema struct {
		Compact struct{} `yaml:"compact"`
	}
	root := filepath.Join(t.TempDir(), DirName)
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "tmem.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &Workspace{Root: root}
	if got := w.CheckConfig("tmem.yaml", &schema{}); got != nil {
		t.Errorf("findings %v, want none (Check reports the pipe)", got)
	}
	findings, err := w.Check()
	if err != nil || len(findings) != 1 || !strings.HasPrefix(findings[0].String(), "tmem.yaml: error: a named pipe (FIFO)") {
		t.Errorf("Check = %v, %v", findings, err)
	}
}

// TestCheckWarnsAboutNamesThatDoNotPrint: doctor warns about a file or
// folder whose name holds a line break, a terminal escape or bytes that
// are not UTF-8, quoted, and leaves plain names alone.
func TestCheckWarnsAboutNamesThatDoNotPrint(t *testing.T) {
	w := newWorkspace(t, "beacon")
	typed := "---\nname: n\ndescription: d\ntype: user\n---\nBody.\n"
	for _, rel := range []string{"beacon/memory/user_a\nb.md", "beacon/memory/user_\x1b[31mred.md", "beacon/memory/user_\xff.md", "beacon/memory/user_plain é.md"} {
		write(t, filepath.Join(w.Root, rel), typed)
	}
	findings, err := w.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		if strings.Contains(f.Message, "does not print") {
			got = append(got, f.String())
		}
	}
	const tail = ": warning: the name holds a character that does not print (a line break, a terminal escape) or is not UTF-8: tmem shows it quoted, other tools may show it raw; rename it"
	want := []string{
		`"beacon/memory/user_\x1b[31mred.md"` + tail,
		`"beacon/memory/user_a\nb.md"` + tail,
		`"beacon/memory/user_\xff.md"` + tail,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
