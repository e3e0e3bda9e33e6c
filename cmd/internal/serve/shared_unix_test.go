//go:build unix

package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout/layouttest"
)

// TestSharedLinkRefused: a session bound to beacon, no lead, cannot read
// quill's memory through CROSS-TEAM.md or a template that is a link into
// quill's folder: not by memory_get, not in memory_search (an index that
// held CROSS-TEAM.md before it became the link drops it), and not in
// memory_context's stack.
func TestSharedLinkRefused(t *testing.T) {
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	cs := connect(t, serviceOf(t, ws, "beacon"))
	const words = "dispatchers port-local zone abbreviation tooltip"
	var out SearchOutput
	callOK(t, cs, "memory_search", map[string]any{"query": words}, &out) // indexes CROSS-TEAM.md as it is
	link := func(rel, to string) {
		t.Helper()
		p := filepath.Join(ws.Root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if err := os.Symlink(to, p); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	link("CROSS-TEAM.md", "quill/memory/feedback_timezone_labels.md")
	link("templates/q.md", "../quill/memory/feedback_timezone_labels.md")
	link("templates/memory-instructions.md", "../quill/memory/feedback_timezone_labels.md")
	for _, rel := range []string{"CROSS-TEAM.md", "templates/q.md"} {
		t.Run("get "+rel, func(t *testing.T) {
			res := call(t, cs, "memory_get", map[string]any{"path": rel})
			if !res.IsError || !strings.Contains(texts(res), "into quill's folder") {
				t.Errorf("memory_get %s: %q, want it refused as leading into quill's folder", rel, texts(res))
			}
		})
	}
	t.Run("search", func(t *testing.T) {
		callOK(t, cs, "memory_search", map[string]any{"query": words}, &out)
		for _, h := range out.Hits {
			if h.Teammate != "beacon" {
				t.Errorf("hit %s is not beacon's: %q", h.Ref, h.Text)
			}
		}
	})
	t.Run("context", func(t *testing.T) {
		var ctxOut ContextOutput
		res := callOK(t, cs, "memory_context", map[string]any{"task": words}, &ctxOut)
		if text := texts(res); strings.Contains(text, "port-local time followed by the zone") {
			t.Errorf("the stack shows quill's memory:\n%s", text)
		}
	})
}
