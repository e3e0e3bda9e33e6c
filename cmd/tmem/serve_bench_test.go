package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// BenchmarkServe measures tool calls through the SDK's MCP client over
// stdio against a built tmem serve on a generated three-year workspace
// (tmem bench gen), warm: memory_context and memory_search latency
// (p50, p95) and the server's RSS before and after the calls. Backends:
// bm25 (no model), go and ort (MiniLM-shaped model; ort needs
// TMEM_ORT_LIB). ort-backlog skips tmem index: the server's warm-up sync
// indexes for BM25 only and the calls run while its background worker
// embeds the backlog; novec-hits-% is the share of search hits that had no
// vector yet. SERVE_BENCH_CALLS sets the calls per tool (default 200).
func BenchmarkServe(b *testing.B) {
	for _, backend := range []string{"bm25", "go", "ort", "ort-backlog"} {
		b.Run(backend, func(b *testing.B) { benchServe(b, backend) })
	}
}

func benchServe(b *testing.B, backend string) {
	backlog := backend == "ort-backlog"
	if backlog {
		backend = "ort"
	}
	ort := backend == "ort"
	if ort && os.Getenv("TMEM_ORT_LIB") == "" {
		b.Skip("set TMEM_ORT_LIB (see .ci/setup-embed)")
	}
	bin := tmemBinary(b)
	root := filepath.Join(b.TempDir(), "ws")
	if out, err := exec.Command(bin, "bench", "gen", "--teammates", "5", "--years", "3", root).CombinedOutput(); err != nil {
		b.Fatalf("bench gen: %v\n%s", err, out)
	}
	dir := filepath.Join(root, ".teammates")
	env := append(os.Environ(), "TMEM_BACKEND="+backend, "TMEM_NOW=2026-11-20T10:00:00Z")
	args := []string{"--dir", dir, "-q"}
	if backend != "bm25" {
		args = append(args, "--model", minilmtest.FullModel(b))
	} else {
		env = append(env, "TMEM_MODEL="+b.TempDir())
	}
	if !backlog {
		index := exec.Command(bin, append(args, "index")...)
		index.Env = env
		if out, err := index.CombinedOutput(); err != nil {
			b.Fatalf("index: %v\n%s", err, out)
		}
	}
	mate := firstTeammate(b, dir)
	cmd := exec.Command(bin, append(args, "serve", "--teammate", mate)...)
	cmd.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	n := 200
	if s := os.Getenv("SERVE_BENCH_CALLS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	tasks := []string{"Why did the ETA rollover test fail on CI?", "carrier events ingest backlog", "release freeze decision", "customer dates in reports", "search latency p95 regression"}
	hits, novec := 0, 0
	call := func(name string, i int) time.Duration {
		a := map[string]any{"task": tasks[i%len(tasks)]}
		if name == "memory_search" {
			a = map[string]any{"query": tasks[i%len(tasks)]}
		}
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: a})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
		if out, ok := res.StructuredContent.(map[string]any); ok && name == "memory_search" {
			hs, _ := out["hits"].([]any)
			for _, h := range hs {
				hits++
				if m, _ := h.(map[string]any); m["no_vector"] == true {
					novec++
				}
			}
		}
		return d
	}
	for i := 0; i < 10; i++ { // warm: tokenizer, first queries
		call("memory_context", i)
		call("memory_search", i)
	}
	rss0 := rssKiB(b, cmd.Process.Pid)
	b.ResetTimer()
	for _, name := range []string{"memory_context", "memory_search"} {
		var ds []time.Duration
		for i := 0; i < n; i++ {
			ds = append(ds, call(name, i))
		}
		slices.Sort(ds)
		short := strings.TrimPrefix(name, "memory_")
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, short+"-p50-ms")
		b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, short+"-p95-ms")
	}
	if hits > 0 {
		b.ReportMetric(100*float64(novec)/float64(hits), "novec-hits-%")
	}
	b.ReportMetric(float64(rss0)/1024, "RSS-before-MiB")
	b.ReportMetric(float64(rssKiB(b, cmd.Process.Pid))/1024, "RSS-after-MiB")
}

func firstTeammate(b *testing.B, dir string) string {
	b.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "templates" {
			return e.Name()
		}
	}
	b.Fatal("no teammate generated")
	return ""
}

// rssKiB reads a process's resident set size from /proc.
func rssKiB(b *testing.B, pid int) int64 {
	b.Helper()
	src, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(src), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib
		}
	}
	return 0
}
