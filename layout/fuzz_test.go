package layout

import (
	"reflect"
	"testing"
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
