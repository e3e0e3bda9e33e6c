package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// Whole-process benchmarks: a built tmem binary, started as an agent CLI or
// cron would start it, on the bundled example with the MiniLM-shaped test
// model. Each reports wall time per run and the largest peak RSS seen.
//
//	go test ./cmd/tmem -run '^$' -bench Process -benchtime 5x
//
// Both build with CGO_ENABLED=0, as a default install does; BenchmarkProcessORT
// needs TMEM_ORT_LIB.

// tmemBinary builds cmd/tmem into a temporary folder without cgo.
func tmemBinary(b *testing.B) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "tmem")
	cmd := exec.Command("go", "build", "-o", p, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return p
}

// processRun is one started tmem.
type processRun struct {
	bin, dir, model, backend string
}

// run starts tmem with args and returns its peak RSS in KiB.
func (p processRun) run(b *testing.B, args ...string) int64 {
	b.Helper()
	cmd := exec.Command(p.bin, append([]string{"--dir", p.dir, "--model", p.model, "-q"}, args...)...)
	cmd.Env = append(os.Environ(), "TMEM_BACKEND="+p.backend)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("tmem %v: %v\n%s", args, err, stderr.String())
	}
	rss, ok := peakRSS(cmd.ProcessState)
	if !ok {
		b.Skip("no peak RSS on this platform")
	}
	return rss
}

func benchProcesses(b *testing.B, backend string) {
	if backend == "ort" {
		minilmtest.RequireORT(b)
	}
	p := processRun{bin: tmemBinary(b), model: minilmtest.FullModel(b), backend: backend}
	const task = "Why did the ETA rollover test fail on CI?"
	cases := []struct {
		name string
		args []string
		// fresh runs every iteration on a copy with no index.
		fresh bool
	}{
		{"index", []string{"index"}, true},
		{"recall", []string{"recall", "--teammate", "beacon", task}, false},
		{"context", []string{"--now", "2026-11-20T10:00:00Z", "context", "--teammate", "beacon", task}, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p.dir = layouttest.Copy(b, "../../testdata/example/.teammates").Root
			if !c.fresh {
				p.run(b, "index")
			}
			var peak int64
			b.ResetTimer()
			for b.Loop() {
				if c.fresh {
					b.StopTimer()
					p.dir = layouttest.Copy(b, "../../testdata/example/.teammates").Root
					b.StartTimer()
				}
				peak = max(peak, p.run(b, c.args...))
			}
			b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
		})
	}
}

func BenchmarkProcessGo(b *testing.B)  { benchProcesses(b, "go") }
func BenchmarkProcessORT(b *testing.B) { benchProcesses(b, "ort") }
