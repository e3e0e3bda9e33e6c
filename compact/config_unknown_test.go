package compact

import (
	"strings"
	"testing"
)

// TestLoadConfigKeepsUnknownKeys: LoadConfig reads a file with keys no
// setting has and names each with its line, at any depth, so that the
// commands reading it can say that tmem ignores them.
func TestLoadConfigKeepsUnknownKeys(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"known keys", "compact:\n  keep_weeks: 3\n  openai:\n    model: m\n", nil},
		{"a typo", "compact:\n  keep_recent_days: 7\n  kep_weeks: 3\n", []string{`tmem.yaml:3: warning: unknown key "kep_weeks": tmem ignores it (a typo?)`}},
		{"nested and top level", "compcat:\n  keep_weeks: 3\ncompact:\n  openai:\n    modle: m\n", []string{
			`tmem.yaml:1: warning: unknown key "compcat": tmem ignores it (a typo?)`,
			`tmem.yaml:5: warning: unknown key "modle": tmem ignores it (a typo?)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n-- tmem.yaml --\n"+tt.yaml)
			cfg, err := LoadConfig(ws)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range cfg.UnknownKeys() {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("UnknownKeys:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
