package layout

import (
	"errors"
	"strings"
	"testing"
)

func TestParseLenient(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		wantErr     string            // err holds it
		wantProblem string            // problem holds it; "" means a strict parse
		wantMeta    map[string]string // Get(key) for each key
		wantTitle   string
		wantLine    int // TitleLine
		wantEntry   string
		wantStart   int // first entry's Start
	}{
		{
			name:      "valid YAML parses strictly",
			src:       "---\nrole: Search engineer\n---\n# Beacon\n\n## Principles\n\nMeasure.\n",
			wantMeta:  map[string]string{"role": "Search engineer"},
			wantTitle: "Beacon", wantLine: 4, wantEntry: "Principles", wantStart: 6,
		},
		{
			name:        "unquoted colon in a value",
			src:         "---\nname: Quill\nrole: Frontend: UI lead\n---\n# Quill\n\n## Principles\n\nShip small.\n",
			wantProblem: "x.md:3: bad frontmatter",
			wantMeta:    map[string]string{"name": "Quill", "role": "Frontend: UI lead"},
			wantTitle:   "Quill", wantLine: 5, wantEntry: "Principles", wantStart: 7,
		},
		{
			name:        "quotes, comments, list items and blank lines",
			src:         "\n---\n# a comment\ndescription: \"Use: real services\"\nsources:\n  - a.md: b\ntype: 'feedback'\nbroken: [x\n---\nBody.\n",
			wantProblem: "bad frontmatter",
			wantMeta:    map[string]string{"description": "Use: real services", "type": "feedback", "sources": "", "broken": "[x"},
			wantEntry:   "", wantStart: 10,
		},
		{
			name:    "unclosed frontmatter still fails",
			src:     "---\nrole: a: b\n# Title\n",
			wantErr: "no closing '---'",
		},
		{
			name:    "invalid UTF-8 still fails",
			src:     "---\nrole: a: b\n---\n# T\n\xff\n",
			wantErr: "x.md:5: invalid UTF-8",
		},
		{
			name:    "NUL bytes still fail",
			src:     "---\nrole: a: b\n---\n\x00",
			wantErr: "binary file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, problem, err := ParseLenient("x.md", []byte(tt.src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || d != nil {
					t.Fatalf("doc %v, err %v: want an error with %q", d, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantProblem == "" && problem != nil:
				t.Errorf("problem %v for valid frontmatter", problem)
			case tt.wantProblem != "" && (problem == nil || !strings.Contains(problem.Error(), tt.wantProblem)):
				t.Errorf("problem %v, want %q", problem, tt.wantProblem)
			}
			var pe *ParseError
			if problem != nil && !errors.As(problem, &pe) {
				t.Errorf("problem %T is not a *ParseError", problem)
			}
			for k, v := range tt.wantMeta {
				if got := d.Get(k); got != v {
					t.Errorf("Get(%q) = %q, want %q", k, got, v)
				}
			}
			if d.Title != tt.wantTitle || d.TitleLine != tt.wantLine {
				t.Errorf("title %q at %d, want %q at %d", d.Title, d.TitleLine, tt.wantTitle, tt.wantLine)
			}
			if len(d.Entries) == 0 || d.Entries[0].Heading != tt.wantEntry || d.Entries[0].Start != tt.wantStart {
				t.Errorf("entries %+v, want %q at line %d first", d.Entries, tt.wantEntry, tt.wantStart)
			}
			if string(d.Bytes()) != tt.src {
				t.Errorf("Bytes() = %q, want the file as it was", d.Bytes())
			}
		})
	}
}
