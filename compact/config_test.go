package compact

import (
	"reflect"
	"testing"
	"time"
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
			o, err := cfg.Options(ws, tt.flag, getenv)
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
				s.Templates = nil
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
		o, err := cfg.Options(ws, "", getenv)
		if err != nil {
			t.Fatal(err)
		}
		if o.WisdomBudget != 500 || o.KeepWeeks != 26 || o.KeepRecentDays != -1 || o.KeepStubDays != 10 {
			t.Errorf("got budget %d, keep weeks %d, recent days %d, stub days %d", o.WisdomBudget, o.KeepWeeks, o.KeepRecentDays, o.KeepStubDays)
		}
	})
}
