package recall

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/recall/hashembed"
)

// filterWorkspace is the fixture workspace with 150 dailies (2026-01-05 on,
// one a day) that each say "okapi" many times, one typed memory and one
// weekly summary (2026-W30, 20 to 26 July) that say it once, among other
// words: unfiltered, the dailies fill the top 10.
func filterWorkspace(t *testing.T, opts ...Options) *Index {
	t.Helper()
	ws := newWorkspace(t, "ws")
	for i := 0; i < 150; i++ {
		day := fixtureNow.AddDate(0, 0, -319+i).Format("2006-01-02")
		writeFile(t, ws, "beacon/memory/"+day+".md", fmt.Sprintf("# %s\n\n## Okapi run %d\n\nOkapi okapi okapi: the okapi feed ran.\n", day, i))
	}
	writeFile(t, ws, "beacon/memory/project_okapi_feed.md", "---\nname: Feed vendor\ndescription: who sends the feed\ntype: project\n---\n\n"+
		"The feed comes from a vendor in Lisbon; the contract renews each spring and names the okapi exporter, who bills monthly.\n")
	writeFile(t, ws, "beacon/memory/weekly/2026-W30.md", "# Week 2026-W30\n\n## Summary\n\n"+
		"Moved the archive tier to cold storage, trimmed the dashboards and checked the okapi exporter once.\n")
	o := Options{}
	if len(opts) > 0 {
		o = opts[0]
	}
	ix, _ := openIndex(t, ws, o)
	return ix
}

// TestFilterHybrid filters a hybrid search: the vector list is filtered
// before it is fused, so every hit is of a kind asked for and the vector
// side still ranks them.
func TestFilterHybrid(t *testing.T) {
	ix := filterWorkspace(t, Options{Embedder: hashembed.Embedder{}})
	q := Query{Text: "okapi exporter vendor", Teammates: []string{"beacon"}, K: 5, RecencyDepth: -1, Filter: &Filter{Kinds: []string{"typed", "weekly"}}}
	hits := runSearch(t, ix, q)
	vector := false
	for _, h := range hits {
		if h.Kind != "typed" && h.Kind != "weekly" {
			t.Errorf("hit %s is %s", h.Path, h.Kind)
		}
		vector = vector || slices.Contains(h.Reason, "vector")
	}
	got := paths(hits)
	if !vector || !slices.Contains(got, "beacon/memory/project_okapi_feed.md") || !slices.Contains(got, "beacon/memory/weekly/2026-W30.md") {
		t.Errorf("hits %v, want the okapi memory and weekly among them, ranked by vectors too", got)
	}
}

func TestFilterFindsRareKinds(t *testing.T) {
	ix := filterWorkspace(t)
	q := Query{Text: "okapi", Teammates: []string{"beacon"}, K: 10, Mode: ModeBM25, RecencyDepth: -1}
	for _, h := range runSearch(t, ix, q) {
		if h.Kind != "daily" {
			t.Fatalf("unfiltered, %s (%s) made the top 10: the dailies should fill it", h.Path, h.Kind)
		}
	}
	for _, c := range []struct {
		kinds []string
		want  string
	}{
		{[]string{"typed"}, "beacon/memory/project_okapi_feed.md"},
		{[]string{"weekly", "monthly"}, "beacon/memory/weekly/2026-W30.md"},
	} {
		q.Filter = &Filter{Kinds: c.kinds}
		hits := runSearch(t, ix, q)
		if len(hits) != 1 || hits[0].Path != c.want {
			t.Errorf("kinds %v: hits %v, want only %s", c.kinds, paths(hits), c.want)
		}
	}
}

func TestFilterDays(t *testing.T) {
	ix := filterWorkspace(t)
	q := Query{Text: "okapi", Teammates: []string{"beacon"}, K: 10, Mode: ModeBM25, RecencyDepth: 1}
	for _, c := range []struct {
		since, until string
		want         []string
	}{
		// A day inside the weekly's period, which its Date (the Monday)
		// is not: the week is kept whole.
		{"2026-07-23", "2026-07-23", []string{"beacon/memory/weekly/2026-W30.md"}},
		// The recency pass's weekly (2026-W46) is filtered too.
		{"2026-07-26", "", []string{"beacon/memory/weekly/2026-W30.md", "beacon/memory/weekly/2026-W46.md"}},
		{"", "2026-01-06", []string{"beacon/memory/2026-01-05.md", "beacon/memory/2026-01-06.md"}},
		{"2026-02-13", "2026-02-13", []string{"beacon/memory/2026-02-13.md"}},
		{"2026-07-27", "2026-11-01", nil}, // the typed memory has no date
	} {
		q.Filter = &Filter{Since: c.since, Until: c.until}
		got := paths(runSearch(t, ix, q))
		if strings.Join(slices.Sorted(slices.Values(got)), " ") != strings.Join(c.want, " ") {
			t.Errorf("since %q until %q: hits %v, want %v", c.since, c.until, got, c.want)
		}
	}
}

func TestFilterRefusesBadDays(t *testing.T) {
	ix := filterWorkspace(t)
	for _, f := range []Filter{{Since: "2026-13-01"}, {Until: "July"}, {Since: "2026-07-02", Until: "2026-07-01"}} {
		_, err := ix.Search(t.Context(), Query{Text: "okapi", Filter: &f})
		if err == nil || !strings.Contains(err.Error(), "since") && !strings.Contains(err.Error(), "until") {
			t.Errorf("filter %+v: error %v, want one naming since or until", f, err)
		}
	}
}
