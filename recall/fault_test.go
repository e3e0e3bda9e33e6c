package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/hashembed"
)

// saboteur cuts the files matching glob to nothing as the first search
// after it is armed starts embedding its query (its "embed" phase): the
// search has them open and mapped already.
type saboteur struct {
	glob  string
	armed bool
}

func (s *saboteur) trace(phase string) func() {
	if s.armed && phase == "embed" {
		s.armed = false
		files, _ := filepath.Glob(s.glob)
		for _, f := range files {
			if err := os.Truncate(f, 0); err != nil {
				panic(err)
			}
		}
	}
	return func() {}
}

// faultTargets are the files a fault test cuts short under a search.
var faultTargets = map[string]string{
	"fault-segments": "beacon/.index/bleve/store/*.zap",
	"fault-vectors":  "beacon/.index/" + vectorsFile,
}

// fault searches once with a whole index, then again with a saboteur
// that cuts mapped files short mid-search, and prints both answers and
// the notices as JSON.
func fault(dir, op string) int {
	ws, err := layout.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var warn bytes.Buffer
	sab := &saboteur{glob: filepath.Join(ws.Root, filepath.FromSlash(faultTargets[op]))}
	ix, err := Open(ws, Options{Embedder: hashembed.Embedder{}, Trace: sab.trace, Now: func() time.Time { return fixtureNow }, Warn: &warn})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ix.Close()
	var res probePass
	for _, armed := range []bool{false, true} {
		sab.armed = armed
		hits, err := ix.Search(context.Background(), Query{Text: probeQueries[0], Teammates: []string{"beacon"}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		res.Hits = append(res.Hits, hits)
	}
	res.Warn = warn.String()
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestFaultUnderSearch cuts files short while a search has them mapped:
// reading them faults (SIGBUS), which must become a rebuild and a correct
// answer, not a dead process. The search runs in a child process.
func TestFaultUnderSearch(t *testing.T) {
	for _, op := range []string{"fault-segments", "fault-vectors"} {
		t.Run(op, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "TMEM_RECALL_CHILD_WS="+ws.Root, "TMEM_RECALL_CHILD_OP="+op)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, lastLines(errb.String(), 12))
			}
			var res probePass
			if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Hits) != 2 {
				t.Fatalf("output %q: %v", out.String(), err)
			}
			if got, want := mustJSON(t, res.Hits[1]), mustJSON(t, res.Hits[0]); got != want {
				t.Errorf("search under the fault answered\n%s\nwant\n%s", got, want)
			}
			if !strings.Contains(res.Warn, "rebuilding the searched indexes") || !strings.Contains(res.Warn, "index library failed") {
				t.Errorf("notices %q, want one saying the indexes were rebuilt after the library failed", res.Warn)
			}
		})
	}
}
