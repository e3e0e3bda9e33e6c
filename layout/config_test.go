package layout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckConfig(t *testing.T) {
	type schema struct {
		Compact struct {
			Summarizer string `yaml:"summarizer"`
			KeepWeeks  int    `yaml:"keep_weeks"`
		} `yaml:"compact"`
	}
	tests := []struct {
		name string
		yaml string // "" means no file
		want []string
	}{
		{"no file", "", nil},
		{"valid", "compact:\n  summarizer: extractive\n  keep_weeks: 52\n", nil},
		{"syntax error", "compact:\n  summarizer: extractive\n  command: claude: -p\n", []string{"tmem.yaml:3: error: does not parse: mapping values are not allowed in this context"}},
		{"syntax error on the first line", "compact: keep_weeks: 4\n", []string{"tmem.yaml:1: error: does not parse: mapping values are not allowed in this context"}},
		{"control character", "compact:\n  summarizer: extractive\n  command: \"a\x02b\"\n", []string{"tmem.yaml:3: error: does not parse: control characters are not allowed"}},
		{"unknown keys", "compact:\n  sumarizer: command\n  keep_weeks: 4\ncompat: {}\n", []string{
			`tmem.yaml:2: warning: unknown key "sumarizer": tmem ignores it (a typo?)`,
			`tmem.yaml:4: warning: unknown key "compat": tmem ignores it (a typo?)`}},
		{"wrong type", "compact:\n  keep_weeks: many\n", []string{"tmem.yaml:2: error: cannot unmarshal !!str `many` into int"}},
		{"byte order mark", "\xef\xbb\xbfcompact:\n  keep_weeks: 4\n", []string{"tmem.yaml:1: warning: file starts with a UTF-8 byte order mark (BOM)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), DirName)
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.yaml != "" {
				write(t, filepath.Join(root, "tmem.yaml"), tt.yaml)
			}
			got := (&Workspace{Root: root}).CheckConfig("tmem.yaml", &schema{})
			if len(got) != len(tt.want) {
				t.Fatalf("findings:\n%s\nwant %d", findingLines(got), len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i].String(), w) {
					t.Errorf("finding %q, want %q", got[i], w)
				}
			}
		})
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func findingLines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}
