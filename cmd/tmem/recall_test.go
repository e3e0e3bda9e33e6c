package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout/layouttest"
)

// copyExample copies the bundled example workspace into a temp folder.
func copyExample(t *testing.T) string {
	t.Helper()
	return layouttest.Copy(t, filepath.Join("..", "..", "testdata", "example", ".teammates")).Root
}

func TestRecallCommand(t *testing.T) {
	dir := copyExample(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
		notInOut string
	}{
		{"plain blocks", []string{"recall", "--teammate", "beacon", "bulk lookup"}, 0, "beacon/memory/project_bulk_lookup.md:", "BM25 only", "BM25 only"},
		{"json stays clean", []string{"--json", "recall", "--teammate", "beacon", "-k", "3", "bulk lookup"}, 0, `"path": "beacon/memory/project_bulk_lookup.md"`, "BM25 only", "BM25 only"},
		{"quiet drops the notice", []string{"-q", "recall", "--all", "release"}, 0, "", "", "BM25 only"},
		{"teammate required", []string{"recall", "bulk"}, 2, "", "--teammate or --all is required", ""},
		{"unknown teammate", []string{"recall", "--teammate", "nobody", "bulk"}, 2, "", "unknown teammate", ""},
		{"boost", []string{"recall", "--teammate", "beacon", "--boost", "daily=2,typed=1", "bulk lookup"}, 0, "beacon/memory/", "", ""},
		{"bad boost kind", []string{"recall", "--teammate", "beacon", "--boost", "soul=2", "bulk"}, 2, "", "--boost soul", ""},
		{"bad boost value", []string{"recall", "--teammate", "beacon", "--boost", "daily=x", "bulk"}, 2, "", "want a positive number", ""},
		{"bad k", []string{"recall", "--teammate", "beacon", "-k", "0", "bulk"}, 2, "", "-k 0", ""},
		{"index is silent off a terminal", []string{"-q", "index", "--rebuild"}, 0, "", "", "indexed"},
		{"index says what it did under -v", []string{"-v", "index"}, 0, "", "indexed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--dir", dir, "--now", "2026-11-20"}, tt.args...)
			code, out, errs := runTmem(t, args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, errs)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %q, want %q in it", out, tt.wantOut)
			}
			if !strings.Contains(errs, tt.wantErr) {
				t.Errorf("stderr %q, want %q in it", errs, tt.wantErr)
			}
			if tt.notInOut != "" && strings.Contains(out, tt.notInOut) {
				t.Errorf("stdout holds %q", tt.notInOut)
			}
		})
	}
}

func TestRecallJSONShape(t *testing.T) {
	dir := copyExample(t)
	_, out, _ := runTmem(t, "--dir", dir, "--now", "2026-11-20", "--json", "recall", "--teammate", "beacon", "--recency-depth", "0", "no such words zzzqqq")
	var hits []map[string]interface{}
	if err := json.Unmarshal([]byte(out), &hits); err != nil || hits == nil {
		t.Fatalf("stdout %q is not a JSON array: %v", out, err)
	}
}
