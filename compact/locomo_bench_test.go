//go:build locomo

package compact

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall"
)

// The LoCoMo benchmarks read a conversation kept beside the repository,
// not part of it, so they build only with the locomo tag and skip when it
// is not there:
//
//	go test -tags locomo ./compact -run '^$' -bench LoCoMo -benchtime 1x

// locomoDir is a LoCoMo conversation turned into a workspace.
const locomoDir = "../../shared/eval/locomo-conv-26"

// locomoQuestions reads the conversation's questions, or skips the
// benchmark when the conversation is not there.
func locomoQuestions(b *testing.B) []recall.EvidenceQuestion {
	qs, err := recall.LoadEvidence(filepath.Join(locomoDir, "queries.jsonl"))
	if err != nil {
		b.Skipf("no LoCoMo conversation beside the repository (%v)", err)
	}
	return qs
}

// BenchmarkLoCoMoCompaction measures what compaction does to recall on a
// real long conversation: BM25 recall@10 of its questions before
// compaction, then after compacting as a weekly cron would (a week after
// the last session, weeklies) and a year later (monthlies), and after a
// single run a year later. It reports both numbers, the files left in
// memory/ and the memory budget the prompt stack uses, and fails when
// recall drops by more than 0.02, memory/ holds more than 25 files or the
// stack is over budget. It skips when the conversation is not there.
func BenchmarkLoCoMoCompaction(b *testing.B) {
	qs := locomoQuestions(b)
	for _, plan := range []struct {
		name   string
		weekly bool
	}{{"weekly-then-monthly", true}, {"one-run", false}} {
		b.Run(plan.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ws := layouttest.Copy(b, filepath.Join(locomoDir, layout.DirName))
				name := "conv-26"
				last := lastDaily(b, ws, name)
				yearLater := last.AddDate(1, 0, 1)
				before := recallScore(b, ws, yearLater, qs)
				if plan.weekly {
					compactTwice(b, ws, last, yearLater)
				} else {
					runAt(b, ws, yearLater)
				}
				after := recallScore(b, ws, yearLater, qs)
				files := memoryFiles(b, ws, name)
				m := contextManifest(b, ws, name, qs[0].Question, yearLater)
				b.ReportMetric(before.Recall, "recall-before")
				b.ReportMetric(after.Recall, "recall-after")
				b.ReportMetric(after.Tokens, "hit-tokens-after")
				b.ReportMetric(float64(files), "memory-files")
				b.ReportMetric(float64(m.Budget.Used), "context-tokens")
				if after.Recall < before.Recall-0.02 || files > 25 || m.Budget.Exceeded {
					b.Errorf("recall@10 %.3f → %.3f, %d files in memory/, context %d of %d tokens", before.Recall, after.Recall, files, m.Budget.Used, m.Budget.Total)
				}
			}
		})
	}
}

func runAt(b testing.TB, ws *layout.Workspace, d time.Time) {
	b.Helper()
	now := d.Add(12 * time.Hour)
	if _, err := Run(context.Background(), ws, Options{Now: func() time.Time { return now }}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLoCoMoNoArchive measures recall@10 on the conversation after a
// compaction that keeps no archive (compact.archive false, the spec's
// way), where the summaries are all that is left of the logs: a week after
// the last session (weeklies) and a year later (monthlies). It reports the
// recall and the summaries' size in tokens (chars/4).
func BenchmarkLoCoMoNoArchive(b *testing.B) {
	qs := locomoQuestions(b)
	for _, at := range []struct {
		name  string
		after func(last time.Time) time.Time
	}{
		{"weekly", func(last time.Time) time.Time { return last.AddDate(0, 0, 8) }},
		{"year-later", func(last time.Time) time.Time { return last.AddDate(1, 0, 1) }},
	} {
		b.Run(at.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ws := layouttest.Copy(b, filepath.Join(locomoDir, layout.DirName))
				now := at.after(lastDaily(b, ws, "conv-26")).Add(12 * time.Hour)
				if _, err := Run(context.Background(), ws, Options{Now: func() time.Time { return now }, NoArchive: true}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(recallScore(b, ws, now, qs).Recall, "recall-after")
				b.ReportMetric(float64(summaryTokens(b, ws, "conv-26")), "summary-tokens")
			}
		})
	}
}

// summaryTokens is the size of a teammate's weekly and monthly summaries.
func summaryTokens(b *testing.B, ws *layout.Workspace, name string) int {
	b.Helper()
	n := 0
	for _, dir := range []string{"weekly", "monthly"} {
		ms, _ := filepath.Glob(ws.Abs(name + "/memory/" + dir + "/*.md"))
		for _, m := range ms {
			data, err := os.ReadFile(m)
			if err != nil {
				b.Fatal(err)
			}
			n += Tokens(string(data))
		}
	}
	return n
}
