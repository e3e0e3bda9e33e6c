package compact

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// conformanceRequests are what every Summarizer must answer validly.
func conformanceRequests() []Request {
	daily := "# 2026-03-09\n\n## Refactored auth middleware\n\n- Moved session validation into its own module\n- Decision: keep cookie-based auth for now\n- Need to update tests tomorrow\n\n## Fixed flaky sync test\n\nRoot cause: mtime granularity on the CI filesystem. Added a hash check.\n"
	weekly := "# Week 2026-W11\n\n## Decisions and lessons\n\n- Decision: keep cookie-based auth for now\n\n## Work\n\n- 2026-03-09 Refactored auth middleware: Moved session validation into its own module\n- 2026-03-10 Fixed flaky sync test: Root cause: mtime granularity on the CI filesystem\n"
	return []Request{
		{Kind: KindWeekly, Teammate: "beacon", Unit: "2026-W11", Period: "2026-03-09 to 2026-03-15", Sources: []Source{
			{Path: "beacon/memory/2026-03-09.md", Label: "2026-03-09", Text: daily},
			{Path: "beacon/memory/2026-03-10.md", Label: "2026-03-10", Text: strings.ReplaceAll(daily, "03-09", "03-10")},
		}},
		{Kind: KindMonthly, Teammate: "beacon", Unit: "2026-03", Period: "2026-03-02 to 2026-04-05", Sources: []Source{
			{Path: "beacon/memory/weekly/2026-W11.md", Label: "2026-W11", Text: weekly},
			{Path: "beacon/memory/weekly/2026-W12.md", Label: "2026-W12", Text: strings.ReplaceAll(weekly, "W11", "W12")},
		}},
		{Kind: KindWisdom, Teammate: "beacon", Unit: "no mocks", Sources: []Source{
			{Path: "beacon/memory/feedback_no_mocks.md", Label: "No mocks in integration tests", Text: "Integration tests must hit a real database, not mocks.\n\n**Why:** mocks diverged from prod.\n\n**How to apply:** use the staging environment."},
			{Path: "beacon/memory/feedback_real_api.md", Label: "Real API calls", Text: "Use real API calls in integration tests, not mocks."},
		}},
	}
}

// conformance checks that s answers every conformance request with output
// that passes Validate.
func conformance(t *testing.T, s Summarizer) {
	t.Helper()
	for _, req := range conformanceRequests() {
		t.Run(string(req.Kind), func(t *testing.T) {
			out, err := s.Summarize(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if err := Validate(req, out); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// fakeLLM is a shell script put on PATH that answers like a model: a
// weekly, monthly or wisdom body depending on the prompt, or misbehaves
// as FAKE_MODE says.
const fakeLLM = `#!/bin/sh
prompt=$(cat)
case "$FAKE_MODE" in
empty) exit 0 ;;
slow) sleep 10 ;;
fail) echo "model not found" >&2; exit 3 ;;
long) i=0; while [ $i -lt 3000 ]; do echo "padding line $i"; i=$((i+1)); done; exit 0 ;;
frontmatter) printf -- '---\ntype: weekly\n---\n# Week\n'; exit 0 ;;
esac
case "$prompt" in
*"WISDOM.md entry"*) printf '## Test against reality\n\nUse real services in integration tests, not mocks.\n' ;;
*"weekly summaries of month"*) printf '~~~\n# Month\n\n## Work\n\n- Shipped the auth refactor.\n~~~\n' | sed 's/~~~/` + "```" + `/' ;;
*) printf '# Week\n\n## Work\n\n- Shipped the auth refactor (fake-llm).\n' ;;
esac
`

func installFake(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fake-llm"), []byte(fakeLLM), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestExtractiveConformance(t *testing.T) { conformance(t, Extractive{}) }

func TestCommandConformance(t *testing.T) {
	installFake(t)
	conformance(t, Command{Argv: []string{"fake-llm"}, Timeout: 5 * time.Second})
}

// fakeChat is an httptest server speaking chat-completions; mode picks a
// misbehaviour.
func fakeChat(t *testing.T, mode string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer test-key" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"bad key"}}`))
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "test-model" || len(req.Messages) != 2 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		prompt := req.Messages[1].Content
		content := "# Week\n\n## Work\n\n- Shipped the auth refactor (fake-chat)."
		switch {
		case strings.Contains(prompt, "WISDOM.md entry"):
			content = "## Test against reality\n\nUse real services in integration tests, not mocks."
		case strings.Contains(prompt, "weekly summaries of month"):
			content = "```markdown\n# Month\n\n## Work\n\n- Shipped the auth refactor.\n```"
		}
		switch mode {
		case "slow":
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
			return
		case "500":
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"overloaded"}}`))
			return
		case "garbage":
			w.Write([]byte("<html>not json</html>"))
			return
		case "empty":
			content = ""
		case "long":
			content = strings.Repeat("padding line\n", 5000)
		}
		json.NewEncoder(w).Encode(map[string]interface{}{
			"choices": []interface{}{map[string]interface{}{"message": map[string]string{"role": "assistant", "content": content}}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAIConformance(t *testing.T) {
	srv := fakeChat(t, "")
	conformance(t, OpenAI{BaseURL: srv.URL + "/v1", Model: "test-model", APIKey: "test-key", Timeout: 5 * time.Second})
}

// TestLLMBackends runs a compaction through each backend against its fake,
// well-behaved and misbehaving: good output becomes the weekly; bad output,
// errors and timeouts abort the unit and keep its dailies.
func TestLLMBackends(t *testing.T) {
	installFake(t)
	backends := map[string]func(t *testing.T, mode string) Summarizer{
		"command": func(_ *testing.T, m string) Summarizer {
			return Command{Argv: []string{"fake-llm"}, Timeout: 300 * time.Millisecond, Env: []string{"FAKE_MODE=" + m}}
		},
		"openai": func(t *testing.T, m string) Summarizer {
			srv := fakeChat(t, m)
			return OpenAI{BaseURL: srv.URL + "/v1", Model: "test-model", APIKey: "test-key", Timeout: 300 * time.Millisecond}
		},
	}
	tests := []struct {
		mode    string
		ok      bool
		wantErr string
	}{
		{mode: "", ok: true},
		{mode: "empty", wantErr: "empty"},
		{mode: "long", wantErr: "longer than"},
		{mode: "slow", wantErr: "timed out"},
		{mode: "fail", wantErr: "model not found"},
		{mode: "500", wantErr: "overloaded"},
		{mode: "garbage", wantErr: "not chat-completions"},
		{mode: "frontmatter", wantErr: "frontmatter"},
	}
	for _, backend := range []string{"command", "openai"} {
		for _, tt := range tests {
			if backend == "command" && (tt.mode == "500" || tt.mode == "garbage") || backend == "openai" && (tt.mode == "fail" || tt.mode == "frontmatter") {
				continue
			}
			name := tt.mode
			if name == "" {
				name = "valid"
			}
			t.Run(backend+"/"+name, func(t *testing.T) {
				ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 3, nil)
				res, err := Run(context.Background(), ws, Options{Episodic: true, Now: fixed("2026-11-18"), Summarizer: backends[backend](t, tt.mode)})
				weekly := "beacon/memory/weekly/2026-W45.md"
				_, statErr := os.Stat(ws.Abs(weekly))
				dailies := paths(t, ws, "beacon", layout.KindDaily)
				if tt.ok {
					if err != nil {
						t.Fatal(err)
					}
					b, _ := os.ReadFile(ws.Abs(weekly))
					if !strings.Contains(string(b), "Shipped the auth refactor") || !strings.Contains(string(b), "type: weekly") {
						t.Errorf("weekly does not hold the model's summary:\n%s", b)
					}
					if !strings.Contains(string(b), "- Lesson: always pin versions") {
						t.Errorf("the decisions the model dropped were not kept word for word:\n%s", b)
					}
					if len(dailies) != 0 {
						t.Errorf("dailies left: %v", dailies)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				if len(res.Plan.Failed) != 1 {
					t.Errorf("failed units: %+v", res.Plan.Failed)
				}
				if statErr == nil {
					t.Error("a weekly was written from bad output")
				}
				if len(dailies) != 3 {
					t.Errorf("dailies kept: %v, want all 3", dailies)
				}
			})
		}
	}
}

func TestValidate(t *testing.T) {
	src := []Source{{Text: strings.Repeat("some daily text here\n", 20)}}
	tests := []struct {
		name    string
		kind    Kind
		out     string
		wantErr bool
	}{
		{"weekly ok", KindWeekly, "# Week\n\n- did it", false},
		{"empty", KindWeekly, " \n ", true},
		{"frontmatter", KindWeekly, "---\na: b\n---\nbody", true},
		{"longer than sources", KindWeekly, strings.Repeat("x", 1000), true},
		{"invalid utf-8", KindWeekly, "bad \xff byte", true},
		{"wisdom ok", KindWisdom, "## Rule\n\nDo this. Then that.", false},
		{"wisdom without title", KindWisdom, "Do this.", true},
		{"wisdom two entries", KindWisdom, "## A\n\nDo this.\n\n## B\n\nDo that.", true},
		{"wisdom too many sentences", KindWisdom, "## A\n\nOne. Two. Three. Four.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(Request{Kind: tt.kind, Unit: "u", Sources: src}, tt.out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidOutput) {
				t.Errorf("%v is not ErrInvalidOutput", err)
			}
		})
	}
}
