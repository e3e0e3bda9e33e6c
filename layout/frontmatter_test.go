package layout

import (
	"reflect"
	"testing"
)

func TestSetRewritesOnlyTheField(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		key   string
		value interface{}
		want  string
	}{
		{
			name:  "comments, quoting and unknown fields stay",
			src:   "---\n# keep this memory: it is reviewed\nname: 'No mocks'   # the title\ndescription: \"Use real services\"\nowner: ana\nreviewed: 2026-03-01\ntags: [testing, db]\ntype: feedback\n---\n\nBody.\n",
			key:   "type",
			value: "project",
			want:  "---\n# keep this memory: it is reviewed\nname: 'No mocks'   # the title\ndescription: \"Use real services\"\nowner: ana\nreviewed: 2026-03-01\ntags: [testing, db]\ntype: project\n---\n\nBody.\n",
		},
		{
			name:  "a changed field keeps its line comment",
			src:   "---\nname: x # the title\ntype: user\n---\n",
			key:   "name",
			value: "z",
			want:  "---\nname: z # the title\ntype: user\n---\n",
		},
		{
			name:  "a block list is replaced whole, the comment before the next key stays",
			src:   "---\nsources:\n- a.md\n- b.md\n\n# who wrote it\nowner: ana\n---\n",
			key:   "sources",
			value: []string{"a.md", "c.md"},
			want:  "---\nsources:\n- a.md\n- c.md\n\n# who wrote it\nowner: ana\n---\n",
		},
		{
			name:  "a block scalar is replaced whole",
			src:   "---\ndescription: |\n  # not a comment\n  second line\nname: x\n---\n",
			key:   "description",
			value: "short",
			want:  "---\ndescription: short\nname: x\n---\n",
		},
		{
			name:  "a new field goes at the end",
			src:   "---\nname: x\n---\nbody\n",
			key:   "status",
			value: "active",
			want:  "---\nname: x\nstatus: active\n---\nbody\n",
		},
		{
			name:  "a file without frontmatter gets a block",
			src:   "# Title\n",
			key:   "name",
			value: "a: b",
			want:  "---\nname: 'a: b'\n---\n# Title\n",
		},
		{
			name:  "an empty block",
			src:   "---\n---\nbody\n",
			key:   "type",
			value: "user",
			want:  "---\ntype: user\n---\nbody\n",
		},
		{
			name:  "CRLF stays CRLF",
			src:   "---\r\nname: x\r\ntype: user\r\n---\r\nbody\r\n",
			key:   "name",
			value: "z",
			want:  "---\r\nname: z\r\ntype: user\r\n---\r\nbody\r\n",
		},
		{
			name:  "a value with a line that reads as a delimiter stays on one line",
			src:   "---\nname: x\ntype: user\n---\nbody\n",
			key:   "name",
			value: "a\n---\nb",
			want:  "---\nname: \"a\\n---\\nb\"\ntype: user\n---\nbody\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("x.md", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Set(tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Bytes()); got != tt.want {
				t.Fatalf("Bytes() =\n%q\nwant\n%q", got, tt.want)
			}
			d2, err := Parse("x.md", d.Bytes())
			if err != nil {
				t.Fatalf("rewritten file does not parse: %v", err)
			}
			var got interface{} = d2.Get(tt.key)
			if _, ok := tt.value.([]string); ok {
				got = d2.List(tt.key)
			}
			if !reflect.DeepEqual(got, tt.value) {
				t.Errorf("%s reads back as %#v, want %#v", tt.key, got, tt.value)
			}
		})
	}
}

func TestFrontMatterAccessors(t *testing.T) {
	src := "---\nname: x\nnum: 1.0\nnothing:\none: solo\nlist: [a, b]\nmap: {k: v}\n---\n"
	d, err := Parse("x.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Keys(), []string{"name", "num", "nothing", "one", "list", "map"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Keys() = %v, want %v", got, want)
	}
	for key, want := range map[string]string{"name": "x", "num": "1.0", "nothing": "", "list": "", "map": "", "absent": ""} {
		if got := d.Get(key); got != want {
			t.Errorf("Get(%q) = %q, want %q", key, got, want)
		}
	}
	if got := d.List("list"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("List(list) = %v", got)
	}
	if got := d.List("one"); !reflect.DeepEqual(got, []string{"solo"}) {
		t.Errorf("List(one) = %v", got)
	}
	if got := d.Value("map"); !reflect.DeepEqual(got, map[string]interface{}{"k": "v"}) {
		t.Errorf("Value(map) = %#v", got)
	}
}

func TestFrontMatterThatIsNotAMapping(t *testing.T) {
	for name, src := range map[string]string{
		"a list":           "---\n- a\n- b\n---\n",
		"a scalar":         "---\njust text\n---\n",
		"a non-string key": "---\n[a, b]: x\n---\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("x.md", []byte(src))
			if err == nil {
				t.Fatal("parsed without an error")
			}
			if pe, ok := err.(*ParseError); !ok || pe.Line < 2 {
				t.Errorf("err = %v, want a *ParseError with the line", err)
			}
		})
	}
}
