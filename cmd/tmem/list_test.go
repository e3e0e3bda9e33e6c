package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestListQuotesNames checks that a file name or a memory name holding a
// line break or a terminal escape cannot forge or hide a row of `tmem
// list`: every row is one line, and such text comes back quoted.
func TestListQuotesNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold a line break")
	}
	root := t.TempDir()
	if code, _, stderr := runTmem(t, "--dir", root, "init", "--teammate", "beacon"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	mem := filepath.Join(root, ".teammates", "beacon", "memory")
	files := map[string]string{
		"feedback_a\nb.md":  "---\nname: plain\ntype: feedback\n---\nbody\n",
		"feedback_esc.md":   "---\nname: \"x\\e[2Jy\"\ntype: feedback\n---\nbody\n",
		"feedback_plain.md": "---\nname: plain name\ntype: feedback\n---\nbody\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(mem, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runTmem(t, "--dir", root, "list", "--kind", "typed")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(files) {
		t.Fatalf("list printed %d lines for %d files:\n%s", len(lines), len(files), stdout)
	}
	for _, want := range []string{`"beacon/memory/feedback_a\nb.md"`, `"x\x1b[2Jy"`, "plain name"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list output lacks %s:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "\x1b") {
		t.Errorf("list output holds a raw control character:\n%q", stdout)
	}
}
