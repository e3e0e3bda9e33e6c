package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmemhq/tmem/internal/filecache"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

// dailyEntries reads a daily log as heading → entry text.
func dailyEntries(t *testing.T, path string) map[string][]string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := layout.Parse(path, src) // reads past entry stamps
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, e := range d.Entries {
		out[e.Heading] = append(out[e.Heading], e.Text)
	}
	return out
}

// TestServeConcurrent runs 8 clients of one server, 100 calls each,
// mixing logs, typed memories and searches, beside a CLI tmem log loop:
// every entry and memory must be there, whole, once.
func TestServeConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a server and many processes; skipped under -short")
	}
	dir := exampleWorkspace(t)
	url := startHTTP(t, dir, nil)
	const clients, calls, cliLogs = 8, 100, 20
	var wg sync.WaitGroup
	errs := make(chan error, clients+1)
	for c := 0; c < clients; c++ {
		cs, err := connectHTTP(t, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < calls; j++ {
				if err := concurrentCall(cs, c, j); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; k < cliLogs; k++ {
			cmd := serveCLI(t, dir, "log", "--teammate", "beacon", "--heading", fmt.Sprintf("cli-%d", k), fmt.Sprintf("cli body %d", k))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("tmem log: %v\n%s", err, out)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	entries := dailyEntries(t, filepath.Join(dir, "beacon/memory/2026-11-20.md"))
	want := map[string]string{}
	for c := 0; c < clients; c++ {
		for j := 0; j < calls; j += 3 {
			want[fmt.Sprintf("c%d-%d", c, j)] = fmt.Sprintf("served body %d %d", c, j)
		}
	}
	for k := 0; k < cliLogs; k++ {
		want[fmt.Sprintf("cli-%d", k)] = fmt.Sprintf("cli body %d", k)
	}
	for head, body := range want {
		if got := entries[head]; len(got) != 1 || got[0] != body {
			t.Errorf("entry %q: found %q, want %q once", head, got, body)
		}
	}
	for c := 0; c < clients; c++ {
		for j := 1; j < calls; j += 3 {
			p := filepath.Join(dir, "beacon/memory", fmt.Sprintf("project_c%d_n%d.md", c, j))
			b, err := os.ReadFile(p)
			if err != nil || !strings.HasSuffix(strings.TrimSpace(string(b)), fmt.Sprintf("memory body %d %d", c, j)) {
				t.Errorf("%s: %v %q", p, err, b)
			}
		}
	}
}

// concurrentCall is call j of client c: a log, a typed memory or a search.
func concurrentCall(cs *mcp.ClientSession, c, j int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var p mcp.CallToolParams
	switch j % 3 {
	case 0:
		p = mcp.CallToolParams{Name: "memory_log", Arguments: map[string]any{"teammate": "beacon", "heading": fmt.Sprintf("c%d-%d", c, j), "text": fmt.Sprintf("served body %d %d", c, j)}}
	case 1:
		p = mcp.CallToolParams{Name: "memory_remember", Arguments: map[string]any{"teammate": "beacon", "type": "project", "topic": fmt.Sprintf("c%d n%d", c, j),
			"name": fmt.Sprintf("Memory %d %d", c, j), "description": "concurrent", "body": fmt.Sprintf("memory body %d %d", c, j)}}
	default:
		p = mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "bulk container lookup", "teammates": []string{"beacon"}}}
	}
	res, err := cs.CallTool(ctx, &p)
	if err != nil {
		return fmt.Errorf("client %d call %d %s: %w", c, j, p.Name, err)
	}
	if res.IsError {
		return fmt.Errorf("client %d call %d %s: %s", c, j, p.Name, resultText(res))
	}
	return nil
}

// hitRanges are a search's hits as path:start-end, best first.
func hitRanges(t *testing.T, raw []byte) []string {
	t.Helper()
	var hits []struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	if err := json.Unmarshal(raw, &hits); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d-%d", h.Path, h.StartLine, h.EndLine))
	}
	return out
}

// TestServeFreshness changes files behind the server's back (edit, add,
// delete, rename); each next answer must be what a fresh CLI recall gives
// on the same files.
func TestServeFreshness(t *testing.T) {
	dir := exampleWorkspace(t)
	cs := startStdio(t, dir, "--teammate", "beacon")
	mem := filepath.Join(dir, "beacon", "memory")
	write := func(name, body string) func(t *testing.T) {
		return func(t *testing.T) {
			doc := "---\nname: " + name + "\ndescription: freshness\ntype: project\n---\n\n" + body + "\n"
			if err := os.WriteFile(filepath.Join(mem, "project_"+name+".md"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []struct {
		name   string
		change func(t *testing.T)
		query  string
	}{
		{"add", write("zephyr", "The zephyr queue drains carrier events."), "zephyr queue"},
		{"edit", func(t *testing.T) {
			p := filepath.Join(mem, "project_bulk_lookup.md")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(b, "\nThe zephyr lookup batches quasar requests.\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "zephyr quasar"},
		{"rename", func(t *testing.T) {
			if err := os.Rename(filepath.Join(mem, "project_zephyr.md"), filepath.Join(mem, "project_zephyr_queue.md")); err != nil {
				t.Fatal(err)
			}
		}, "zephyr queue"},
		{"delete", func(t *testing.T) {
			if err := os.Remove(filepath.Join(mem, "project_bulk_lookup.md")); err != nil {
				t.Fatal(err)
			}
		}, "zephyr quasar bulk lookup"},
		{"new folder", func(t *testing.T) {
			if err := os.MkdirAll(filepath.Join(mem, "weekly"), 0o755); err != nil {
				t.Fatal(err)
			}
			wk := "---\ntype: weekly\nweek: 2026-W44\nteammate: beacon\nperiod: 2026-10-26 to 2026-11-01\n---\n\n# Week 2026-W44\n\n## 2026-10-27 Tuesday\n- Zephyr nebula rollout finished.\n"
			if err := os.WriteFile(filepath.Join(mem, "weekly", "2026-W44.md"), []byte(wk), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "zephyr nebula rollout"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change(t)
			var out struct {
				Hits []struct {
					Ref string `json:"ref"`
				} `json:"hits"`
			}
			toolOK(t, cs, "memory_search", map[string]any{"query": st.query}, &out)
			var got []string
			for _, h := range out.Hits {
				got = append(got, h.Ref)
			}
			want := hitRanges(t, []byte(runCLI(t, dir, "--json", "recall", "--teammate", "beacon", st.query)))
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("server answered\n  %v\nfresh CLI recall answered\n  %v", got, want)
			}
		})
	}
}

// TestServeContextFreshness changes the files a stack shows behind the
// server's back; each next memory_context must be what tmem context
// prints on the same files. The files settle first (older than
// filecache.RacyWindow), so that the server keeps them between calls, and
// every edit keeps the file's size and mtime: only the inode change time
// says that it changed.
func TestServeContextFreshness(t *testing.T) {
	dir := exampleWorkspace(t)
	time.Sleep(filecache.RacyWindow + 100*time.Millisecond)
	cs := startStdio(t, dir, "--teammate", "beacon")
	task := "What must be on staging for the Kestrel demo?"
	edit := func(rel, from, to string) func(t *testing.T) {
		return func(t *testing.T) {
			layouttest.EditKeepingTimes(t, filepath.Join(dir, filepath.FromSlash(rel)), from, to)
		}
	}
	steps := []struct {
		name   string
		change func(t *testing.T)
		want   string // in the stack
	}{
		{"first call", nil, "Swap aliases, never indexes"},
		{"unchanged", nil, "Swap aliases, never indexes"},
		{"WISDOM.md edited", edit("beacon/WISDOM.md", "never indexes", "NEVER INDEXES"), "NEVER INDEXES"},
		{"today's log edited", edit("beacon/memory/2026-11-20.md", "Merged the fix", "MERGED THE FIX"), "MERGED THE FIX"},
		{"a recalled memory edited", edit("beacon/memory/project_bulk_lookup.md", "on staging", "ON STAGING"), "ON STAGING"},
		{"GOALS.md removed", func(t *testing.T) {
			if err := os.Remove(filepath.Join(dir, "beacon", "GOALS.md")); err != nil {
				t.Fatal(err)
			}
		}, "GOALS.md` does not exist yet"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.change != nil {
				st.change(t)
			}
			res := callTool(t, cs, "memory_context", map[string]any{"task": task})
			got := resultText(res)
			if res.IsError {
				t.Fatalf("memory_context: %s", got)
			}
			if want := runCLI(t, dir, "-q", "context", "--teammate", "beacon", task); got != want {
				t.Errorf("server's stack differs from tmem context:\n--- server\n%s\n--- cli\n%s", got, want)
			}
			if !strings.Contains(got, st.want) {
				t.Errorf("the stack does not show %q", st.want)
			}
		})
	}
}

// TestServeCrash kills the server with SIGKILL while it writes: no file
// may be torn, and the next server must start and answer.
func TestServeCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a server process; skipped under -short")
	}
	dir := exampleWorkspace(t)
	cmd, stderr := serveCmd(t, dir, "--teammate", "beacon")
	client := mcp.NewClient(&mcp.Implementation{Name: "tmem-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	body := func(k int) string { return strings.Repeat(fmt.Sprintf("crash body %d. ", k), 4000) }
	written := map[string]bool{}
	var mu sync.Mutex
	write := func(k int) error {
		mu.Lock()
		written[strings.TrimSpace(body(k))] = true
		mu.Unlock()
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_remember", Arguments: map[string]any{
			"type": "project", "topic": "crash", "name": "Crash", "description": "d", "body": body(k), "mode": "overwrite"}})
		if err == nil {
			_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_log", Arguments: map[string]any{
				"heading": fmt.Sprintf("crash-%d", k), "text": body(k)}})
		}
		return err
	}
	for k := 0; k < 10; k++ {
		if err := write(k); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := 10; write(k) == nil; k++ {
		}
	}()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-done
	cs.Close()
	checkNoRace(t, stderr.String())

	src, err := os.ReadFile(filepath.Join(dir, "beacon/memory/project_crash.md"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := layout.Parse("project_crash.md", src)
	if err != nil || !written[strings.TrimSpace(string(d.ReadableBody()))] {
		t.Errorf("project_crash.md is torn: %d bytes, body not one that was written", len(src))
	}
	for head, texts := range dailyEntries(t, filepath.Join(dir, "beacon/memory/2026-11-20.md")) {
		for _, text := range texts {
			if strings.HasPrefix(head, "crash-") && !written[text] {
				t.Errorf("entry %s is torn (%d bytes)", head, len(text))
			}
		}
	}
	next := startStdio(t, dir, "--teammate", "beacon")
	var out struct {
		Path string `json:"path"`
	}
	toolOK(t, next, "memory_log", map[string]any{"heading": "after the crash", "text": "the lock was free"}, &out)
	var found struct {
		Hits []struct {
			Path string `json:"path"`
		} `json:"hits"`
	}
	toolOK(t, next, "memory_search", map[string]any{"query": "crash body"}, &found)
	if len(found.Hits) == 0 || found.Hits[0].Path != "beacon/memory/project_crash.md" {
		t.Errorf("search after the crash: %+v", found.Hits)
	}
}

// TestServeBarrierFolderLinkedOutside: a link to a folder outside the
// workspace, swapped in for .tmp/serve while the server runs, gets none
// of the server's barrier files (a search that nothing has changed since
// the last one makes one); searches still see what another process
// writes.
func TestServeBarrierFolderLinkedOutside(t *testing.T) {
	dir := exampleWorkspace(t)
	cs := startStdio(t, dir)
	var out struct {
		Hits []struct{ Path string } `json:"hits"`
	}
	toolOK(t, cs, "memory_search", map[string]any{"query": "bulk container lookup"}, &out)
	barriers, outside := filepath.Join(dir, ".tmp", "serve"), t.TempDir()
	if err := os.RemoveAll(barriers); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, barriers); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	toolOK(t, cs, "memory_search", map[string]any{"query": "bulk container lookup"}, &out)
	if ents, err := os.ReadDir(outside); err != nil || len(ents) > 0 {
		t.Errorf("the folder outside holds %v (%v), want nothing", ents, err)
	}
	runCLI(t, dir, "remember", "--teammate", "beacon", "--type", "project", "--topic", "quokka",
		"--name", "Quokka", "--description", "d", "The quokka ledger closes on Fridays.")
	toolOK(t, cs, "memory_search", map[string]any{"query": "quokka ledger"}, &out)
	if len(out.Hits) == 0 || out.Hits[0].Path != "beacon/memory/project_quokka.md" {
		t.Errorf("hits %v, want the memory written meanwhile first", out.Hits)
	}
}
