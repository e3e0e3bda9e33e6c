package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// TestMain lets the concurrency test re-run this binary as a second
// process that indexes and searches.
func TestMain(m *testing.M) {
	if dir := os.Getenv("TMEM_RECALL_CHILD_WS"); dir != "" {
		os.Exit(child(dir, os.Getenv("TMEM_RECALL_CHILD_OP")))
	}
	code := m.Run()
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// child opens the workspace, runs op ("rebuild" or "search", or one of
// the corruption test's probes) and prints the hit paths of a search as
// JSON.
func child(dir, op string) int {
	switch {
	case strings.HasPrefix(op, "probe-"):
		return probe(dir, op)
	case strings.HasPrefix(op, "fault-"):
		return fault(dir, op)
	case strings.HasPrefix(op, "fulldisk-"):
		return fullDisk(dir, op)
	}
	ws, err := layout.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ix, err := Open(ws, Options{Now: func() time.Time { return fixtureNow }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	if op == "rebuild" {
		if _, err := ix.Rebuild(ctx, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	hits, err := ix.Search(ctx, Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, RecencyDepth: -1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(paths(hits))
	return 0
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes; skipped under -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, "ws")
	for round, ops := range [][]string{{"search", "search"}, {"rebuild", "search"}, {"search", "rebuild", "search"}} {
		t.Run(fmt.Sprintf("round %d %s", round, strings.Join(ops, "+")), func(t *testing.T) {
			var cmds []*exec.Cmd
			var outs []*strings.Builder
			for _, op := range ops {
				cmd := exec.Command(exe, "-test.run=^$")
				cmd.Env = append(os.Environ(), "TMEM_RECALL_CHILD_WS="+ws.Root, "TMEM_RECALL_CHILD_OP="+op)
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, cmd)
				outs = append(outs, &out)
				defer func(op string, e *strings.Builder) {
					if e.Len() > 0 {
						t.Logf("%s stderr: %s", op, e)
					}
				}(op, &errb)
			}
			for i, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Errorf("process %d (%s): %v", i, ops[i], err)
					continue
				}
				var got []string
				if err := json.Unmarshal([]byte(outs[i].String()), &got); err != nil {
					t.Errorf("process %d output %q: %v", i, outs[i], err)
					continue
				}
				if len(got) == 0 || got[0] != "beacon/memory/project_bulk_lookup.md" {
					t.Errorf("process %d (%s) hits %v", i, ops[i], got)
				}
			}
		})
	}
}
