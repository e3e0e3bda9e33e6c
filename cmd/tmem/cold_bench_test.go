package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall/minilm/minilmtest"
)

// BenchmarkProcessCold starts tmem as an agent CLI does before each task,
// on the bundled example with its index synced, and reports the wall time
// per run and, from the -v timing line, each stage's mean in ms: start
// (process start to main, and exit), then the stages of timing.go (the
// model's, timed aside, overlap the others).
//
//	go test ./cmd/tmem -run '^$' -bench ProcessCold -benchtime 20x
//
// "model" cases use a copy of the committed tiny model on the Go backend: a
// no-change sync and a BM25-only search never open it, a hybrid search opens
// it once. The "ort" case opens a copy of the MiniLM-shaped model with ONNX
// Runtime (it needs TMEM_ORT_LIB), its optimised graph cached by the first
// index.
func BenchmarkProcessCold(b *testing.B) {
	bin := tmemBinary(b)
	const task = "Why did the ETA rollover test fail on CI?"
	ctxArgs := []string{"--now", "2026-11-20T10:00:00Z", "context", "--teammate", "beacon"}
	cases := []struct {
		name  string
		model coldModel
		args  []string
	}{
		{"context/bm25", noModel, append(ctxArgs, task)},
		{"context/bm25-chars4", noModel, append(ctxArgs, "--tokenizer", "chars4", task)},
		{"recall/bm25", noModel, []string{"recall", "--teammate", "beacon", task}},
		{"index/no-change-with-model", tinyGo, []string{"index"}},
		{"context/hybrid-tiny-model", tinyGo, append(ctxArgs, task)},
		{"context/hybrid-ort", fullORT, append(ctxArgs, task)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			env := coldEnv(b, c.model)
			dir := layouttest.Copy(b, "../../testdata/example/.teammates").Root
			runCold(b, bin, dir, env, "index")
			sums := map[string]float64{}
			b.ResetTimer()
			for b.Loop() {
				for k, v := range runCold(b, bin, dir, env, c.args...) {
					sums[k] += v
				}
			}
			b.StopTimer()
			wall := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
			for _, k := range append([]string{"main", "other"}, stageOrder...) {
				b.ReportMetric(sums[k]/float64(b.N), k+"-ms")
			}
			b.ReportMetric(wall-sums["main"]/float64(b.N), "start-ms")
		})
	}
}

// coldModel is the model a cold run finds.
type coldModel int

const (
	noModel coldModel = iota
	tinyGo            // the tiny model on the Go backend
	fullORT           // the MiniLM-shaped model on ONNX Runtime
)

// coldEnv is the environment of a cold run: a home with no model, or
// TMEM_MODEL set to a copy of the tiny or the MiniLM-shaped model.
func coldEnv(b *testing.B, model coldModel) []string {
	b.Helper()
	home := b.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME=", "TMEM_MODEL=")
	src, backend := minilmtest.TinyDir(), "go"
	switch model {
	case noModel:
		return append(env, "TMEM_BACKEND=go")
	case fullORT:
		minilmtest.RequireORT(b)
		src, backend = minilmtest.FullModel(b), "ort"
	}
	dir := filepath.Join(home, "model")
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		b.Fatalf("copy the model: %v\n%s", err, out)
	}
	// The copy starts with no optimised-graph cache of its own.
	if err := os.RemoveAll(filepath.Join(dir, ".tmem-ort-cache")); err != nil {
		b.Fatal(err)
	}
	return append(env, "TMEM_MODEL="+dir, "TMEM_BACKEND="+backend)
}

// runCold runs tmem -v and returns the timing line's numbers by stage
// ("main" is the time since main).
func runCold(b *testing.B, bin, dir string, env []string, args ...string) map[string]float64 {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"--dir", dir, "-v"}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("tmem %v: %v\n%s", args, err, stderr.String())
	}
	out := map[string]float64{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		rest, ok := strings.CutPrefix(line, "timing: ")
		if !ok {
			continue
		}
		total, stages, _ := strings.Cut(rest, " ms since main: ")
		out["main"], _ = strconv.ParseFloat(total, 64)
		for _, st := range strings.Split(stages, ", ") {
			name, v, _ := strings.Cut(st, " ")
			out[name], _ = strconv.ParseFloat(v, 64)
		}
	}
	return out
}
