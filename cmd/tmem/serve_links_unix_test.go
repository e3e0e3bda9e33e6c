//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeScopeLinks: a session bound to beacon, no lead, cannot reach
// quill's memory through a link in beacon's folder, of a file or of the
// memory folder: memory_get names where the path leads, memory_search
// finds nothing there, and memory_log and memory_remember leave quill's
// files as they were.
func TestServeScopeLinks(t *testing.T) {
	const quillMap = "quill/memory/project_live_map.md"
	t.Run("a file linked into another teammate's folder", func(t *testing.T) {
		dir := exampleWorkspace(t)
		if err := os.Symlink("../../"+quillMap, filepath.Join(dir, "beacon/memory/project_qq.md")); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		worker := startStdio(t, dir, "--teammate", "beacon")
		res := callTool(t, worker, "memory_get", map[string]any{"path": "beacon/memory/project_qq.md"})
		if !res.IsError || !strings.Contains(resultText(res), "beacon/memory/project_qq.md: leads through a symlink to "+quillMap) {
			t.Errorf("memory_get: want a refusal naming where the link leads, got %v %s", res.IsError, resultText(res))
		}
		var out struct {
			Hits []struct {
				Path string `json:"path"`
			} `json:"hits"`
		}
		toolOK(t, worker, "memory_search", map[string]any{"query": "live map clustered vessel markers Kestrel demo"}, &out)
		for _, h := range out.Hits {
			if h.Path == "beacon/memory/project_qq.md" {
				t.Errorf("memory_search found quill's memory as %s", h.Path)
			}
		}
	})
	t.Run("the memory folder linked to another teammate's", func(t *testing.T) {
		dir := exampleWorkspace(t)
		if err := os.RemoveAll(filepath.Join(dir, "beacon/memory")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../quill/memory", filepath.Join(dir, "beacon/memory")); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		before := snapshot(t, filepath.Join(dir, "quill/memory"))
		worker := startStdio(t, dir, "--teammate", "beacon")
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"memory_get", map[string]any{"path": "beacon/memory/project_live_map.md"}},
			{"memory_log", map[string]any{"text": "Beacon's entry\nwritten into quill's log"}},
			{"memory_remember", map[string]any{"type": "project", "topic": "live map", "name": "n", "body": "b", "mode": "overwrite"}},
		}
		for _, c := range calls {
			res := callTool(t, worker, c.tool, c.args)
			if !res.IsError || !strings.Contains(resultText(res), "leads through a symlink to quill/memory") {
				t.Errorf("%s: want a refusal naming where the link leads, got %v %s", c.tool, res.IsError, resultText(res))
			}
		}
		if after := snapshot(t, filepath.Join(dir, "quill/memory")); after != before {
			t.Errorf("quill's memory changed:\n%s\nwas:\n%s", after, before)
		}
	})
}

// snapshot is the names and contents of the files in dir, one string.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // a folder
		}
		b.WriteString(e.Name() + "\n" + string(src) + "\n")
	}
	return b.String()
}
