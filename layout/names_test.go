package layout

import (
	"os"
	"testing"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"beacon", true}, {"team-lead_2", true},
		{"", false}, {"../x", false}, {"a/b", false}, {`a\b`, false}, {"/abs", false},
		{".hidden", false}, {"Beacon", false}, {"a\x00b", false}, {"con", false},
		{"memory", false}, {"-dash", false}, {"naïve", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := ValidateName(tt.name); (err == nil) != tt.ok {
				t.Errorf("ValidateName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	tests := []struct {
		topic, want string
	}{
		{"Deploy pipeline", "deploy_pipeline"},
		{"no-mocks", "no_mocks"},
		{"  Spaces   and--dashes ", "spaces_and_dashes"},
		{"Café Menü", "café_menü"},
		{"Cafe\u0301 Menu\u0308", "café_menü"}, // decomposed, as macOS may type it: the same file
		{"X\u0332 y", "x\u0332_y"},             // a mark with no composed form stays on its letter
		{"\u0301x", ""},                        // a mark on no letter
		{"v2.1 release", "v2_1_release"},
		{"a/b", ""}, {"../../etc", ""}, {"", ""}, {"---", ""}, {"nul", ""}, {"x\x00", ""}, {"what?", ""},
	}
	for _, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			got, err := Slug(tt.topic)
			if tt.want == "" {
				if err == nil {
					t.Errorf("Slug(%q) = %q, want an error", tt.topic, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Slug(%q) = %q, %v; want %q", tt.topic, got, err, tt.want)
			}
		})
	}
}

// TestInitRefusesRolesThatAreNoLine: a role goes into SOUL.md's
// frontmatter, its title and the roster, so one that is not a line of
// valid UTF-8 is refused and nothing is written.
func TestInitRefusesRolesThatAreNoLine(t *testing.T) {
	tests := []struct {
		name, role string
	}{
		{"a newline", "Search\n# Injected"},
		{"a carriage return", "Search\rengineer"},
		{"a bell", "Search\a"},
		{"invalid UTF-8", "Search\xffengineer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Init(dir, []TeammateSpec{{Name: "beacon", Role: tt.role}}); err == nil {
				t.Fatalf("Init with role %q succeeded", tt.role)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("Init wrote %v", ents)
			}
		})
	}
	if _, err := Init(t.TempDir(), []TeammateSpec{{Name: "beacon", Role: "Search — Café lead"}}); err != nil {
		t.Errorf("a plain role was refused: %v", err)
	}
}
