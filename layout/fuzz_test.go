package layout

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark/ast"
)

// FuzzParse checks the parser never panics and that writing a parsed file
// back and parsing it again gives the same document.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"# 2026-03-14\n\n## A\n- x\n\n## B\ntext\n",
		"---\nname: x\ntype: feedback\n---\n\nRule.\n\n**Why:** y\n",
		"---\ntype: weekly\nweek: 2026-W11\nperiod: 2026-03-09 to 2026-03-15\n---\nbody\n",
		"Title\n===\n\n## A\n```\n## B\n```\n",
		"---\na: [1, 2\n---\n",
		"\n\n---\n---\n## x",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Parse("f.md", src)
		if err != nil {
			return
		}
		out := d.Bytes()
		d2, err := Parse("f.md", out)
		if err != nil {
			t.Fatalf("written file does not parse: %v\n%q", err, out)
		}
		if !reflect.DeepEqual(d.Entries, d2.Entries) || d.Title != d2.Title || !reflect.DeepEqual(d.Keys(), d2.Keys()) {
			t.Fatalf("parse→write→parse changed the document:\n%q\n%q", src, out)
		}
	})
}

// FuzzFrontmatter sets fields on a parsed file (which re-renders the YAML)
// and checks the fields and the body survive a round trip.
func FuzzFrontmatter(f *testing.F) {
	f.Add([]byte("---\nname: x\ntags: [a, b]\n---\nbody\n"), "description", "a: b # c")
	f.Add([]byte("# t\n"), "name", "---")
	f.Add([]byte("---\n---\n"), "type", "\"quoted\"\n")
	f.Fuzz(func(t *testing.T, src []byte, key, value string) {
		d, err := Parse("f.md", src)
		if err != nil {
			return
		}
		valid := key != "" && CheckText("k", []byte(key)) == nil && CheckText("v", []byte(value)) == nil
		if err := d.Set(key, value); err != nil {
			if valid {
				t.Fatalf("Set(%q, %q): %v", key, value, err)
			}
			return
		}
		if !valid {
			t.Fatalf("Set(%q, %q) accepted a key or value that is not text", key, value)
		}
		out := d.Bytes()
		d2, err := Parse("f.md", out)
		if err != nil {
			t.Fatalf("after Set(%q, %q) the file does not parse: %v\n%q", key, value, err, out)
		}
		if got := d2.Get(key); got != value {
			t.Fatalf("Set(%q, %q) read back as %q\n%q", key, value, got, out)
		}
		if string(d2.Body) != string(d.Body) {
			t.Fatalf("body changed:\n%q\n%q", d.Body, d2.Body)
		}
	})
}

// appendSeeds are daily logs from the append tests: line endings, hard
// breaks, and code fences and HTML blocks left open at the end.
var appendSeeds = []string{
	"# 2026-03-18\n\n## a\n\ntext\n",
	"# 2026-03-18\r\n\r\n## a\r\n\r\ntext",
	"# 2026-03-18\n\n## a\n\nline one  \nline two  ",
	"# 2026-03-18\n\n## e\n\n```\nopen fence\n",
	"# 2026-03-18\n\n## e\n\n~~~~go\nx := 1",
	"# 2026-03-18\n\n## e\n\n<!-- a note\nstill the note\n",
	"# 2026-03-18\n\n## e\n\n<pre>\nlog\n",
	"# 2026-03-18\n\n## e\n\n<?php\necho 1;\n",
	"# 2026-03-18\n\n## e\n\n<![CDATA[\nx\n",
	"# 2026-03-18\n\n## e\n\n<!DOCTYPE html\n",
	"# 2026-03-18\n\n## e\n\n<div>\ntext\n",
	"# 2026-03-18\n\n## e\n\n- step\n  ```\n  code\n",
	"# 2026-03-18\n\n## e\n\n> ```\n> code\n",
	"",
}

// FuzzOpenBlockCloser checks, with the Markdown parser files are read
// with, that a "##" heading written after text and the closer
// OpenBlockCloser gives for it is read as a top-level heading.
func FuzzOpenBlockCloser(f *testing.F) {
	for _, s := range appendSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if DeeplyNested([]byte(text)) {
			return // read by the line scan, which is closerOf's own
		}
		out := text
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if c := OpenBlockCloser(text); c != "" {
			out += c + "\n"
		}
		out += "\n## Zq\n"
		last := ParseBlocks([]byte(out), false).LastChild()
		if h, ok := last.(*ast.Heading); !ok || h.Level != 2 {
			t.Fatalf("the heading after %q is not read as one:\n%q", text, out)
		}
	})
}

// FuzzAppendEntry checks that appending an entry to a daily log keeps the
// log's bytes and entries and adds one entry, read back as written.
func FuzzAppendEntry(f *testing.F) {
	for i, s := range appendSeeds {
		f.Add([]byte(s), "H", []string{"new text", "new\ntwo lines", "# title\n\ntext", "Title\n===\nx"}[i%4])
	}
	day := time.Date(2026, 3, 18, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, old []byte, heading, text string) {
		d0, err := Parse("f.md", old)
		heading, herr := entryHeading(heading)
		body := strings.TrimSpace(demoteHeadings(text))
		if err != nil || herr != nil || checkText("b", []byte(body)) != nil {
			return
		}
		out := appendEntry(old, day, heading, body)
		if len(bytes.TrimSpace(old)) > 0 && !bytes.HasPrefix(out, old) {
			t.Fatalf("the log's bytes changed:\n%q\n%q", old, out)
		}
		d, err := Parse("f.md", out)
		if err != nil {
			t.Fatalf("the log does not parse after the append: %v\n%q", err, out)
		}
		want, _ := Parse("f.md", appendEntry(nil, day, heading, body))
		checkAppended(t, d0, d, want.Entries[len(want.Entries)-1], out)
	})
}

// checkAppended checks that d is d0 with the entry add after its entries;
// d0's last entry may gain the line that closes a block it left open.
func checkAppended(t *testing.T, d0, d *Doc, add Entry, out []byte) {
	t.Helper()
	if len(d.Entries) != len(d0.Entries)+1 {
		t.Fatalf("%d entries before the append, %d after:\n%q", len(d0.Entries), len(d.Entries), out)
	}
	for i, e := range d0.Entries {
		got := d.Entries[i]
		if got.Heading != e.Heading || got.Text != e.Text && (i+1 < len(d0.Entries) || !strings.HasPrefix(got.Text, e.Text)) {
			t.Fatalf("entry %d changed from %+v to %+v:\n%q", i, e, got, out)
		}
	}
	if got := d.Entries[len(d0.Entries)]; got.Heading != add.Heading || got.Text != add.Text || got.At != add.At {
		t.Fatalf("the appended entry reads %+v, want %+v:\n%q", got, add, out)
	}
}
