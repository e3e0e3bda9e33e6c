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

func TestDemote(t *testing.T) {
	tests := []struct {
		name, in, want string
		levels         int
	}{
		{"title and entries", "# T\n\n## E\n\ntext # not heading\n", "## T\n\n### E\n\ntext # not heading\n", 1},
		{"two levels", "## E\n### S", "#### E\n##### S", 2},
		{"capped at six", "##### five\n###### six", "###### five\n###### six", 2},
		{"fenced code untouched", "```sh\n# comment\n```\n# real", "```sh\n# comment\n```\n## real", 1},
		{"tilde fence needs its own closer", "~~~\n# a\n```\n# b\n~~~\n# c", "~~~\n# a\n```\n# b\n~~~\n## c", 1},
		{"hash without space is text", "#hashtag\n#5", "#hashtag\n#5", 1},
		{"indented code is text", "    # code", "    # code", 1},
		{"empty heading", "#\n", "##\n", 1},
		{"setext headings become ATX", "Title\n=====\n\nPart\n---\ntext", "## Title\n\n\n### Part\n\ntext", 1},
		{"thematic break stays", "text\n\n---\n\nmore", "text\n\n---\n\nmore", 1},
		{"list item then dashes stays", "- item\n---", "- item\n---", 1},
		{"underline in a fence stays", "```\nx\n===\n```", "```\nx\n===\n```", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := demote(tt.in, tt.levels); got != tt.want {
				t.Errorf("demote(%q, %d) = %q, want %q", tt.in, tt.levels, got, tt.want)
			}
		})
	}
}

func TestTokenizers(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
	}{
		{O200k, "hello world", 2},
		{Cl100k, "hello world", 2},
		{Chars4, "hello world", 3},
		{Chars4, "東京", 1},
		{O200k, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.text, func(t *testing.T) {
			tok := mustTokenizer(t, tt.name)
			if tok.Name() != tt.name {
				t.Errorf("name %q", tok.Name())
			}
			for i := 0; i < 2; i++ { // the second count comes from the cache
				if got := tok.Count(tt.text); got != tt.want {
					t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
				}
			}
		})
	}
	t.Run("unknown name", func(t *testing.T) {
		_, err := NewTokenizer("gpt2")
		if err == nil || !strings.Contains(err.Error(), `unknown tokenizer "gpt2" (known: chars4, cl100k, o200k)`) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestHitBlock(t *testing.T) {
	b := &builder{prefix: ".teammates/", tok: mustTokenizer(t, Chars4)}
	tests := []struct {
		name string
		hit  recall.Hit
		want string
	}{
		{"typed memory with a section",
			recall.Hit{Path: "b/memory/feedback_x.md", Kind: "typed", Type: "feedback", Name: "No mocks", Heading: "Why", StartLine: 6, EndLine: 9, Text: "Use real services.\n# Note"},
			"## No mocks — Why\n\n_Source: .teammates/b/memory/feedback_x.md:6-9 · typed · feedback_\n\nUse real services.\n### Note\n\n"},
		{"weekly by heading",
			recall.Hit{Path: "b/memory/weekly/2026-W43.md", Kind: "weekly", Heading: "2026-W43", Date: "2026-10-19", StartLine: 7, EndLine: 14, Text: "- shipped"},
			"## 2026-W43\n\n_Source: .teammates/b/memory/weekly/2026-W43.md:7-14 · weekly · 2026-10-19_\n\n- shipped\n\n"},
		{"nothing but a path",
			recall.Hit{Path: "CROSS-TEAM.md", Kind: "crossteam", StartLine: 1, EndLine: 1},
			"## CROSS-TEAM\n\n_Source: .teammates/CROSS-TEAM.md:1-1 · crossteam_\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := b.hitBlock(tt.hit)
			if got.text != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got.text, tt.want)
			}
			if got.tokens != b.tok.Count(tt.want) {
				t.Errorf("tokens %d", got.tokens)
			}
		})
	}
}
