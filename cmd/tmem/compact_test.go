package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
)

// compactWorkspace has two completed weeks of logs for beacon and returns
// the project folder holding .teammates.
func compactWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"beacon/SOUL.md": "# Beacon — Search engineer\n",
	}
	for d := 2; d <= 15; d++ {
		day := fmt.Sprintf("2026-11-%02d", d)
		files["beacon/memory/"+day+".md"] = "# " + day + "\n\n## Worked on recall\n\n- Tuned ranking\n- Decision: ship it on " + day + "\n"
	}
	for rel, content := range files {
		p := filepath.Join(dir, layout.DirName, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCompactCmd(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // substring; "" means stdout must be empty
		stderr     string // substring; "" means stderr must be empty
		compacted  bool
		lockHeld   bool
		withConfig string
	}{
		{name: "quiet on success", args: []string{"compact", "--all"}, compacted: true},
		{name: "verbose reports", args: []string{"compact", "-v"}, stderr: "compacted: 2 units", compacted: true},
		{name: "dry run prints the plan and changes nothing", args: []string{"compact", "--dry-run"}, stdout: "beacon/weekly/2026-W45: create beacon/memory/archive/2026-11.md; create beacon/memory/weekly/2026-W45.md; leave 7 as stubs"},
		{name: "json result", args: []string{"compact", "--json", "--teammate", "beacon", "--episodic"}, stdout: `"deleted": [`, compacted: true},
		{name: "second compaction is refused", args: []string{"compact"}, lockHeld: true, code: 4, stderr: "another tmem compact is running"},
		{name: "teammate and all exclude each other", args: []string{"compact", "--all", "--teammate", "beacon"}, code: 2, stderr: "exclude each other"},
		{name: "unknown summarizer", args: []string{"compact", "--summarizer", "magic"}, code: 2, stderr: "want one of extractive, command, openai"},
		{name: "command summarizer needs config", args: []string{"compact", "--summarizer", "command"}, code: 2, stderr: "set compact.command"},
		{name: "unknown teammate", args: []string{"compact", "--teammate", "nobody"}, code: 2, stderr: "unknown teammate"},
		{name: "bad config", args: []string{"compact"}, withConfig: "compact: [", code: 1, stderr: "tmem.yaml"},
		{name: "a typo in the config is named", args: []string{"compact"}, withConfig: "compact:\n  keep_recent_days: 7\n  kep_weeks: 3\n", stderr: "tmem: tmem.yaml:3: unknown key \"kep_weeks\": tmem ignores it (a typo?)\n", compacted: true},
		{name: "a typo in the config under -q", args: []string{"compact", "-q"}, withConfig: "compact:\n  kep_weeks: 3\n", compacted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := compactWorkspace(t)
			ws, err := layout.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tt.withConfig != "" {
				if err := os.WriteFile(filepath.Join(ws.Root, compact.ConfigFile), []byte(tt.withConfig), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.lockHeld { // as a compaction under way holds them
				for _, name := range []string{compact.RunLockName, compact.LockName} {
					unlock, ok, err := ws.TryLockWorkspace(name)
					if err != nil || !ok {
						t.Fatalf("lock %s: %v %v", name, ok, err)
					}
					defer unlock()
				}
			}
			args := append([]string{"--dir", dir, "--now", "2026-11-18"}, tt.args...)
			code, stdout, stderr := runTmem(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			for _, c := range []struct{ name, got, want string }{{"stdout", stdout, tt.stdout}, {"stderr", stderr, tt.stderr}} {
				if c.want == "" && c.got != "" || !strings.Contains(c.got, c.want) {
					t.Errorf("%s = %q, want it to contain %q", c.name, c.got, c.want)
				}
			}
			if tt.name == "json result" {
				var res compact.Result
				if err := json.Unmarshal([]byte(stdout), &res); err != nil {
					t.Errorf("--json output does not parse: %v", err)
				}
			}
			_, err = os.Stat(filepath.Join(ws.Root, "beacon/memory/weekly/2026-W45.md"))
			if got := err == nil; got != tt.compacted {
				t.Errorf("weekly written = %v, want %v", got, tt.compacted)
			}
		})
	}
}
