package context

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

var propertySeed = flag.Int64("seed", 1, "seed of the property tests; 0 picks one from the clock")

var words = strings.Fields(`shipment search index alias cutover carrier ingest worker queue retention
latency benchmark migration rollback release demo freeze container vessel positions cache map quill
beacon atlas normalize check digit timestamp offset schema expand contract review rotation lookup
bulk export admin dashboard metric alert incident runbook staging production cluster node replica
général Größe naïve 東京 café — “quoted” 12,400 rows p95 158ms 07:00 UTC`)

// genSpec shapes a generated workspace.
type genSpec struct {
	days       int  // how many days back from today may have a log
	everyDay   bool // a log on every day instead of about two in three
	maxEntries int
	maxLines   int
	typed      int
	hugeToday  bool
	noToday    bool
	withFences bool
}

// genEntry is one generated daily entry, to check the output against.
type genEntry struct {
	path, heading, text string
	today               bool
}

func sentence(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[rng.Intn(len(words))]
	}
	return strings.Join(ws, " ")
}

// genWorkspace writes a workspace with one teammate, "gen", whose today
// is now, and returns its daily entries.
func genWorkspace(tb testing.TB, rng *rand.Rand, now time.Time, sp genSpec) (*layout.Workspace, []genEntry) {
	tb.Helper()
	files := map[string]string{
		"gen/SOUL.md":   "---\nrole: Generated\n---\n# Gen\n\n## Identity\n\n" + sentence(rng, 30) + "\n",
		"gen/GOALS.md":  "# Goals\n\n## Now\n\n- " + sentence(rng, 12) + "\n",
		"other/SOUL.md": "# Other — Bystander\n",
		"gen/WISDOM.md": "# Wisdom\n\n## Rule\n\n" + sentence(rng, 20) + "\n",
		"CROSS-TEAM.md": "# Cross-team notes\n",
	}
	var entries []genEntry
	id := 0
	for d := 0; d < sp.days; d++ {
		today := d == 0
		if (today && sp.noToday) || (!today && !sp.everyDay && rng.Intn(3) == 0) {
			continue
		}
		day := now.AddDate(0, 0, -d)
		rel := layout.DailyPath("gen", day)
		var b strings.Builder
		b.WriteString("# " + day.Format(layout.DateLayout) + "\n")
		n := rng.Intn(sp.maxEntries + 1)
		if today && sp.hugeToday {
			n = 3
		}
		for e := 0; e < n; e++ {
			id++
			h := fmt.Sprintf("Entry %d %s", id, sentence(rng, 2))
			lines := 1 + rng.Intn(sp.maxLines)
			if today && sp.hugeToday {
				lines = 400
			}
			var body []string
			for l := 0; l < lines; l++ {
				switch {
				case sp.withFences && rng.Intn(12) == 0:
					body = append(body, "```sh\n# not a heading "+sentence(rng, 3)+"\n```")
				case rng.Intn(8) == 0:
					body = append(body, "### Sub "+sentence(rng, 2))
				default:
					body = append(body, "- "+sentence(rng, 4+rng.Intn(20)))
				}
			}
			text := strings.Join(body, "\n")
			b.WriteString("\n## " + h + "\n\n" + text + "\n")
			entries = append(entries, genEntry{path: rel, heading: h, text: text, today: today})
		}
		files[rel] = b.String()
	}
	for i := 0; i < sp.typed; i++ {
		typ := layout.Types[rng.Intn(len(layout.Types))]
		files[fmt.Sprintf("gen/memory/%s_topic_%d.md", typ, i)] = fmt.Sprintf(
			"---\nname: Topic %d\ndescription: %s\ntype: %s\n---\n%s\n\n**Why:** %s\n", i, sentence(rng, 6), typ, sentence(rng, 10+rng.Intn(200)), sentence(rng, 15))
	}
	return writeFiles(tb, files), entries
}

func TestBuildProperties(t *testing.T) {
	seed := *propertySeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %[1]d)", seed)
	rng := rand.New(rand.NewSource(seed))
	now := time.Date(2027, 2, 10, 15, 4, 5, 0, time.UTC)
	tests := []struct {
		name  string
		tok   string
		runs  int
		sizes genSpec
	}{
		{name: "chars4 random workspaces", tok: Chars4, runs: 60, sizes: genSpec{days: 10, maxEntries: 6, maxLines: 30, typed: 12, withFences: true}},
		{name: "o200k random workspaces", tok: O200k, runs: 12, sizes: genSpec{days: 9, maxEntries: 5, maxLines: 20, typed: 8, withFences: true}},
		{name: "cl100k dense logs", tok: Cl100k, runs: 6, sizes: genSpec{days: 7, everyDay: true, maxEntries: 8, maxLines: 25, typed: 4}},
		{name: "no log today", tok: Chars4, runs: 10, sizes: genSpec{days: 8, maxEntries: 4, maxLines: 10, typed: 3, noToday: true}},
		{name: "today over budget", tok: O200k, runs: 3, sizes: genSpec{days: 8, maxEntries: 4, maxLines: 10, typed: 3, hugeToday: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := mustTokenizer(t, tt.tok)
			for run := 0; run < tt.runs; run++ {
				ws, entries := genWorkspace(t, rng, now, tt.sizes)
				budget := MinBudget + rng.Intn(12000)
				opts := Options{
					Teammate: "gen", Task: sentence(rng, 8), Budget: budget, Tokenizer: tok,
					Now: fixedClock(now), Recaller: &fakeRecaller{ws: ws, now: now, vectors: rng.Intn(2) == 0},
				}
				r, err := Build(context.Background(), ws, opts)
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				checkInvariants(t, r, tok)
				checkEntriesWhole(t, r, entries)
				checkRecallWhole(t, r, opts.Recaller.(*fakeRecaller).last)
				if t.Failed() {
					t.Fatalf("run %d (budget %d) failed", run, budget)
				}
			}
		})
	}
}

// checkEntriesWhole checks that every daily entry is in the text whole or
// not at all, today's always, and that the manifest agrees.
func checkEntriesWhole(t *testing.T, r *Result, entries []genEntry) {
	t.Helper()
	dailies := sectionText(t, r, SectionDailies)
	decision := map[string]string{}
	for _, d := range r.Manifest.Dailies {
		decision[d.Heading] = d.Decision
	}
	for _, e := range entries {
		whole := "### " + e.heading + "\n\n" + demote(e.text, 1) + "\n\n"
		in := strings.Contains(dailies, whole)
		if !in && strings.Contains(dailies, e.heading) {
			t.Errorf("entry %q is in the text but not whole", e.heading)
		}
		if e.today && !in {
			t.Errorf("today's entry %q is missing", e.heading)
		}
		if in != (decision[e.heading] == Included) {
			t.Errorf("entry %q: in text %v, manifest says %q", e.heading, in, decision[e.heading])
		}
	}
}

// checkRecallWhole checks that every recalled memory is in the text whole
// or not at all, as the manifest says.
func checkRecallWhole(t *testing.T, r *Result, hits []recall.Hit) {
	t.Helper()
	sec := sectionText(t, r, SectionRecall)
	decision := map[string]string{}
	for _, it := range r.Manifest.Recall.Items {
		decision[it.Path] = it.Decision
	}
	for _, h := range hits {
		src := fmt.Sprintf("_Source: .teammates/%s:%d-%d", h.Path, h.StartLine, h.EndLine)
		whole := strings.Contains(sec, src) && strings.Contains(sec, demote(strings.TrimSpace(h.Text), 2)+"\n\n")
		if strings.Contains(sec, src) && !whole {
			t.Errorf("recalled memory %s is in the text but not whole", h.Path)
		}
		if whole != (decision[h.Path] == Included) {
			t.Errorf("recalled memory %s: in text %v, manifest says %q", h.Path, whole, decision[h.Path])
		}
	}
}
