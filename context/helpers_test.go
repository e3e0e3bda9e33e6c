package context

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// exampleNow is "today" in the bundled example workspace.
var exampleNow = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// copyExample copies the bundled example workspace into a temporary
// folder, since Build creates session files.
func copyExample(t testing.TB) *layout.Workspace {
	t.Helper()
	return layouttest.Copy(t, filepath.Join("..", "testdata", "example", ".teammates"))
}

// writeFiles creates a workspace from a map of relative path → content.
func writeFiles(t testing.TB, files map[string]string) *layout.Workspace {
	t.Helper()
	root := filepath.Join(t.TempDir(), ".teammates")
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := layout.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// fakeRecaller is a deterministic stand-in for the recall index: it
// returns one hit per file that recall would index (typed memories,
// weekly and monthly summaries, dailies older than the recent window),
// scored by the share of query words the file contains. Extra hits are
// returned as they are, for cases the real files do not produce.
type fakeRecaller struct {
	ws      *layout.Workspace
	now     time.Time
	vectors bool
	err     error
	extra   []recall.Hit
	queries []recall.Query
	last    []recall.Hit // what the last Search returned
}

func (f *fakeRecaller) HasVectors() bool { return f.vectors }

func (f *fakeRecaller) Search(_ context.Context, q recall.Query) ([]recall.Hit, error) {
	f.queries = append(f.queries, q)
	if f.err != nil {
		return nil, f.err
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) >= 4 {
			words[w] = true
		}
	}
	hits := append([]recall.Hit(nil), f.extra...)
	for _, name := range q.Teammates {
		files, err := f.ws.Files(name)
		if err != nil {
			return nil, err
		}
		for _, fl := range files {
			switch fl.Kind {
			case layout.KindTyped, layout.KindWeekly, layout.KindMonthly:
			case layout.KindDaily:
				if layout.InRecentWindow(fl.Date, f.now, layout.RecentDays) {
					continue
				}
			default:
				continue
			}
			src, err := os.ReadFile(f.ws.Abs(fl.Path))
			if err != nil {
				return nil, err
			}
			d, err := layout.Parse(fl.Path, src)
			if err != nil || len(d.Entries) == 0 {
				continue
			}
			body := strings.TrimSpace(string(d.Body))
			low := strings.ToLower(body)
			found := 0
			for w := range words {
				if strings.Contains(low, w) {
					found++
				}
			}
			if found == 0 {
				continue
			}
			score := float64(found) / float64(len(words))
			reason := []string{"bm25"}
			h := recall.Hit{Teammate: name, Path: fl.Path, Kind: string(fl.Kind), Type: fl.Type, Name: d.Get("name"),
				StartLine: d.Entries[0].Start, EndLine: d.Entries[len(d.Entries)-1].End,
				Heading: d.Entries[0].Heading, BM25: score, Text: body}
			if f.vectors {
				h.Vector = score / 2
				reason = append(reason, "vector")
			}
			if fl.Kind == layout.KindTyped {
				score += 0.1
				reason = append(reason, "boost")
			}
			h.Score, h.Reason = score, reason
			if !fl.Date.IsZero() {
				h.Date = fl.Date.Format(layout.DateLayout)
			}
			hits = append(hits, h)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Path < hits[j].Path
	})
	k := q.K
	if k == 0 {
		k = 10
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	f.last = append([]recall.Hit(nil), hits...)
	return hits, nil
}

// sectionText returns the text of the named section of a result.
func sectionText(t testing.TB, r *Result, name string) string {
	t.Helper()
	for _, s := range r.Manifest.Sections {
		if s.Name == name {
			return r.Text[s.Offset : s.Offset+s.Bytes]
		}
	}
	t.Fatalf("no section %q", name)
	return ""
}

func mustTokenizer(t testing.TB, name string) Tokenizer {
	t.Helper()
	tok, err := NewTokenizer(name)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
