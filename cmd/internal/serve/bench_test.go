package serve

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmemhq/tmem/internal/filecache"
	"github.com/tmemhq/tmem/internal/textcorpus"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/recall/benchgen"
)

// benchService serves the three-year generated workspace (5 teammates,
// BM25 only), synced and watched, bound to its first teammate.
func benchService(b *testing.B) *Service {
	b.Helper()
	dir := b.TempDir()
	if _, err := benchgen.Generate(dir, benchgen.Options{}); err != nil {
		b.Fatal(err)
	}
	ws, err := layout.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ws.CacheTeammates(time.Now) // as tmem serve does
	now := func() time.Time { return time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC) }
	ix, err := recall.Open(ws, recall.Options{Now: now, FileClock: time.Now})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	mates, err := ws.Teammates()
	if err != nil || len(mates) == 0 {
		b.Fatalf("no teammates generated: %v", err)
	}
	svc, err := New(Options{Workspace: ws, Index: ix, Now: now, FileClock: time.Now, Teammate: mates[0].Name})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	if err := svc.Watch(); err != nil {
		b.Fatal(err)
	}
	svc.Warm(context.Background())
	// Files changed within the racy window are read on every call; a
	// workspace in use has settled long before.
	time.Sleep(filecache.RacyWindow)
	return svc
}

var benchTasks = []string{"Why did the ETA rollover test fail on CI?", "carrier events ingest backlog", "release freeze decision", "customer dates in reports", "search latency p95 regression"}

// BenchmarkContext measures a warm memory_context in-process, on the
// three-year generated workspace: the service call alone (call), and
// through the SDK's client and server over in-memory transports (mcp),
// which adds the JSON encoding of the result on both sides. Profile it
// with -cpuprofile and -memprofile.
func BenchmarkContext(b *testing.B) {
	svc := benchService(b)
	ctx := context.Background()
	for i := range benchTasks { // warm: first queries, token counts
		if _, err := svc.Context(ctx, ContextInput{Task: benchTasks[i]}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := svc.Context(ctx, ContextInput{Task: benchTasks[i%len(benchTasks)]}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		cs := benchSession(b, svc)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_context", Arguments: map[string]any{"task": benchTasks[i%len(benchTasks)]}})
			if err != nil || res.IsError {
				b.Fatalf("memory_context: %v %v", err, res)
			}
		}
	})
}

// BenchmarkContextHugeTask measures memory_context for a task that is a
// pasted 2.8 MB log, as BenchmarkContext does. Each call's task starts
// with a number of its own, so that no count of an earlier task is reused.
func BenchmarkContextHugeTask(b *testing.B) {
	svc := benchService(b)
	ctx := context.Background()
	log := textcorpus.Log(rand.New(rand.NewPCG(28, 2026)), 2_800_000)
	calls := 0
	task := func() string {
		calls++
		return strconv.Itoa(calls) + " " + log
	}
	b.Run("call", func(b *testing.B) {
		b.SetBytes(int64(len(log)))
		for i := 0; i < b.N; i++ {
			if _, err := svc.Context(ctx, ContextInput{Task: task()}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		cs := benchSession(b, svc)
		b.SetBytes(int64(len(log)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_context", Arguments: map[string]any{"task": task()}})
			if err != nil || res.IsError {
				b.Fatalf("memory_context: %v %v", err, res)
			}
		}
	})
}

// benchSession connects the SDK's client to the service's server over
// in-memory transports.
func benchSession(b *testing.B, svc *Service) *mcp.ClientSession {
	b.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := svc.Server().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}
