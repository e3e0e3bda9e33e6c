package layout

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestAppendDailyKeepsTheFileAsWritten(t *testing.T) {
	day := time.Date(2026, 3, 18, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		old   string
		text  string
		added string // what the append must add after old
	}{
		{"LF", "# 2026-03-18\n\n## a\n\ntext\n", "new text", "\n## H\n\nnew text\n"},
		{"CRLF", "# 2026-03-18\r\n\r\n## a\r\n\r\ntext\r\n", "new\ntwo lines", "\r\n## H\r\n\r\nnew\r\ntwo lines\r\n"},
		{"CRLF without a final newline", "# 2026-03-18\r\n\r\n## a\r\n\r\ntext", "new", "\r\n\r\n## H\r\n\r\nnew\r\n"},
		{"hard break on the last line", "# 2026-03-18\n\n## a\n\nline one  \nline two  ", "new", "\n\n## H\n\nnew\n"},
		{"blank lines at the end", "# 2026-03-18\n\n## a\n\ntext\n\n\n", "new", "## H\n\nnew\n"},
		{"open backtick fence", "# 2026-03-18\n\n## e\n\n```\nopen fence\n", "new text", "```\n\n## H\n\nnew text\n"},
		{"open tilde fence without a final newline", "# 2026-03-18\n\n## e\n\n~~~~go\nx := 1", "new", "\n~~~~\n\n## H\n\nnew\n"},
		{"open fence in a CRLF file", "# 2026-03-18\r\n\r\n## e\r\n\r\n```\r\nopen\r\n", "new", "```\r\n\r\n## H\r\n\r\nnew\r\n"},
		{"closed fence", "# 2026-03-18\n\n## e\n\n```\ncode\n```\n", "new", "\n## H\n\nnew\n"},
		{"open HTML comment", "# 2026-03-18\n\n## e\n\n<!-- a note\nstill the note\n", "new", "-->\n\n## H\n\nnew\n"},
		{"open pre block", "# 2026-03-18\n\n## e\n\n<pre>\nlog\n", "new", "</pre>\n\n## H\n\nnew\n"},
		{"open processing instruction", "# 2026-03-18\n\n## e\n\n<?php\necho 1;\n", "new", "?>\n\n## H\n\nnew\n"},
		{"open CDATA", "# 2026-03-18\n\n## e\n\n<![CDATA[\nx\n", "new", "]]>\n\n## H\n\nnew\n"},
		{"open declaration", "# 2026-03-18\n\n## e\n\n<!DOCTYPE html\n", "new", ">\n\n## H\n\nnew\n"},
		{"div block, ended by the blank line", "# 2026-03-18\n\n## e\n\n<div>\ntext\n", "new", "\n## H\n\nnew\n"},
		{"closed HTML comment", "# 2026-03-18\n\n## e\n\n<!-- a\nb -->\n", "new", "\n## H\n\nnew\n"},
		{"open fence inside a list item", "# 2026-03-18\n\n## e\n\n- step\n  ```\n  code\n", "new", "\n## H\n\nnew\n"},
		{"open fence inside a quote", "# 2026-03-18\n\n## e\n\n> ```\n> code\n", "new", "\n## H\n\nnew\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			rel := DailyPath("beacon", day)
			appendKeeps(t, ws, rel, tt.old, tt.added, func() error {
				_, err := ws.AppendDaily(context.Background(), "beacon", day, "H", tt.text)
				return err
			})
			d := readDoc(t, ws, rel)
			last := d.Entries[len(d.Entries)-1]
			if len(d.Entries) != 2 || last.Heading != "H" || strings.Contains(d.Entries[0].Text, "## H") {
				t.Errorf("want the old entry and H, got %d entries, last %q: %q", len(d.Entries), last.Heading, d.Entries[0].Text)
			}
		})
	}
}

func TestWriteMemoryAppendKeepsTheFileAsWritten(t *testing.T) {
	tests := []struct {
		name  string
		old   string
		added string
	}{
		{"LF", "---\nname: Billing\ndescription: d\ntype: project\n---\n\nFirst.\n", "\nSecond.\n"},
		{"CRLF with a hard break and no final newline", "---\r\nname: Billing\r\ndescription: d\r\ntype: project\r\n---\r\n\r\nFirst line  \r\nsecond", "\r\n\r\nSecond.\r\n"},
		{"open fence", "---\nname: Billing\ndescription: d\ntype: project\n---\n\n```\ncode\n", "```\n\nSecond.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			m := Memory{Type: "project", Topic: "billing", Name: "Billing", Body: "Second."}
			appendKeeps(t, ws, "beacon/memory/project_billing.md", tt.old, tt.added, func() error {
				_, err := ws.WriteMemory(context.Background(), "beacon", m, ModeAppend)
				return err
			})
		})
	}
}

// appendKeeps writes old to rel, runs write and checks that rel then holds
// old followed by added.
func appendKeeps(t *testing.T, ws *Workspace, rel, old, added string, write func() error) {
	t.Helper()
	if err := ws.WriteFile(rel, []byte(old)); err != nil {
		t.Fatal(err)
	}
	if err := write(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ws.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	if want := old + added; string(got) != want {
		t.Fatalf("file is\n%q\nwant\n%q", got, want)
	}
}

// TestWriteMemoryOverwriteKeepsCRLF: a memory saved with CRLF line endings
// keeps them on every line when overwritten, the new body's too.
func TestWriteMemoryOverwriteKeepsCRLF(t *testing.T) {
	ws := newWorkspace(t, "beacon")
	rel := "beacon/memory/project_billing.md"
	old := "---\r\nname: Billing\r\ndescription: d\r\ntype: project\r\nowner: ops\r\n---\r\n\r\nFirst.\r\n"
	if err := ws.WriteFile(rel, []byte(old)); err != nil {
		t.Fatal(err)
	}
	m := Memory{Type: "project", Topic: "billing", Name: "Billing v2", Body: "Second.\nThird."}
	if _, err := ws.WriteMemory(context.Background(), "beacon", m, ModeOverwrite); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ws.Abs(rel))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\r\nname: Billing v2\r\ndescription: d\r\ntype: project\r\nowner: ops\r\n---\r\n\r\nSecond.\r\nThird.\r\n"
	if string(got) != want {
		t.Errorf("file is\n%q\nwant\n%q", got, want)
	}
}

// TestAppendDailyRefusesHeadingWithoutText: a heading that reads as a
// closing run of "#" would not start an entry; the text would join the
// entry before it.
func TestAppendDailyRefusesHeadingWithoutText(t *testing.T) {
	day := time.Date(2026, 3, 18, 9, 0, 0, 0, time.UTC)
	for _, h := range []string{"", "  ", "#", "###", " ###### "} {
		t.Run(fmt.Sprintf("%q", h), func(t *testing.T) {
			ws := newWorkspace(t, "beacon")
			if _, err := ws.AppendDaily(context.Background(), "beacon", day, h, "text"); err == nil {
				t.Errorf("heading %q accepted", h)
			}
		})
	}
}
