package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPrefersWorkspaceOverride(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, Protocol), []byte("our protocol"), 0o644); err != nil {
		t.Fatal(err)
	}
	fromDir := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	tests := []struct {
		name, tmpl, want string
		ov               Overrides
	}{
		{"override wins", Protocol, "our protocol", fromDir},
		{"built-in when not overridden", Instructions, "### Typed memories", fromDir},
		{"built-in without overrides", Protocol, "HANDOFF", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Read(tt.ov, tt.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.want) {
				t.Errorf("Read(%q) = %q, want it to contain %q", tt.tmpl, b, tt.want)
			}
		})
	}
}

func TestReadRefusesUnknownAndPathNames(t *testing.T) {
	for _, name := range []string{"nope.md", "../SOUL.md", ".hidden", "files/SOUL.md"} {
		t.Run(name, func(t *testing.T) {
			if _, err := Read(nil, name); err == nil {
				t.Errorf("Read(%q) succeeded", name)
			}
		})
	}
}

func TestRenderReplacesPlaceholders(t *testing.T) {
	b, err := Render(nil, Soul, map[string]string{"name": "beacon", "title": "Beacon — Search", "role_yaml": `"Search"`})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "# Beacon — Search\n") || !strings.Contains(s, `role: "Search"`) || strings.Contains(s, "{{") {
		t.Errorf("Render left placeholders or missed values:\n%s", s)
	}
}

func TestEveryBuiltInIsNonEmpty(t *testing.T) {
	names := Names()
	if len(names) < 6 {
		t.Fatalf("only %d templates: %v", len(names), names)
	}
	for _, n := range names {
		b, err := Read(nil, n)
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			t.Errorf("template %s: %v (%d bytes)", n, err, len(b))
		}
	}
}
