package compact

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

func semanticFixture(t *testing.T) (ws interface{ Abs(string) string }, run func(Options) (*Result, error), tree func() string) {
	t.Helper()
	b, err := os.ReadFile("testdata/semantic-in.txtar")
	if err != nil {
		t.Fatal(err)
	}
	w := fromTxtar(t, string(b))
	old := day("2026-06-01")
	for _, f := range mustFiles(t, w, "beacon") {
		if err := os.Chtimes(w.Abs(f.Path), old, old); err != nil {
			t.Fatal(err)
		}
	}
	return w, func(o Options) (*Result, error) {
			o.Semantic, o.Now = true, fixed("2026-11-18")
			return Run(context.Background(), w, o)
		}, func() string {
			return snapshot(t, w)
		}
}

// TestSemantic distils the fixture's memories into WISDOM.md: similar
// memories make a new entry or reinforce an existing one, absorbed ones
// are deleted unless still active, others are left.
func TestSemantic(t *testing.T) {
	ws, run, tree := semanticFixture(t)
	res, err := run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := tree()
	golden(t, "semantic.txtar", got)
	wantDeleted := []string{"beacon/memory/feedback_no_mocks.md", "beacon/memory/feedback_real_api.md", "beacon/memory/feedback_review_size.md", "beacon/memory/feedback_small_prs.md"}
	del := append([]string{}, res.Deleted...)
	sortStrings(del)
	if !reflect.DeepEqual(del, wantDeleted) {
		t.Errorf("deleted %q, want %q", del, wantDeleted)
	}
	for _, keep := range []string{"feedback_changelog.md", "project_mock_drift.md", "reference_dashboards.md"} {
		if _, err := os.Stat(ws.Abs("beacon/memory/" + keep)); err != nil {
			t.Errorf("%s should be left: %v", keep, err)
		}
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	for _, want := range []string{
		`Sources: archive/typed/feedback_small_prs.md sha256:[0-9a-f]{12}, archive/typed/feedback_review_size.md sha256:[0-9a-f]{12}\n`,
		`Keep this exactly as it is, even though nothing cites it.`,
		`archive/typed/feedback_no_mocks.md sha256:[0-9a-f]{12}, archive/typed/feedback_real_api.md sha256:[0-9a-f]{12}, project_mock_drift.md sha256:[0-9a-f]{12} \(active\) <!-- tmem:text sha256:[0-9a-f]{12} -->`,
		`Why: mocked tests passed but the prod migration failed\. How to apply: run integration tests against the staging environment\.`,
	} {
		if !regexp.MustCompile(want).Match(w) {
			t.Errorf("WISDOM.md lacks %q:\n%s", want, w)
		}
	}
	for _, f := range wantDeleted {
		a, _ := os.ReadFile(ws.Abs(strings.Replace(f, "memory/", "memory/archive/typed/", 1)))
		if !strings.Contains(string(a), "type: feedback") {
			t.Errorf("%s was deleted without its archive copy", f)
		}
	}
	res, err = run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Units) != 0 || tree() != got {
		t.Errorf("second run is not a no-op: %+v", res.Plan.Units)
	}
	t.Run("an active source is absorbed once it settles", func(t *testing.T) {
		p := ws.Abs("beacon/memory/project_mock_drift.md")
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), "status: active\n", "", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		old := day("2026-06-01")
		os.Chtimes(p, old, old)
		res, err := run(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Deleted, []string{"beacon/memory/project_mock_drift.md"}) {
			t.Errorf("deleted %q, want the settled memory", res.Deleted)
		}
		w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
		if !regexp.MustCompile(`archive/typed/project_mock_drift.md sha256:[0-9a-f]{12} <!--`).Match(w) {
			t.Errorf("the settled memory is not cited where it now is:\n%s", w)
		}
	})
}

// TestRemovedActiveSource: a memory cited as active that a person then
// removes (or renames) is no longer cited as active.
func TestRemovedActiveSource(t *testing.T) {
	ws, run, _ := semanticFixture(t)
	if _, err := run(Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ws.Abs("beacon/memory/project_mock_drift.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := run(Options{}); err != nil {
		t.Fatal(err)
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	if !regexp.MustCompile(`, project_mock_drift.md sha256:[0-9a-f]{12} <!--`).Match(w) {
		t.Errorf("the removed memory is not cited by its name without (active):\n%s", w)
	}
}

// TestBrokenMemoryIsNamed: a typed memory whose frontmatter does not
// parse is left as it is and out of WISDOM.md, and the run names it, with
// its line, once, and fails, as it does for a daily that does not parse;
// the other memories are distilled.
func TestBrokenMemoryIsNamed(t *testing.T) {
	ws, run, _ := semanticFixture(t)
	const rel = "beacon/memory/feedback_broken.md"
	broken := "---\nname: x\ndescription: \"unclosed\ntype: feedback\n---\n\nbody\n"
	if err := os.WriteFile(ws.Abs(rel), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := run(Options{})
	if err == nil || !strings.Contains(err.Error(), rel+":") {
		t.Fatalf("run: %v, want it to fail naming %s", err, rel)
	}
	n := 0
	for _, f := range res.Plan.Failed {
		if f.Unit == rel {
			n++
			if !strings.Contains(f.String(), "left out of WISDOM.md until it parses") {
				t.Errorf("failure %q", f)
			}
		}
	}
	if n != 1 {
		t.Errorf("%s failed %d times in the plan, want once: %+v", rel, n, res.Plan.Failed)
	}
	if b, _ := os.ReadFile(ws.Abs(rel)); string(b) != broken {
		t.Errorf("the broken memory changed:\n%s", b)
	}
	if w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md")); !strings.Contains(string(w), "Sources:") {
		t.Errorf("the other memories were not distilled:\n%s", w)
	}
}

// TestWisdomBudget checks that an over-budget WISDOM.md gets merge
// proposals for its least-reinforced entries and is never truncated.
func TestWisdomBudget(t *testing.T) {
	ws, run, _ := semanticFixture(t)
	res, err := run(Options{WisdomBudget: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Merges) == 0 {
		t.Fatal("no merge suggested for an over-budget WISDOM.md")
	}
	if p := res.Plan.Merges[0]; !reflect.DeepEqual(p.Entries[:1], []string{"Hand-written entry"}) {
		t.Errorf("first suggestion %q, want the least-reinforced entry (Hand-written entry) first", p.Entries)
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	for _, h := range []string{"## Ship small changes", "## Hand-written entry", "## Real API in integration tests"} {
		if !strings.Contains(string(w), h) {
			t.Errorf("WISDOM.md lost %q", h)
		}
	}
	res, err = run(Options{})
	if err != nil || len(res.Plan.Merges) != 0 {
		t.Errorf("under the default budget: suggestions %v, err %v", res.Plan.Merges, err)
	}
}

// TestExtractTypedMemories checks that lessons and facts in dailies become
// typed memories, join a similar memory instead of duplicating it, and
// are added once however often they recur.
func TestExtractTypedMemories(t *testing.T) {
	ws := fromTxtar(t, `-- beacon/SOUL.md --
# Beacon
-- beacon/memory/feedback_pin_versions.md --
---
name: Pin versions
description: Pin tool versions in CI
type: feedback
---

Lesson: pin tool versions in CI.
-- beacon/memory/2026-11-02.md --
# 2026-11-02

## CI broke

- Lesson: pin the linter versions in CI too
- Fact: the staging database is reset every Sunday night

## Lessons learned

- Retry budgets belong in config, not code
-- beacon/memory/2026-11-10.md --
# 2026-11-10

## Again

- Lesson: pin the linter versions in CI too
- #lesson retry budgets belong in config, not code
`)
	if _, err := Run(context.Background(), ws, Options{Episodic: true, Now: fixed("2026-11-25")}); err != nil {
		t.Fatal(err)
	}
	got := paths(t, ws, "beacon", "typed")
	want := []string{"feedback_pin_linter_versions_ci.md", "feedback_pin_versions.md", "feedback_retry_budgets_belong_config.md", "project_staging_database_reset_every.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("typed memories %q, want %q", got, want)
	}
	pin, _ := os.ReadFile(ws.Abs("beacon/memory/feedback_pin_versions.md"))
	if strings.Contains(string(pin), "linter") {
		t.Errorf("a different lesson was merged into an existing memory:\n%s", pin)
	}
	linter, _ := os.ReadFile(ws.Abs("beacon/memory/feedback_pin_linter_versions_ci.md"))
	if strings.Count(string(linter), "Lesson: pin the linter versions in CI too") != 1 {
		t.Errorf("the recurring lesson is not in its memory exactly once:\n%s", linter)
	}
	for _, want := range []string{"name: Pin the linter versions in CI too\n", "- 2026-11-02.md sha256:"} {
		if !strings.Contains(string(linter), want) {
			t.Errorf("the new memory lacks %q:\n%s", want, linter)
		}
	}
	retry, _ := os.ReadFile(ws.Abs("beacon/memory/feedback_retry_budgets_belong_config.md"))
	if !strings.Contains(string(retry), "#lesson retry budgets belong in config, not code") {
		t.Errorf("the tagged lesson was not added to the memory that says the same:\n%s", retry)
	}
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

// wisdomFixture has an entry tmem wrote from two memories, the first still
// active, and returns the workspace.
func wisdomFixture(t *testing.T) *layout.Workspace {
	t.Helper()
	ws := settledPair(t, "status: active\n")
	if _, err := Run(context.Background(), ws, Options{Semantic: true, Now: fixed("2026-11-18")}); err != nil {
		t.Fatal(err)
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	if !regexp.MustCompile(`feedback_staging.md sha256:[0-9a-f]{12} \(active\)`).Match(w) || !strings.Contains(string(w), "<!-- tmem:text") {
		t.Fatalf("fixture: no entry citing the active memory:\n%s", w)
	}
	return ws
}

// settle rewrites a memory's body as a person would and lets it settle.
func settle(t *testing.T, ws *layout.Workspace, rel, from, to string) {
	t.Helper()
	b, _ := os.ReadFile(ws.Abs(rel))
	s := strings.Replace(strings.Replace(string(b), from, to, 1), "status: active\n", "", 1)
	old := day("2026-06-01")
	writeFile(t, ws, rel, s, old)
}

// TestRedistilChangedSource checks that a memory changed after it was
// cited is distilled into the entry again before it is absorbed.
func TestRedistilChangedSource(t *testing.T) {
	ws := wisdomFixture(t)
	settle(t, ws, "beacon/memory/feedback_staging.md", "local fakes hid a schema bug.", "the March outage came from a mocked queue.")
	if _, err := Run(context.Background(), ws, Options{Semantic: true, Now: fixed("2026-11-25")}); err != nil {
		t.Fatal(err)
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	if !strings.Contains(string(w), "Why: the March outage came from a mocked queue.") {
		t.Errorf("the changed memory's text was not distilled into the entry:\n%s", w)
	}
	if !regexp.MustCompile(`archive/typed/feedback_staging.md sha256:[0-9a-f]{12}`).Match(w) {
		t.Errorf("the settled memory is not cited in the archive:\n%s", w)
	}
	a, _ := os.ReadFile(ws.Abs("beacon/memory/archive/typed/feedback_staging.md"))
	if !strings.Contains(string(a), "mocked queue") {
		t.Errorf("the archived copy is not the changed memory:\n%s", a)
	}
}

// TestEditedWisdomKept checks that an entry a person rewrote keeps its
// text when its sources change: only its Sources line is updated.
func TestEditedWisdomKept(t *testing.T) {
	ws := wisdomFixture(t)
	p := ws.Abs("beacon/WISDOM.md")
	b, _ := os.ReadFile(p)
	edited := regexp.MustCompile(`(?m)^Integration tests must use the real database.*$`).ReplaceAllString(string(b), "Our own words: staging, always, for every integration test.")
	if edited == string(b) {
		t.Fatalf("fixture entry text not found:\n%s", b)
	}
	writeFile(t, ws, "beacon/WISDOM.md", edited, day("2026-11-19"))
	settle(t, ws, "beacon/memory/feedback_staging.md", "local fakes hid a schema bug.", "the March outage came from a mocked queue.")
	if _, err := Run(context.Background(), ws, Options{Semantic: true, Now: fixed("2026-11-25")}); err != nil {
		t.Fatal(err)
	}
	w, _ := os.ReadFile(p)
	if !strings.Contains(string(w), "Our own words: staging, always, for every integration test.") || strings.Contains(string(w), "mocked queue") {
		t.Errorf("a person's entry was rewritten:\n%s", w)
	}
	if !strings.Contains(string(w), "archive/typed/feedback_staging.md") {
		t.Errorf("its Sources line was not updated:\n%s", w)
	}
}

// TestEvolvingDaysBeyondADuration: a window of more days than a
// time.Duration holds (about 292 years) keeps every memory evolving, as
// any long window does, instead of overflowing into none.
func TestEvolvingDaysBeyondADuration(t *testing.T) {
	ws := settledPair(t, "")
	res, err := Run(context.Background(), ws, Options{Semantic: true, Now: fixed("2026-11-18"), EvolvingDays: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Deleted) != 0 {
		t.Errorf("deleted %q: memories inside the window are still evolving", res.Deleted)
	}
	w, _ := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
	if !regexp.MustCompile(`feedback_staging.md sha256:[0-9a-f]{12} \(active\)`).Match(w) {
		t.Errorf("the memory is not cited as active:\n%s", w)
	}
}

// settledPair writes two feedback memories that say the same thing, last
// changed on 2026-06-01; status is a frontmatter line for the first
// ("status: active\n") or empty.
func settledPair(t *testing.T, status string) *layout.Workspace {
	t.Helper()
	ws := fromTxtar(t, `-- beacon/SOUL.md --
# Beacon
-- beacon/memory/feedback_staging.md --
---
name: Test on staging
description: Run integration tests on staging
type: feedback
`+status+`---

Run integration tests on staging.

**Why:** local fakes hid a schema bug.
-- beacon/memory/feedback_real_db.md --
---
name: Real database in tests
description: Integration tests use the real database
type: feedback
---

Integration tests must use the real database on staging.
`)
	old := day("2026-06-01")
	for _, f := range mustFiles(t, ws, "beacon") {
		os.Chtimes(ws.Abs(f.Path), old, old)
	}
	return ws
}

// TestCompactionKeepsCRLFFiles: a file written with CRLF line endings
// that compaction rewrites (WISDOM.md, a weekly summary a person saved)
// keeps them on every line, the lines it adds too.
func TestCompactionKeepsCRLFFiles(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	mixed := func(t *testing.T, ws interface{ Abs(string) string }, rel string) {
		t.Helper()
		b, err := os.ReadFile(ws.Abs(rel))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n") - strings.Count(string(b), "\r\n"); n > 0 {
			t.Errorf("%s has %d lines ending in LF alone:\n%q", rel, n, b)
		}
	}
	t.Run("WISDOM.md", func(t *testing.T) {
		ws, run, _ := semanticFixture(t)
		p := ws.Abs("beacon/WISDOM.md")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(crlf(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := run(Options{}); err != nil {
			t.Fatal(err)
		}
		mixed(t, ws, "beacon/WISDOM.md")
		res, err := run(Options{})
		if err != nil || len(res.Plan.Units) != 0 {
			t.Errorf("second run: %v, units %+v; want nothing to do", err, res.Plan.Units)
		}
	})
	t.Run("a weekly summary", func(t *testing.T) {
		ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n")
		old := day("2026-03-20")
		writeFile(t, ws, "beacon/memory/weekly/2026-W11.md", crlf("---\ntype: weekly\nweek: 2026-W11\nteammate: beacon\n---\n\n# Week 2026-W11\n\nSaved by hand.\n"), old)
		writeFile(t, ws, "beacon/memory/2026-03-10.md", "# 2026-03-10\n\n## Late entry\n\nDecision: pin images.\n", old)
		if _, err := Run(context.Background(), ws, Options{Episodic: true, Now: fixed("2026-03-30")}); err != nil {
			t.Fatal(err)
		}
		mixed(t, ws, "beacon/memory/weekly/2026-W11.md")
	})
}

// TestMergeSuggestionsRedacted: a merge suggested for an over-budget
// WISDOM.md names its entries with any secret in their titles shown as
// [REDACTED:kind]: the plan goes to stdout and to MCP clients.
func TestMergeSuggestionsRedacted(t *testing.T) {
	ws, run, _ := semanticFixture(t)
	p := ws.Abs("beacon/WISDOM.md")
	w, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	token := fakeToken()
	w = []byte(strings.Replace(string(w), "## Hand-written entry", "## Hand-written entry "+token, 1))
	if err := os.WriteFile(p, w, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := run(Options{WisdomBudget: 20, DryRun: true})
	if err != nil || len(res.Plan.Merges) == 0 {
		t.Fatalf("no merge suggested: %v", err)
	}
	for _, m := range res.Plan.Merges {
		all := strings.Join(m.Entries, "\n") + "\n" + m.Reason
		if strings.Contains(all, token) {
			t.Errorf("suggestion shows the token: %+v", m)
		}
	}
	if m := res.Plan.Merges[0]; !strings.Contains(m.Entries[0], "[REDACTED:github-token]") {
		t.Errorf("first suggestion %q does not name the entry with its marker", m.Entries)
	}
}

// TestMergeSuggestionsPairAlike: an over-budget WISDOM.md gets a merge
// suggested only for entries alike enough to cluster, each with the first
// of those most like it; an entry like no other (or the only one) is named
// alone, to shorten by hand, never paired with an unrelated one, and an
// entry whose like is already paired is not named as like no other.
func TestMergeSuggestionsPairAlike(t *testing.T) {
	const (
		run     = "## Run integration tests against staging\n\nRun the integration tests against the staging database before each release.\n\n"
		tests   = "## Integration tests run against staging\n\nIntegration tests run against the staging database before every release.\n\n"
		boards  = "## Dashboards live in the ops folder\n\nEvery service dashboard is kept in the ops folder of the monorepo.\n\n"
		backups = "## Nightly database backups\n\nThe staging database and the production database are backed up every night before the release.\n\n"
		same    = "\n\nRun the integration tests against the staging database before each release, every time.\n\n"
	)
	runPair := [][]string{{"Run integration tests against staging", "Integration tests run against staging"}}
	cases := []struct {
		name         string
		wisdom       string
		pairs, alone [][]string
	}{
		{name: "an unlike entry first", wisdom: boards + run + tests, pairs: runPair, alone: [][]string{{"Dashboards live in the ops folder"}}},
		{name: "an entry whose like is paired", wisdom: run + backups + tests, pairs: runPair},
		{name: "one entry", wisdom: "## Staging first" + same, alone: [][]string{{"Staging first"}}},
		{name: "a tie", wisdom: "## Staging first" + same + "## Staging second" + same + "## Staging third" + same,
			pairs: [][]string{{"Staging first", "Staging second"}}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "-- beacon/SOUL.md --\n# Beacon\n-- beacon/WISDOM.md --\n# Wisdom\n\n"+tt.wisdom)
			res, err := Run(context.Background(), ws, Options{Semantic: true, Now: fixed("2026-11-18"), WisdomBudget: 20, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			pairs, alone := suggestionsByKind(t, res.Plan.Merges)
			if !reflect.DeepEqual(pairs, tt.pairs) || !reflect.DeepEqual(alone, tt.alone) {
				t.Errorf("pairs %q and alone %q, want %q and %q", pairs, alone, tt.pairs, tt.alone)
			}
		})
	}
}

// suggestionsByKind splits suggestions into merges and entries to
// shorten, checking that each has the entries its kind says.
func suggestionsByKind(t *testing.T, ms []MergeSuggestion) (pairs, alone [][]string) {
	t.Helper()
	for _, m := range ms {
		switch {
		case m.Kind == "merge" && len(m.Entries) == 2:
			pairs = append(pairs, m.Entries)
		case m.Kind == "shorten" && len(m.Entries) == 1:
			alone = append(alone, m.Entries)
		default:
			t.Errorf("suggestion of kind %q with %d entries: %+v", m.Kind, len(m.Entries), m)
		}
	}
	return pairs, alone
}
