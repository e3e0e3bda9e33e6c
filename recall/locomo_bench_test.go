//go:build locomo

package recall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// locomoDir is a LoCoMo conversation turned into a workspace, kept beside
// the repository when it is there (it is not part of it): the benchmarks
// that read it build only with the locomo tag and skip without it.
const locomoDir = "../../shared/eval/locomo-conv-26"

// BenchmarkLoCoMoBM25 reports BM25-only recall@5 and @10 of the answering
// turns of a real long conversation in the first 5 and all 10 of ten
// hits, with the tokens (bytes/4) they cost, overall and (recall@10) per
// question category; the recency pass is
// off. The questions are asked a week after the last session, when every
// daily is out of the recent window and so indexed. It skips when the
// conversation is not there.
//
//	go test -tags locomo ./recall -run '^$' -bench LoCoMoBM25 -benchtime 1x
func BenchmarkLoCoMoBM25(b *testing.B) {
	ix, qs := locomoIndex(b, Options{})
	for i := 0; i < b.N; i++ {
		reportLoCoMo(b, ix, qs, true)
	}
}

// BenchmarkLoCoMoChunkTargets reports the same at chunk targets from 150
// to 250 word pieces. Where a session is cut moves which turns share a
// chunk with the question's words, and so recall@10 by up to 0.04 between
// neighbouring targets: a ranking change is judged by all of them, not by
// the default alone.
//
//	go test -tags locomo ./recall -run '^$' -bench LoCoMoChunkTargets -benchtime 1x
func BenchmarkLoCoMoChunkTargets(b *testing.B) {
	for _, target := range []int{150, 175, 200, 225, 250} {
		b.Run(fmt.Sprintf("target=%d", target), func(b *testing.B) {
			ix, qs := locomoIndex(b, Options{Chunking: ChunkOptions{TargetTokens: target}})
			for i := 0; i < b.N; i++ {
				reportLoCoMo(b, ix, qs, false)
			}
		})
	}
}

// locomoIndex copies the LoCoMo conversation into a temporary workspace
// and indexes it as of a week after its last session, or skips.
func locomoIndex(b *testing.B, opts Options) (*Index, []EvidenceQuestion) {
	b.Helper()
	qs, err := LoadEvidence(filepath.Join(locomoDir, "queries.jsonl"))
	if err != nil {
		b.Skipf("no LoCoMo conversation beside the repository (%v)", err)
	}
	dst := filepath.Join(b.TempDir(), layout.DirName)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(locomoDir, layout.DirName))); err != nil {
		b.Fatal(err)
	}
	ws, err := layout.Open(dst)
	if err != nil {
		b.Fatal(err)
	}
	now := lastDaily(b, ws, "conv-26").AddDate(0, 0, 7).Add(12 * time.Hour)
	opts.Now = func() time.Time { return now }
	ix, err := Open(ws, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return ix, qs
}

// reportLoCoMo asks every question for 10 hits, BM25 only, and reports
// recall and tokens of the first 5 and of all 10, as tmem eval -k 10
// does; byCategory logs recall per category too.
func reportLoCoMo(b *testing.B, ix *Index, qs []EvidenceQuestion, byCategory bool) {
	b.Helper()
	q := Query{Mode: ModeBM25, RecencyDepth: -1, NoSync: true}
	s, err := ScoreEvidence(context.Background(), ix, qs, q, 10)
	if err != nil {
		b.Fatal(err)
	}
	for _, at := range s.Cutoffs {
		if at.K == 5 || at.K == 10 {
			b.ReportMetric(at.Recall, "recall@"+strconv.Itoa(at.K))
			b.ReportMetric(at.Tokens, "tokens@"+strconv.Itoa(at.K))
		}
	}
	if !byCategory {
		return
	}
	cats := make([]string, 0, len(s.ByCategory))
	for c := range s.ByCategory {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		b.Logf("recall@10 %-12s %.3f", c, s.ByCategory[c])
	}
}

// lastDaily is the date of a teammate's latest daily log.
func lastDaily(b *testing.B, ws *layout.Workspace, name string) time.Time {
	b.Helper()
	fs, err := ws.Files(name)
	if err != nil {
		b.Fatal(err)
	}
	var last time.Time
	for _, f := range fs {
		if f.Kind == layout.KindDaily && f.Date.After(last) {
			last = f.Date
		}
	}
	if last.IsZero() {
		b.Fatalf("%s has no daily logs", name)
	}
	return last
}
