package compact

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// corpus measures a teammate's memory: files, tokens of everything on
// disk, and tokens of the context injected every task (WISDOM.md and the
// last layout.RecentDays dailies).
func corpus(b *testing.B, ws *layout.Workspace, now time.Time) (files, tokens, injected int) {
	b.Helper()
	fs, err := ws.Files("beacon")
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range fs {
		if f.Kind == layout.KindSoul {
			continue
		}
		files++
		n, err := os.ReadFile(ws.Abs(f.Path))
		if err != nil {
			b.Fatal(err)
		}
		tokens += Tokens(string(n))
		if f.Kind == layout.KindWisdom || f.Kind == layout.KindDaily && layout.InRecentWindow(f.Date, now, layout.RecentDays) {
			injected += Tokens(string(n))
		}
	}
	return files, tokens, injected
}

// BenchmarkGrowth simulates three years of daily use (five entries a day)
// with a compaction every Monday, against the same three years without
// compaction. Run with -benchtime 1x; it reports file counts and tokens
// (memory-files counts everything under memory/, the archive included),
// the memory budget the prompt stack uses, and fails if memory/ reaches
// 150 files, the stack exceeds its budget or WISDOM.md its own.
func BenchmarkGrowth(b *testing.B) {
	start, end := day("2024-01-01"), day("2026-12-31")
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		var wss [2]*layout.Workspace
		for k, name := range []string{"compacted", "raw"} {
			root := dir + "/" + name + "/" + layout.DirName
			if err := os.MkdirAll(root+"/beacon/memory", 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(root+"/beacon/SOUL.md", []byte(soul), 0o644); err != nil {
				b.Fatal(err)
			}
			wss[k], _ = layout.Open(root)
		}
		var runs int
		var spent time.Duration
		for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
			for _, ws := range wss {
				p := ws.Abs(layout.DailyPath("beacon", d))
				if err := os.WriteFile(p, []byte(genDay(d, 5)), 0o644); err != nil {
					b.Fatal(err)
				}
				os.Chtimes(p, d, d)
			}
			if d.Weekday() == time.Monday {
				now := d.Add(20 * time.Hour)
				t0 := time.Now()
				if _, err := Run(context.Background(), wss[0], Options{Now: func() time.Time { return now }}); err != nil {
					b.Fatal(err)
				}
				spent += time.Since(t0)
				runs++
			}
		}
		now := end.Add(20 * time.Hour)
		cf, ct, ci := corpus(b, wss[0], now)
		rf, rt, ri := corpus(b, wss[1], now)
		files := memoryFiles(b, wss[0], "beacon")
		stubs := bareStubs(b, wss[0], "beacon")
		m := contextManifest(b, wss[0], "beacon", "Why did the deploy pipeline tests fail?", now)
		w, _ := os.ReadFile(wss[0].Abs("beacon/WISDOM.md"))
		// The stubs of compacted dailies hold no memory and go after
		// keep_stub_days (28): the bound is on the files that do.
		if files-stubs >= 150 || m.Budget.Exceeded || Tokens(string(w)) > 2000 {
			b.Errorf("after three years: %d files in memory/ besides %d stubs (want < 150), context %d of %d tokens, WISDOM.md %d tokens (budget 2000)", files-stubs, stubs, m.Budget.Used, m.Budget.Total, Tokens(string(w)))
		}
		b.ReportMetric(float64(files), "memory-files")
		b.ReportMetric(float64(stubs), "stubs")
		b.ReportMetric(float64(m.Budget.Used), "context-tokens")
		b.ReportMetric(float64(Tokens(string(w))), "wisdom-tokens")
		b.ReportMetric(float64(cf), "files")
		b.ReportMetric(float64(rf), "files-raw")
		b.ReportMetric(float64(ct), "tokens")
		b.ReportMetric(float64(rt), "tokens-raw")
		b.ReportMetric(float64(ci), "injected-tokens")
		b.ReportMetric(float64(ri), "injected-tokens-raw")
		b.ReportMetric(float64(spent.Milliseconds())/float64(runs), "ms/compaction")
	}
}

// bareStubs counts the dailies of a teammate that are stubs of a
// compacted day with nothing appended.
func bareStubs(b *testing.B, ws *layout.Workspace, name string) int {
	b.Helper()
	fs, err := ws.Files(name)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, f := range fs {
		if f.Kind != layout.KindDaily {
			continue
		}
		src, err := ws.ReadFile(f.Path, layout.MaxFileSize)
		if err != nil {
			b.Fatal(err)
		}
		if layout.IsBareStub(f.Date, src) {
			n++
		}
	}
	return n
}
