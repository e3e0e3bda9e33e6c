package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	memctx "github.com/tmemhq/tmem/context"
)

// serveTools are the tools tmem serve offers.
var serveTools = []string{"memory_compact_plan", "memory_context", "memory_get", "memory_list", "memory_log", "memory_remember", "memory_search", "memory_session"}

func TestServeToolSchemas(t *testing.T) { forEachTransport(t, testServeToolSchemas) }

func testServeToolSchemas(t *testing.T, start startServe) {
	cs := start(t, exampleWorkspace(t))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Description == "" {
				t.Error("no description")
			}
			in, ok := tool.InputSchema.(map[string]any)
			if !ok {
				t.Fatalf("input schema %T", tool.InputSchema)
			}
			props, _ := in["properties"].(map[string]any)
			if len(props) == 0 {
				t.Fatalf("input schema has no properties: %v", in)
			}
			for name, p := range props {
				if d, _ := p.(map[string]any)["description"].(string); d == "" {
					t.Errorf("input %s has no description", name)
				}
			}
			if tool.OutputSchema == nil {
				t.Error("no output schema")
			}
			if tool.Name == "memory_context" {
				checkBudgetBounds(t, props["budget"])
			}
		})
	}
	sort.Strings(names)
	if strings.Join(names, " ") != strings.Join(serveTools, " ") {
		t.Errorf("tools %v, want %v", names, serveTools)
	}
}

func TestServeTools(t *testing.T) { forEachTransport(t, testServeTools) }

func testServeTools(t *testing.T, start startServe) {
	dir := exampleWorkspace(t)
	cs := start(t, dir)
	task := "Why did the ETA rollover test fail on CI?"

	t.Run("memory_context is tmem context", func(t *testing.T) {
		var out struct {
			Teammate    string  `json:"teammate"`
			Text        *string `json:"text"`
			TotalTokens int     `json:"total_tokens"`
			RecallMode  string  `json:"recall_mode"`
			Sections    []struct {
				Name   string `json:"name"`
				Tokens int    `json:"tokens"`
			} `json:"sections"`
		}
		res := toolOK(t, cs, "memory_context", map[string]any{"teammate": "beacon", "task": task}, &out)
		want := runCLI(t, dir, "-q", "context", "--teammate", "beacon", task)
		if got := resultText(res); got != want {
			t.Errorf("memory_context text content differs from tmem context:\n--- tool\n%s\n--- cli\n%s", got, want)
		}
		if len(res.Content) != 1 {
			t.Errorf("memory_context sent %d content blocks, want the stack alone", len(res.Content))
		}
		if out.Text != nil {
			t.Error("the structured content repeats the stack")
		}
		if out.Teammate != "beacon" || out.TotalTokens == 0 || out.RecallMode != "bm25" || len(out.Sections) < 5 {
			t.Errorf("manifest summary %+v", out)
		}
	})
	t.Run("memory_search", func(t *testing.T) {
		var out struct {
			Mode string `json:"mode"`
			Hits []struct {
				Ref       string  `json:"ref"`
				Path      string  `json:"path"`
				Kind      string  `json:"kind"`
				Date      string  `json:"date"`
				StartLine int     `json:"start_line"`
				Score     float64 `json:"score"`
			} `json:"hits"`
		}
		res := toolOK(t, cs, "memory_search", map[string]any{"query": "bulk container lookup", "teammates": []string{"beacon"}, "k": 3}, &out)
		if out.Mode != "bm25" || len(out.Hits) == 0 || len(out.Hits) > 3 {
			t.Fatalf("search output %+v", out)
		}
		h := out.Hits[0]
		if h.Path != "beacon/memory/project_bulk_lookup.md" || !strings.HasPrefix(h.Ref, h.Path+":") || h.Score <= 0 {
			t.Errorf("top hit %+v", h)
		}
		if !strings.Contains(resultText(res), h.Ref) {
			t.Errorf("text rendering does not name %s:\n%s", h.Ref, resultText(res))
		}
	})
	t.Run("memory_search notes a query with no word", func(t *testing.T) {
		for _, tt := range []struct {
			query string
			note  bool
		}{{"🚀 → !!", true}, {"the of and", true}, {"🚀 bulk", false}} {
			var out struct {
				Notes []string `json:"notes"`
			}
			res := toolOK(t, cs, "memory_search", map[string]any{"query": tt.query, "teammates": []string{"beacon"}}, &out)
			got := len(out.Notes) == 1 && strings.Contains(out.Notes[0], "no word to search for")
			if got != tt.note || strings.Contains(resultText(res), "no word to search for") != tt.note {
				t.Errorf("%q: notes %q, text:\n%s", tt.query, out.Notes, resultText(res))
			}
		}
	})
	t.Run("memory_search filters kinds and dates", func(t *testing.T) {
		var out struct {
			Hits []struct {
				Kind string `json:"kind"`
				Date string `json:"date"`
			} `json:"hits"`
		}
		toolOK(t, cs, "memory_search", map[string]any{"query": "ETA rollover", "kinds": []string{"daily"}, "since": "2026-10-28", "until": "2026-11-05"}, &out)
		if len(out.Hits) == 0 {
			t.Fatal("no daily hits in the range")
		}
		for _, h := range out.Hits {
			if h.Kind != "daily" || h.Date < "2026-10-28" || h.Date > "2026-11-05" {
				t.Errorf("hit %+v outside the filter", h)
			}
		}
	})
	t.Run("memory_get by ref", func(t *testing.T) {
		var out struct {
			Path       string `json:"path"`
			FromLine   int    `json:"from_line"`
			ToLine     int    `json:"to_line"`
			TotalLines int    `json:"total_lines"`
			Next       int    `json:"next_from_line"`
			Text       string `json:"text"`
		}
		res := toolOK(t, cs, "memory_get", map[string]any{"path": "beacon/memory/project_bulk_lookup.md:2-3"}, &out)
		src, err := os.ReadFile(filepath.Join(dir, "beacon/memory/project_bulk_lookup.md"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(src), "\n")
		if text := resultText(res); text != lines[1]+lines[2] || out.Text != "" || out.FromLine != 2 || out.ToLine != 3 || out.TotalLines != len(lines)-1 || out.Next != 4 {
			t.Errorf("get %+v, text %q; want lines 2-3 %q, once", out, text, lines[1]+lines[2])
		}
	})
	t.Run("memory_log and memory_remember", func(t *testing.T) {
		var logged, remembered struct {
			Path string `json:"path"`
		}
		toolOK(t, cs, "memory_log", map[string]any{"teammate": "quill", "heading": "Served entry", "text": "Decision: keep the serve test."}, &logged)
		if logged.Path != "quill/memory/2026-11-20.md" {
			t.Errorf("logged to %s", logged.Path)
		}
		toolOK(t, cs, "memory_remember", map[string]any{"teammate": "quill", "type": "feedback", "topic": "serve tests",
			"name": "Serve tests use real processes", "description": "d", "body": "Spawn the binary."}, &remembered)
		if remembered.Path != "quill/memory/feedback_serve_tests.md" {
			t.Errorf("remembered to %s", remembered.Path)
		}
		if !strings.Contains(runCLI(t, dir, "show", logged.Path), "## Served entry") {
			t.Error("the entry is not in the daily log")
		}
		var found struct {
			Hits []struct {
				Path string `json:"path"`
			} `json:"hits"`
		}
		toolOK(t, cs, "memory_search", map[string]any{"query": "serve tests real processes", "teammates": []string{"quill"}}, &found)
		if len(found.Hits) == 0 || found.Hits[0].Path != remembered.Path {
			t.Errorf("the new memory is not the top hit: %+v", found.Hits)
		}
	})
	t.Run("memory_list", func(t *testing.T) {
		var out struct {
			Files []struct {
				Path string `json:"path"`
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"files"`
		}
		toolOK(t, cs, "memory_list", map[string]any{"teammate": "beacon", "kind": "typed"}, &out)
		if len(out.Files) == 0 {
			t.Fatal("no typed memories listed")
		}
		for _, f := range out.Files {
			if f.Kind != "typed" || !strings.HasPrefix(f.Path, "beacon/") || f.Name == "" {
				t.Errorf("listed %+v", f)
			}
		}
	})
	t.Run("memory_compact_plan changes nothing", func(t *testing.T) {
		before := runCLI(t, dir, "list")
		var out struct {
			Units []struct {
				ID     string   `json:"id"`
				Writes []string `json:"writes"`
			} `json:"units"`
		}
		toolOK(t, cs, "memory_compact_plan", map[string]any{"teammate": "beacon"}, &out)
		if len(out.Units) == 0 {
			t.Fatal("no compaction planned for beacon's old dailies")
		}
		for _, u := range out.Units {
			if !strings.HasPrefix(u.ID, "beacon/") || len(u.Writes) == 0 {
				t.Errorf("unit %+v", u)
			}
		}
		if after := runCLI(t, dir, "list"); after != before {
			t.Errorf("a dry run changed the files:\n%s\n---\n%s", before, after)
		}
	})
	t.Run("memory_compact_plan names unknown config keys", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(dir, "tmem.yaml"), []byte("compact:\n  kep_weeks: 3\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(dir, "tmem.yaml"))
		var out struct {
			Notes []string `json:"notes"`
		}
		toolOK(t, cs, "memory_compact_plan", map[string]any{"teammate": "beacon"}, &out)
		if !strings.Contains(strings.Join(out.Notes, "\n"), `tmem.yaml:2: unknown key "kep_weeks"`) {
			t.Errorf("notes %q do not name the unknown key", out.Notes)
		}
	})
}

func TestServeBadInput(t *testing.T) { forEachTransport(t, testServeBadInput) }

func testServeBadInput(t *testing.T, start startServe) {
	dir := exampleWorkspace(t)
	cs := start(t, dir)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"unknown teammate", "memory_search", map[string]any{"query": "x", "teammates": []string{"nobody"}}, "nobody"},
		{"malformed teammate", "memory_log", map[string]any{"teammate": "../etc", "text": "x"}, "../etc"},
		{"empty query", "memory_search", map[string]any{"query": "  "}, "query is empty"},
		{"wrong type of k", "memory_search", map[string]any{"query": "x", "k": "ten"}, "k"},
		{"k too large", "memory_search", map[string]any{"query": "x", "k": 1000}, "k 1000"},
		{"unknown kind", "memory_search", map[string]any{"query": "x", "kinds": []string{"diary"}}, `"diary" is not a kind`},
		{"bad date", "memory_search", map[string]any{"query": "x", "since": "last week"}, "YYYY-MM-DD"},
		{"since after until", "memory_search", map[string]any{"query": "x", "since": "2026-11-05", "until": "2026-10-28"}, "since 2026-11-05 is after until 2026-10-28"},
		{"missing required", "memory_context", map[string]any{"teammate": "beacon"}, "task"},
		{"no teammate unbound", "memory_log", map[string]any{"text": "x"}, "teammate is required"},
		{"nothing to log", "memory_log", map[string]any{"teammate": "beacon", "text": " "}, "nothing to log: give a heading or some text"},
		{"no words for a heading", "memory_log", map[string]any{"teammate": "beacon", "text": "---\nname: x\n---"}, `the text's first line is the heading, and "---" has no words`},
		{"path outside", "memory_get", map[string]any{"path": "../../etc/passwd.md"}, "inside"},
		{"absolute path", "memory_get", map[string]any{"path": "/etc/passwd"}, "relative"},
		{"index file", "memory_get", map[string]any{"path": "beacon/.index/manifest.md"}, "dot-folders"},
		{"not markdown", "memory_get", map[string]any{"path": "beacon/memory/x.txt"}, ".md"},
		{"missing file", "memory_get", map[string]any{"path": "beacon/memory/nothing.md"}, "nothing.md"},
		{"past the end", "memory_get", map[string]any{"path": "beacon/SOUL.md", "from_line": 100000}, "past the end"},
		{"bad ref", "memory_get", map[string]any{"path": "beacon/SOUL.md:9-2"}, "path:start-end"},
		{"bad mode", "memory_remember", map[string]any{"teammate": "beacon", "type": "feedback", "topic": "t", "name": "n", "body": "b", "mode": "merge"}, `mode "merge"`},
		{"bad type", "memory_remember", map[string]any{"teammate": "beacon", "type": "opinion", "topic": "t", "name": "n", "body": "b"}, `type "opinion"`},
		{"bad topic", "memory_remember", map[string]any{"teammate": "beacon", "type": "user", "topic": "../x", "name": "n", "body": "b"}, "topic"},
		{"exists", "memory_remember", map[string]any{"teammate": "beacon", "type": "project", "topic": "bulk lookup", "name": "n", "body": "b"}, "exist"},
		{"secret", "memory_log", map[string]any{"teammate": "beacon", "heading": "h", "text": "db: postgres://app:s3cr3t-Q8vLm2ZrT4bW7nKx9@db:5432/app"}, "secret"},
		{"tiny budget", "memory_context", map[string]any{"teammate": "beacon", "task": "t", "budget": 10}, "at least"},
		{"budget past int", "memory_context", map[string]any{"teammate": "beacon", "task": "t", "budget": int64(math.MaxInt64)}, "/properties/budget: maximum: "},
		{"max_lines past int", "memory_get", map[string]any{"path": "beacon/SOUL.md", "max_lines": 1e300}, "/properties/max_lines: maximum: "},
		{"from_line past int", "memory_get", map[string]any{"path": "beacon/SOUL.md", "from_line": uint64(math.MaxUint64)}, "/properties/from_line: maximum: "},
		{"bad tokenizer", "memory_context", map[string]any{"teammate": "beacon", "task": "t", "tokenizer": "words"}, "tokenizer"},
		{"bad list kind", "memory_list", map[string]any{"kind": "notes"}, `kind "notes"`},
		{"path with a NUL byte", "memory_get", map[string]any{"path": "beacon/memory/a\x00b.md"}, `get "beacon/memory/a\x00b.md": `},
		{"path with a line break", "memory_get", map[string]any{"path": "beacon/memory/a\nfake: b.md"}, `"beacon/memory/a\nfake: b.md"`},
		{"path with a terminal escape", "memory_get", map[string]any{"path": "beacon/memory/a\x1b[2J.md"}, `"beacon/memory/a\x1b[2J.md"`},
		{"name with a NUL byte", "memory_list", map[string]any{"teammate": "be\x00acon"}, `"be\x00acon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, cs, tt.tool, tt.args)
			if !res.IsError {
				t.Fatalf("no tool error; got %s", resultText(res))
			}
			if !strings.Contains(resultText(res), tt.want) {
				t.Errorf("error %q does not say %q", resultText(res), tt.want)
			}
			if i := strings.IndexFunc(resultText(res), unicode.IsControl); i >= 0 {
				t.Errorf("error %q holds a control character at %d", resultText(res), i)
			}
		})
	}
	var out struct {
		Hits []any `json:"hits"`
	}
	toolOK(t, cs, "memory_search", map[string]any{"query": "bulk lookup"}, &out)
	if len(out.Hits) == 0 {
		t.Error("the server stopped answering after bad input")
	}
	if _, err := os.Stat(filepath.Join(dir, "beacon/memory/user_t.md")); err == nil {
		t.Error("a refused memory was written")
	}
}

func TestServeScope(t *testing.T) { forEachTransport(t, testServeScope) }

func testServeScope(t *testing.T, start startServe) {
	dir := exampleWorkspace(t)
	soul := filepath.Join(dir, "atlas", "SOUL.md")
	src, err := os.ReadFile(soul)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(soul, []byte("---\nlead: true\n---\n"+string(src)), 0o644); err != nil {
		t.Fatal(err)
	}
	worker := start(t, dir, "--teammate", "beacon")
	flagLead := start(t, dir, "--teammate", "quill", "--lead")
	soulLead := start(t, dir, "--teammate", "atlas")
	refusals := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"search another teammate", "memory_search", map[string]any{"query": "map", "teammates": []string{"quill"}}},
		{"get another teammate's file", "memory_get", map[string]any{"path": "quill/SOUL.md"}},
		{"context of another teammate", "memory_context", map[string]any{"teammate": "quill", "task": "t"}},
		{"list another teammate", "memory_list", map[string]any{"teammate": "quill"}},
		{"log for another teammate", "memory_log", map[string]any{"teammate": "quill", "text": "x"}},
		{"remember for another teammate", "memory_remember", map[string]any{"teammate": "quill", "type": "user", "topic": "t", "name": "n", "body": "b"}},
	}
	for _, tt := range refusals {
		t.Run("worker refused: "+tt.name, func(t *testing.T) {
			res := callTool(t, worker, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(resultText(res), "refused") || !strings.Contains(resultText(res), "beacon") {
				t.Errorf("want a refusal naming the bound teammate, got %v %s", res.IsError, resultText(res))
			}
		})
	}
	t.Run("worker reads its own and the shared scope", func(t *testing.T) {
		var out struct {
			Hits []struct {
				Teammate string `json:"teammate"`
				Path     string `json:"path"`
			} `json:"hits"`
		}
		toolOK(t, worker, "memory_search", map[string]any{"query": "release freeze vessels map"}, &out)
		for _, h := range out.Hits {
			if h.Teammate != "beacon" && h.Path != "CROSS-TEAM.md" {
				t.Errorf("a bound worker's search returned %s", h.Path)
			}
		}
		var got struct {
			Text string `json:"text"`
		}
		toolOK(t, worker, "memory_get", map[string]any{"path": "CROSS-TEAM.md"}, &got)
		toolOK(t, worker, "memory_log", map[string]any{"text": "Own entry\nwritten by the bound session"}, &got)
	})
	for name, lead := range map[string]*mcp.ClientSession{"--lead": flagLead, "lead: true in SOUL.md": soulLead} {
		t.Run(name+" reads another teammate", func(t *testing.T) {
			var got struct {
				Path string `json:"path"`
			}
			res := toolOK(t, lead, "memory_get", map[string]any{"path": "beacon/memory/project_bulk_lookup.md"}, &got)
			if text := resultText(res); got.Path != "beacon/memory/project_bulk_lookup.md" || !strings.Contains(text, "name:") {
				t.Errorf("lead read %s: %q", got.Path, text)
			}
			var found struct {
				Hits []struct {
					Teammate string `json:"teammate"`
				} `json:"hits"`
			}
			toolOK(t, lead, "memory_search", map[string]any{"query": "bulk container lookup", "teammates": []string{"beacon"}}, &found)
			if len(found.Hits) == 0 || found.Hits[0].Teammate != "beacon" {
				t.Errorf("lead search %+v", found.Hits)
			}
			res = callTool(t, lead, "memory_log", map[string]any{"teammate": "beacon", "text": "x"})
			if !res.IsError || !strings.Contains(resultText(res), "refused") {
				t.Errorf("a lead wrote another teammate's log: %s", resultText(res))
			}
		})
	}
}

// checkBudgetBounds checks that memory_context's budget says the default
// and the least budget the builder takes.
func checkBudgetBounds(t *testing.T, budget any) {
	t.Helper()
	d, _ := budget.(map[string]any)["description"].(string)
	for _, n := range []int{memctx.DefaultBudget, memctx.MinBudget} {
		if !strings.Contains(d, fmt.Sprint(n)) {
			t.Errorf("budget %q does not name %d", d, n)
		}
	}
}
