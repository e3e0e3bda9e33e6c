package serve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // America/New_York wherever the tests run

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall"
)

// connect serves svc to the SDK's client over in-memory transports and
// returns the client's session, closed at the end of the test.
func connect(t *testing.T, svc *Service) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := svc.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and fails the test on a protocol error; a tool error
// is in the result.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// callOK calls a tool that must succeed and decodes its structured
// content into out.
func callOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, texts(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return res
}

// texts joins a result's text contents, one a line.
func texts(res *mcp.CallToolResult) string {
	var all []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			all = append(all, tc.Text)
		}
	}
	return strings.Join(all, "\n")
}

// serviceOf serves ws, BM25 only, on the example's today, bound to
// teammate ("" for unbound).
func serviceOf(t *testing.T, ws *layout.Workspace, teammate string) *Service {
	t.Helper()
	return serviceAt(t, ws, teammate, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), nil)
}

// serviceAt is serviceOf with the clock stopped at at, and "today" in loc
// (nil: at's own zone).
func serviceAt(t *testing.T, ws *layout.Workspace, teammate string, at time.Time, loc *time.Location) *Service {
	t.Helper()
	now := func() time.Time { return at }
	ix, err := recall.Open(ws, recall.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	svc, err := New(Options{Workspace: ws, Index: ix, Now: now, Teammate: teammate, Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// TestSearchTeammateList asks memory_search for more teammates than the
// workspace has (three): the list is refused by its length, before any
// name is looked up; a short list with a repeat is searched once.
func TestSearchTeammateList(t *testing.T) {
	cs := connect(t, exampleService(t))
	long := make([]string, 100000)
	for i := range long {
		long[i] = "beacon"
	}
	res := call(t, cs, "memory_search", map[string]any{"query": "bulk lookup", "teammates": long})
	if !res.IsError || !strings.Contains(texts(res), "100000 names, but the workspace has 3 teammates") {
		t.Errorf("a list of 100000 names: %q, want it refused by its length", texts(res))
	}
	var out SearchOutput
	callOK(t, cs, "memory_search", map[string]any{"query": "bulk lookup", "teammates": []string{"beacon", "beacon"}}, &out)
	if len(out.Hits) == 0 {
		t.Fatal("no hits for beacon, beacon")
	}
	for _, h := range out.Hits {
		if h.Teammate != "beacon" && h.Path != "CROSS-TEAM.md" {
			t.Errorf("hit %s is not beacon's", h.Ref)
		}
	}
}

// TestSearchFilters asks memory_search for hits of some kinds and days: a
// weekly summary is found by any day of its week (its date is the
// Monday), and every hit is of a kind asked for.
func TestSearchFilters(t *testing.T) {
	cs := connect(t, exampleService(t))
	var out SearchOutput
	callOK(t, cs, "memory_search", map[string]any{"query": "backfill 31 million rows", "since": "2026-10-22", "until": "2026-10-22"}, &out)
	if len(out.Hits) != 1 || out.Hits[0].Path != "beacon/memory/weekly/2026-W43.md" {
		t.Errorf("on 2026-10-22: hits %+v, want the weekly of 2026-W43 alone", out.Hits)
	}
	for _, kinds := range [][]string{{"typed"}, {"weekly", "daily"}} {
		out = SearchOutput{}
		callOK(t, cs, "memory_search", map[string]any{"query": "backfill", "kinds": kinds, "k": 2}, &out)
		if len(out.Hits) == 0 {
			t.Errorf("kinds %v: no hits", kinds)
		}
		for _, h := range out.Hits {
			if !slices.Contains(kinds, h.Kind) {
				t.Errorf("kinds %v: hit %s is %s", kinds, h.Ref, h.Kind)
			}
		}
	}
	res := call(t, cs, "memory_search", map[string]any{"query": "backfill", "since": "2026-10-23", "until": "2026-10-22"})
	if !res.IsError || !strings.Contains(texts(res), "since 2026-10-23 is after until 2026-10-22") {
		t.Errorf("since after until: %q, want it refused", texts(res))
	}
}

// TestLogInServerZone serves with a zone (New York) whose day is not the
// clock's: at 02:00 UTC on the 21st, memory_log writes to the daily of the
// 20th, the day memory_context calls today.
func TestLogInServerZone(t *testing.T) {
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	svc := serviceAt(t, ws, "", time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC), ny)
	var out struct {
		Path string `json:"path"`
	}
	callOK(t, connect(t, svc), "memory_log", map[string]any{"teammate": "beacon", "heading": "Late fix", "text": "Patched the okapi feed."}, &out)
	if out.Path != "beacon/memory/2026-11-20.md" {
		t.Errorf("memory_log wrote %s, want beacon/memory/2026-11-20.md", out.Path)
	}
}

// TestNotesNameFilesNotIndexed: a hand-edited typed memory whose
// frontmatter does not close is in no hit; memory_search and
// memory_context say so in their notes, with its file and line, instead
// of only the server's stderr, which agent CLIs do not show.
func TestNotesNameFilesNotIndexed(t *testing.T) {
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	const rel = "beacon/memory/feedback_heron.md"
	if err := ws.WriteFile(rel, []byte("---\nname: Heron\ndescription: d\ntype: feedback\n\nHerons must be fed at dawn.\n")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, serviceOf(t, ws, ""))
	var search SearchOutput
	callOK(t, cs, "memory_search", map[string]any{"query": "heron", "teammates": []string{"beacon"}}, &search)
	var stack ContextOutput
	callOK(t, cs, "memory_context", map[string]any{"teammate": "beacon", "task": "heron feeding"}, &stack)
	for name, notes := range map[string][]string{"memory_search": search.Notes, "memory_context": stack.Notes} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, rel+":1: ") }) {
			t.Errorf("%s notes %q do not name %s:1", name, notes, rel)
		}
	}
}

// TestRememberAppendWithoutName appends to a typed memory without naming
// it again: its name is kept. Creating one still needs a name.
func TestRememberAppendWithoutName(t *testing.T) {
	svc := exampleService(t)
	cs := connect(t, svc)
	var out WriteOutput
	callOK(t, cs, "memory_remember", map[string]any{"teammate": "beacon", "type": "feedback", "topic": "container normalization", "body": "Also for Norwave's feed.", "mode": "append"}, &out)
	b, err := svc.ws.ReadFile(out.Path, 1<<20)
	if err != nil || !strings.Contains(string(b), "Also for Norwave's feed.") || !strings.Contains(string(b), "\nname: ") {
		t.Errorf("%s after the append: %q, %v", out.Path, b, err)
	}
	res := call(t, cs, "memory_remember", map[string]any{"teammate": "beacon", "type": "feedback", "topic": "brand new", "body": "x", "mode": "append"})
	if !res.IsError || !strings.Contains(texts(res), "creating one needs a name") {
		t.Errorf("append to no memory, without a name: %q, want it refused", texts(res))
	}
}

// TestSessionFile: memory_session reads the session file the stack names
// (empty at first), replaces it whole, and reads back what it wrote; a
// session bound to beacon may not touch quill's, and text that is no
// memory text (a NUL byte) is refused.
func TestSessionFile(t *testing.T) {
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	cs := connect(t, serviceOf(t, ws, "beacon"))
	var out SessionOutput
	callOK(t, cs, "memory_session", map[string]any{}, &out)
	if out.Path != ".tmp/sessions/beacon.md" || out.Text != "" {
		t.Fatalf("first read: %+v, want beacon's empty session file", out)
	}
	const notes = "## Open threads\n\n- The okapi feed retries twice.\n"
	callOK(t, cs, "memory_session", map[string]any{"text": notes}, &out)
	if !out.Written {
		t.Fatalf("write: %+v", out)
	}
	if b, err := os.ReadFile(ws.SessionPath("beacon")); err != nil || string(b) != notes {
		t.Fatalf("the file holds %q (%v), want what was written", b, err)
	}
	out = SessionOutput{}
	callOK(t, cs, "memory_session", map[string]any{}, &out)
	if out.Text != notes {
		t.Errorf("read back %q, want %q", out.Text, notes)
	}
	for _, args := range []map[string]any{{"teammate": "quill", "text": "x"}, {"teammate": "quill"}, {"text": "a\x00b"}} {
		if res := call(t, cs, "memory_session", args); !res.IsError {
			t.Errorf("memory_session %v: %q, want it refused", args, texts(res))
		}
	}
}
