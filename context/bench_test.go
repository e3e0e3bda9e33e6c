package context

import (
	"context"
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/context/internal/bpe"
	"github.com/tmemhq/tmem/internal/textcorpus"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
	"github.com/tmemhq/tmem/templates"
)

// fixedRecaller returns the same hits for every query, like a warm index
// once the query is embedded.
type fixedRecaller struct{ hits []recall.Hit }

func (f fixedRecaller) Search(context.Context, recall.Query) ([]recall.Hit, error) {
	return append([]recall.Hit(nil), f.hits...), nil
}

func (fixedRecaller) HasVectors() bool { return true }

// threeYears writes a teammate with three years of memory: a daily log on
// most days (never compacted, the worst case for listing), weekly and
// monthly summaries and 200 typed memories, and returns recall hits over
// the summaries and typed memories.
func threeYears(b *testing.B, now time.Time) (*layout.Workspace, []recall.Hit) {
	b.Helper()
	rng := rand.New(rand.NewSource(3))
	files := map[string]string{
		"old/SOUL.md":   "---\nrole: Long-serving engineer\n---\n# Old\n\n## Identity\n\n" + sentence(rng, 200) + "\n",
		"old/GOALS.md":  "# Goals\n\n## This quarter\n\n" + sentence(rng, 150) + "\n",
		"old/WISDOM.md": "# Wisdom\n\n" + strings.Repeat("## Rule\n\n"+sentence(rng, 60)+"\n\n", 25),
	}
	for d := 0; d < 3*365; d++ {
		if d%7 == 6 {
			continue
		}
		day := now.AddDate(0, 0, -d)
		var s strings.Builder
		s.WriteString("# " + day.Format(layout.DateLayout) + "\n")
		for e := 0; e < 5; e++ {
			fmt.Fprintf(&s, "\n## Work item %d\n\n%s\n\n- %s\n- %s\n", e, sentence(rng, 600), sentence(rng, 20), sentence(rng, 20))
		}
		files[layout.DailyPath("old", day)] = s.String()
	}
	var hits []recall.Hit
	for w := 1; w <= 3*52; w++ {
		wk := layout.WeekOf(now.AddDate(0, 0, -7*w))
		rel := layout.WeeklyPath("old", wk)
		body := sentence(rng, 180)
		files[rel] = "---\ntype: weekly\nweek: " + wk.String() + "\n---\n" + body + "\n"
		if w <= 6 {
			hits = append(hits, recall.Hit{Teammate: "old", Path: rel, Kind: "weekly", Date: wk.Start().Format(layout.DateLayout), StartLine: 5, EndLine: 5, Score: 0.5 - float64(w)/100, Reason: []string{"recency"}, Text: body})
		}
	}
	for i := 0; i < 200; i++ {
		typ := layout.Types[i%4]
		rel := fmt.Sprintf("old/memory/%s_topic_%03d.md", typ, i)
		body := sentence(rng, 80+rng.Intn(200))
		files[rel] = fmt.Sprintf("---\nname: Topic %d\ndescription: d\ntype: %s\n---\n%s\n", i, typ, body)
		if i < 14 {
			hits = append(hits, recall.Hit{Teammate: "old", Path: rel, Kind: "typed", Type: typ, Name: fmt.Sprintf("Topic %d", i), StartLine: 6, EndLine: 6, Score: 0.9 - float64(i)/50, Reason: []string{"bm25", "vector", "boost"}, Text: body})
		}
	}
	if dir := os.Getenv("TMEM_BENCH_KEEP"); dir != "" { // keep a copy to time whole tmem processes on
		for rel, body := range files {
			p := filepath.Join(dir, ".teammates", filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return writeFiles(b, files), hits
}

// BenchmarkBuild builds the stack of a teammate with three years of
// memory, recall already answered. "warm" reuses the tokenizer's count
// cache across builds, as a long-running host does; "uncached" counts
// every section afresh, as one tmem context process does.
func BenchmarkBuild(b *testing.B) {
	now := time.Date(2027, 6, 15, 10, 0, 0, 0, time.UTC)
	ws, hits := threeYears(b, now)
	if _, err := templates.Read(ws.Templates(), templates.Instructions); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		fresh func() Tokenizer
	}{
		{"warm", func() Tokenizer { return mustTokenizer(b, O200k) }},
		{"uncached", func() Tokenizer { return &bpeCounter{name: O200k, enc: bpe.O200k} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			opts := Options{Teammate: "old", Task: "what did we decide about retention", Now: fixedClock(now),
				Recaller: fixedRecaller{hits}, Tokenizer: bc.fresh()}
			r, err := Build(context.Background(), ws, opts) // loads the vocabulary
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				opts.Tokenizer = bc.fresh()
				if _, err := Build(context.Background(), ws, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Manifest.TotalTokens), "tokens")
		})
	}
}

// hugeTasks numbers the tasks of BenchmarkBuildHugeTask across runs.
var hugeTasks int

// BenchmarkBuildHugeTask builds the stack of BenchmarkBuild's teammate for
// a task that is a pasted 2.8 MB log, recall already answered. The
// tokenizer is the shared one, warm, but each build's task starts with a
// number of its own, so that it is counted afresh, as a new task is.
func BenchmarkBuildHugeTask(b *testing.B) {
	now := time.Date(2027, 6, 15, 10, 0, 0, 0, time.UTC)
	ws, hits := threeYears(b, now)
	log := textcorpus.Log(randv2.New(randv2.NewPCG(28, 2026)), 2_800_000)
	opts := Options{Teammate: "old", Task: "warm up", Now: fixedClock(now), Recaller: fixedRecaller{hits}, Tokenizer: mustTokenizer(b, O200k)}
	if _, err := Build(context.Background(), ws, opts); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hugeTasks++
		opts.Task = strconv.Itoa(hugeTasks) + " " + log
		if _, err := Build(context.Background(), ws, opts); err != nil {
			b.Fatal(err)
		}
	}
}
