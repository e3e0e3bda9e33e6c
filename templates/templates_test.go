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

// TestRenderBoundsRepeatedPlaceholders renders an override that repeats a
// placeholder 300,000 times (3.3 MB, under the override limit) with a 1
// KiB value: filled in, it would be 300 MB. Render refuses it, naming the
// template and placeholder; the same value in a template that says it
// once renders.
func TestRenderBoundsRepeatedPlaceholders(t *testing.T) {
	value := strings.Repeat("x", 1<<10)
	for _, c := range []struct {
		repeat int
		ok     bool
	}{{1, true}, {300000, false}} {
		tmpl := []byte(strings.Repeat("{{sources}}", c.repeat))
		ov := func(string) ([]byte, error) { return tmpl, nil }
		b, err := Render(ov, "compact-weekly.md", map[string]string{"sources": value})
		if c.ok && (err != nil || string(b) != value) {
			t.Errorf("once: %d bytes, %v; want the value", len(b), err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "template compact-weekly.md: {{sources}} appears 300000 times")) {
			t.Errorf("%d times: %d bytes, error %v; want it refused", c.repeat, len(b), err)
		}
	}
}
