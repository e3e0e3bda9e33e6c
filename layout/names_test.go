package layout

import "testing"

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
