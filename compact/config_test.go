package compact

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

func TestConfig(t *testing.T) {
	env := map[string]string{"MY_KEY": "secret"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name, yaml, flag string
		want             Summarizer
		wantErr          bool
	}{
		{name: "no file", want: Extractive{}},
		{name: "flag wins", yaml: "compact:\n  summarizer: openai\n", flag: "extractive", want: Extractive{}},
		{name: "command as list", yaml: "compact:\n  summarizer: command\n  command: [ollama, run, llama3]\n  timeout: 30s\n",
			want: Command{Argv: []string{"ollama", "run", "llama3"}, Timeout: 30 * time.Second}},
		{name: "command as string", yaml: "compact:\n  command: claude -p\n", flag: "command",
			want: Command{Argv: []string{"claude", "-p"}}},
		{name: "openai with key from env", yaml: "compact:\n  summarizer: openai\n  openai:\n    base_url: http://127.0.0.1:8080/v1\n    model: m\n    api_key_env: MY_KEY\n",
			want: OpenAI{BaseURL: "http://127.0.0.1:8080/v1", Model: "m", APIKey: "secret"}},
		{name: "command without command", yaml: "compact:\n  summarizer: command\n", wantErr: true},
		{name: "openai without model", yaml: "compact:\n  summarizer: openai\n  openai:\n    base_url: http://x\n", wantErr: true},
		{name: "unknown", yaml: "compact:\n  summarizer: magic\n", wantErr: true},
		{name: "bad timeout", yaml: "compact:\n  timeout: soon\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			archive := "-- beacon/SOUL.md --\n# Beacon\n"
			if tt.yaml != "" {
				archive += "-- tmem.yaml --\n" + tt.yaml
			}
			ws := fromTxtar(t, archive)
			cfg, err := LoadConfig(ws)
			if err != nil {
				t.Fatal(err)
			}
			o, err := cfg.Options(ws, tt.flag, trustedEnv(t, ws, cfg, getenv))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			got := o.Summarizer
			switch s := got.(type) {
			case Command:
				if s.Templates == nil {
					t.Error("no template overrides")
				}
				if s.Dir != ProjectDir(ws) {
					t.Errorf("runs in %q, want the project folder %q", s.Dir, ProjectDir(ws))
				}
				s.Templates, s.Dir = nil, ""
				got = s
			case OpenAI:
				if s.Templates == nil {
					t.Error("no template overrides")
				}
				s.Templates = nil
				got = s
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
	t.Run("retention settings", func(t *testing.T) {
		ws := fromTxtar(t, "-- tmem.yaml --\ncompact:\n  wisdom_budget: 500\n  keep_weeks: 26\n  keep_recent_days: -1\n  keep_stub_days: 10\n")
		cfg, err := LoadConfig(ws)
		if err != nil {
			t.Fatal(err)
		}
		o, err := cfg.Options(ws, "", SummarizerEnv{Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		if o.WisdomBudget != 500 || o.KeepWeeks != 26 || o.KeepRecentDays != -1 || o.KeepStubDays != 10 {
			t.Errorf("got budget %d, keep weeks %d, recent days %d, stub days %d", o.WisdomBudget, o.KeepWeeks, o.KeepRecentDays, o.KeepStubDays)
		}
	})
}

func TestConfigRanges(t *testing.T) {
	tests := []struct {
		name, yaml string
		wantErr    string // "" means accepted
	}{
		{"empty file", "", ""},
		{"every setting in range", "compact:\n  wisdom_budget: 2000\n  weekly_budget: 1500\n  monthly_budget: 4000\n  keep_weeks: 52\n  keep_recent_days: 7\n  keep_stub_days: -1\n  timeout: 2m\n", ""},
		{"no recent days", "compact:\n  keep_recent_days: -1\n", ""},
		{"recent days beyond a duration", "compact:\n  keep_recent_days: 200000\n", "tmem.yaml:2: compact.keep_recent_days 200000 is out of range: want 1 to 36500 days, or -1 for none"},
		{"negative recent days", "compact:\n  keep_recent_days: -3\n", "tmem.yaml:2: compact.keep_recent_days -3 is out of range"},
		{"stub days beyond a duration", "compact:\n  keep_stub_days: 106752\n", "tmem.yaml:2: compact.keep_stub_days 106752 is out of range"},
		{"negative weeks", "compact:\n  archive: true\n  keep_weeks: -1\n", "tmem.yaml:3: compact.keep_weeks -1 is out of range: want 1 to 5200 weeks"},
		{"zero budget", "compact:\n  weekly_budget: 0\n", "tmem.yaml:2: compact.weekly_budget 0 is out of range: want 100 to 1000000 tokens"},
		{"negative budget", "compact:\n  monthly_budget: -5\n", "tmem.yaml:2: compact.monthly_budget -5 is out of range"},
		{"negative timeout", "compact:\n  timeout: -5s\n", "tmem.yaml:2: compact.timeout -5s: want a duration above 0"},
		{"two bad settings", "compact:\n  keep_weeks: 0\n  keep_stub_days: -2\n", "tmem.yaml:3: compact.keep_stub_days -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n-- tmem.yaml --\n"+tt.yaml)
			_, err := LoadConfig(ws)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("LoadConfig: %v, want %q", err, tt.wantErr)
			}
			var found []string
			for _, f := range CheckConfig(ws) {
				found = append(found, fmt.Sprintf("%s:%d: %s", f.Path, f.Line, f.Message))
			}
			if tt.wantErr == "" && found != nil || tt.wantErr != "" && !strings.Contains(strings.Join(found, "\n"), tt.wantErr) {
				t.Errorf("CheckConfig: %q, want %q", found, tt.wantErr)
			}
		})
	}
}

// TestConfigErrorsNameTheLine: a tmem.yaml that does not parse or holds
// a value of the wrong type is refused as file:line, once for each value,
// at the line holding the mistake (the "[" never closed, not the end of
// the file).
func TestConfigErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"syntax error", "compact:\n  keep_weeks: [\n", "tmem.yaml:2: does not parse: did not find expected node content"},
		{"stray list item after a comment", "# tmem\ncompact:\n  keep_weeks: 4\n  - archive\n", "tmem.yaml:4: does not parse: did not find expected key"},
		{"not a mapping", "compact: 5\n", "tmem.yaml:1: cannot unmarshal !!int `5` into compact.Config"},
		{"two wrong types", "compact:\n  keep_weeks: many\n  archive: maybe\n",
			"tmem.yaml:2: cannot unmarshal !!str `many` into int\ntmem.yaml:3: cannot unmarshal !!str `maybe` into bool"},
		{"command of another shape", "compact:\n  command: {a: b}\n", "tmem.yaml:2: compact.command: want a list or a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n-- tmem.yaml --\n"+tt.yaml)
			if _, err := LoadConfig(ws); err == nil || err.Error() != tt.want {
				t.Errorf("LoadConfig: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestKeepRecentDaysBeyondADuration checks that a window of more days
// than a time.Duration holds keeps the dailies in it, even with the
// archive off, where a compacted daily is gone for good.
func TestKeepRecentDaysBeyondADuration(t *testing.T) {
	for _, days := range []int{106_752, 200_000} {
		t.Run(strconv.Itoa(days), func(t *testing.T) {
			ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
			_, err := Run(context.Background(), ws, Options{Now: fixed("2026-11-18"), KeepRecentDays: days, KeepStubDays: -1, NoArchive: true})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(paths(t, ws, "beacon", layout.KindDaily)); n != 3 {
				t.Errorf("%d dailies left, want all 3 within %d days", n, days)
			}
		})
	}
}
