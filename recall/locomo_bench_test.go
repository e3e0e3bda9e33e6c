package recall

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// locomoDir is a LoCoMo conversation turned into a workspace, kept beside
// the repository when it is there (it is not part of it).
const locomoDir = "../../shared/eval/locomo-conv-26"

// BenchmarkLoCoMoBM25 reports BM25-only recall@5 and @10 of the answering
// turns of a real long conversation, with the tokens (chars/4) of the top
// 5 and 10 hits, overall and per question category; the recency pass is
// off. The questions are asked a week after the last session, when every
// daily is out of the recent window and so indexed. It skips when the
// conversation is not there.
//
//	go test ./recall -run '^$' -bench LoCoMoBM25 -benchtime 1x
func BenchmarkLoCoMoBM25(b *testing.B) {
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
	ix, err := Open(ws, Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	if _, err := ix.Sync(ctx, nil); err != nil {
		b.Fatal(err)
	}
	q := Query{Mode: ModeBM25, RecencyDepth: -1, NoSync: true}
	for i := 0; i < b.N; i++ {
		for _, k := range []int{5, 10} {
			s, err := ScoreEvidence(ctx, ix, qs, q, k)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(s.Recall, "recall@"+strconv.Itoa(k))
			b.ReportMetric(s.Tokens, "tokens@"+strconv.Itoa(k))
			cats := make([]string, 0, len(s.ByCategory))
			for c := range s.ByCategory {
				cats = append(cats, c)
			}
			sort.Strings(cats)
			for _, c := range cats {
				b.Logf("recall@%d %-12s %.3f", k, c, s.ByCategory[c])
			}
		}
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
