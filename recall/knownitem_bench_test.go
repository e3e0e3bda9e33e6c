package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/benchgen"
)

// Known-item workspaces: one teammate, about 300, 3,000 and 10,000 files.
var knownItemSizes = []struct {
	name string
	gen  benchgen.Options
}{
	{"300", benchgen.Options{Teammates: 1, Years: 1, TypedPerYear: 100, Seed: 17}},
	{"3k", benchgen.Options{Teammates: 1, Years: 13, Seed: 17}},
	{"10k", benchgen.Options{Teammates: 1, Years: 43, Seed: 17}},
}

// knownItem is a question whose answer is one file: a sentence drawn
// from it that no other file holds.
type knownItem struct {
	kind     layout.Kind
	path     string
	line     string // the sentence as written
	keywords string // its rarest words only
}

// knownItemKinds are the kinds questions are drawn from, 40 of each.
var knownItemKinds = []layout.Kind{layout.KindDaily, layout.KindWeekly, layout.KindTyped}

const knownItemsPerKind = 40

// BenchmarkKnownItem asks for sentences drawn at random (seeded) from
// dailies, weekly summaries and typed memories, as written and as their
// three rarest words, and reports the share whose file is among the top
// 1, 5 and 10 hits, per kind, BM25 only and hybrid (hashed stand-in
// embedder). Run one size at a time:
//
//	go test ./recall -run '^$' -bench 'KnownItem/3k' -benchtime 1x
func BenchmarkKnownItem(b *testing.B) {
	for _, size := range knownItemSizes {
		b.Run(size.name, func(b *testing.B) {
			ws := benchWorkspace(b, "known-"+size.name, size.gen)
			items := drawKnownItems(b, ws, rand.New(rand.NewPCG(size.gen.Seed, 1)))
			ix, err := Open(ws, benchOptions())
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				rows := knownItemScores(b, ix, items)
				// The table is too long for b.Log, which keeps ten lines.
				fmt.Printf("known-item, %s files:\n%s", size.name, rows)
			}
		})
	}
}

// knownItemScores asks every item in every mode and form and tabulates
// the shares found at rank 1, in the top 5 and in the top 10.
func knownItemScores(b *testing.B, ix *Index, items []knownItem) string {
	b.Helper()
	var out strings.Builder
	fmt.Fprintf(&out, "%-7s %-9s %-7s %5s %5s %5s\n", "mode", "form", "kind", "top1", "top5", "top10")
	for _, mode := range []string{ModeBM25, ModeHybrid} {
		for _, form := range []string{"full", "keywords"} {
			found := map[layout.Kind]*[3]int{}
			total := map[layout.Kind]int{}
			for _, it := range items {
				q := it.line
				if form == "keywords" {
					q = it.keywords
				}
				hits, err := ix.Search(context.Background(), Query{Text: q, K: 10, Mode: mode, NoSync: true, RecencyDepth: -1})
				if err != nil {
					b.Fatal(err)
				}
				rank := 0
				for i, h := range hits {
					if h.Path == it.path {
						rank = i + 1
						break
					}
				}
				if found[it.kind] == nil {
					found[it.kind] = &[3]int{}
				}
				total[it.kind]++
				for j, k := range []int{1, 5, 10} {
					if rank > 0 && rank <= k {
						found[it.kind][j]++
					}
				}
			}
			for _, kind := range append(knownItemKinds, "all") {
				var f [3]int
				n := 0
				for k, c := range found {
					if kind == "all" || k == kind {
						for j := range f {
							f[j] += c[j]
						}
						n += total[k]
					}
				}
				if n == 0 {
					continue
				}
				share := func(j int) float64 { return float64(f[j]) / float64(n) }
				fmt.Fprintf(&out, "%-7s %-9s %-7s %5.2f %5.2f %5.2f\n", mode, form, kind, share(0), share(1), share(2))
				if kind == "all" {
					b.ReportMetric(share(0), mode+"-"+form+"-top1")
					b.ReportMetric(share(2), mode+"-"+form+"-top10")
				}
			}
		}
	}
	return out.String()
}

// drawKnownItems picks knownItemsPerKind sentences of each kind, each
// found in exactly one file, from the files the index holds.
func drawKnownItems(b *testing.B, ws *layout.Workspace, r *rand.Rand) []knownItem {
	b.Helper()
	mates, err := ws.Teammates()
	if err != nil {
		b.Fatal(err)
	}
	now := benchOptions().Now()
	files := map[string][]string{} // path → sentences
	kinds := map[string]layout.Kind{}
	for _, m := range mates {
		fs, err := ws.Files(m.Name)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range fs {
			if f.Kind == layout.KindDaily && layout.InRecentWindow(f.Date, now, layout.RecentDays) {
				continue
			}
			src, err := os.ReadFile(ws.Abs(f.Path))
			if err != nil {
				b.Fatal(err)
			}
			files[f.Path] = fileSentences(string(src))
			kinds[f.Path] = f.Kind
		}
	}
	where := map[string]map[string]bool{} // sentence → paths
	df := map[string]int{}                // word → files
	for p, ss := range files {
		words := map[string]bool{}
		for _, s := range ss {
			if where[s] == nil {
				where[s] = map[string]bool{}
			}
			where[s][p] = true
			for _, w := range benchWords(s) {
				words[w] = true
			}
		}
		for w := range words {
			df[w]++
		}
	}
	var items []knownItem
	for _, kind := range knownItemKinds {
		var pool []knownItem
		for p, ss := range files {
			for _, s := range ss {
				if kinds[p] == kind && len(where[s]) == 1 && len(strings.Fields(s)) >= 5 {
					pool = append(pool, knownItem{kind: kind, path: p, line: s, keywords: rarest(s, df, 3)})
				}
			}
		}
		sort.Slice(pool, func(i, j int) bool { return pool[i].path+pool[i].line < pool[j].path+pool[j].line })
		r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		items = append(items, pool[:min(knownItemsPerKind, len(pool))]...)
	}
	return items
}

// fileSentences splits a file's text (frontmatter values included, headings
// and markup left out) into sentences.
func fileSentences(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == "---" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, p := range []string{"- ", "**Why:** ", "**How to apply:** ", "description: ", "name: "} {
			line = strings.TrimPrefix(line, p)
		}
		line = strings.Trim(line, `"`)
		for _, s := range strings.SplitAfter(line, ". ") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// benchWords are a sentence's words as someone would type them again.
func benchWords(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if w := strings.ToLower(strings.Trim(f, `.,;:()"'`)); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// rarest returns the n words of s found in the fewest files, in the order
// they appear in s.
func rarest(s string, df map[string]int, n int) string {
	ws := benchWords(s)
	order := append([]string(nil), ws...)
	sort.SliceStable(order, func(i, j int) bool { return df[order[i]] < df[order[j]] })
	keep := map[string]bool{}
	for _, w := range order {
		if len(keep) == n {
			break
		}
		keep[w] = true
	}
	var out []string
	for _, w := range ws {
		if keep[w] {
			out = append(out, w)
			delete(keep, w)
		}
	}
	return strings.Join(out, " ")
}
