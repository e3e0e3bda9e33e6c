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
		wantOut  string // stdout holds it, when set
		wantErr  string // stderr holds it, when set
		notInOut string
		quietErr bool // stderr is empty
	}{
		{name: "plain blocks", args: []string{"recall", "--teammate", "beacon", "bulk lookup"}, wantOut: "beacon/memory/project_bulk_lookup.md:", wantErr: "BM25 only", notInOut: "BM25 only"},
		{name: "json stays clean", args: []string{"--json", "recall", "--teammate", "beacon", "-k", "3", "bulk lookup"}, wantOut: `"path": "beacon/memory/project_bulk_lookup.md"`, wantErr: "BM25 only", notInOut: "BM25 only"},
		{name: "quiet drops the notice", args: []string{"-q", "recall", "--all", "release"}, wantOut: "atlas/memory/project_release_train.md:", quietErr: true},
		{name: "teammate required", args: []string{"recall", "bulk"}, wantCode: 2, wantErr: "--teammate or --all is required"},
		{name: "unknown teammate", args: []string{"recall", "--teammate", "nobody", "bulk"}, wantCode: 2, wantErr: "unknown teammate"},
		{name: "boost", args: []string{"recall", "--teammate", "beacon", "--boost", "daily=2,typed=1", "bulk lookup"}, wantOut: "beacon/memory/"},
		{name: "bad boost kind", args: []string{"recall", "--teammate", "beacon", "--boost", "soul=2", "bulk"}, wantCode: 2, wantErr: "--boost soul"},
		{name: "bad boost value", args: []string{"recall", "--teammate", "beacon", "--boost", "daily=x", "bulk"}, wantCode: 2, wantErr: "want a positive number"},
		{name: "negative recency depth", args: []string{"recall", "--teammate", "beacon", "--recency-depth", "-5", "bulk"}, wantCode: 2, wantErr: "--recency-depth -5: want 0 (none) or more"},
		{name: "NaN boost", args: []string{"recall", "--teammate", "beacon", "--boost", "typed=NaN", "bulk"}, wantCode: 2, wantErr: "--boost typed=NaN: want a positive number up to 1000"},
		{name: "infinite boost", args: []string{"recall", "--teammate", "beacon", "--boost", "typed=+Inf", "bulk"}, wantCode: 2, wantErr: "--boost typed=+Inf: want a positive number"},
		{name: "huge boost", args: []string{"recall", "--teammate", "beacon", "--boost", "typed=1e300", "bulk"}, wantCode: 2, wantErr: "--boost typed=1e300: want a positive number"},
		{name: "bad k", args: []string{"recall", "--teammate", "beacon", "-k", "0", "bulk"}, wantCode: 2, wantErr: "-k 0"},
		{name: "kind filter", args: []string{"recall", "--teammate", "beacon", "--kind", "daily", "--recency-depth", "0", "bulk lookup"}, wantOut: "beacon/memory/2026-", notInOut: "project_bulk_lookup.md"},
		{name: "bad kind", args: []string{"recall", "--teammate", "beacon", "--kind", "soul", "bulk"}, wantCode: 2, wantErr: `kind "soul" is not a kind`},
		{name: "bad since", args: []string{"recall", "--teammate", "beacon", "--since", "May", "bulk"}, wantCode: 2, wantErr: `since "May": want a day as YYYY-MM-DD`},
		{name: "index is silent off a terminal", args: []string{"-q", "index", "--rebuild"}, quietErr: true},
		{name: "index says what it did under -v", args: []string{"-v", "index"}, wantErr: "indexed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--dir", dir, "--now", "2026-11-20"}, tt.args...)
			code, out, errs := runTmem(t, args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, errs)
			}
			if tt.wantOut != "" && !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %q, want %q in it", out, tt.wantOut)
			}
			if tt.wantErr != "" && !strings.Contains(errs, tt.wantErr) {
				t.Errorf("stderr %q, want %q in it", errs, tt.wantErr)
			}
			if tt.notInOut != "" && strings.Contains(out, tt.notInOut) {
				t.Errorf("stdout holds %q", tt.notInOut)
			}
			if tt.quietErr && errs != "" {
				t.Errorf("stderr %q, want nothing", errs)
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

// TestIndexJSONTimes checks that tmem index --json reports how long
// parsing and indexing took: a rebuild of the example does both.
func TestIndexJSONTimes(t *testing.T) {
	code, out, errs := runTmem(t, "--dir", copyExample(t), "--json", "index", "--rebuild")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var st struct {
		Chunks  int   `json:"chunks"`
		ParseNS int64 `json:"parse_ns"`
		IndexNS int64 `json:"index_ns"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if st.Chunks == 0 || st.ParseNS <= 0 || st.IndexNS <= 0 {
		t.Errorf("%d chunks in %d ns of parsing and %d of indexing: want all above 0", st.Chunks, st.ParseNS, st.IndexNS)
	}
}
