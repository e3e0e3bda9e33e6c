package compact

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

// A conversation logged as memory, LoCoMo style: one daily per session,
// one "## Session N — time" entry, one bullet per turn tagged with its id
// ("- [D3:7] Ana: …"). Every turn carries details of its own, and a
// question asks for one turn by some of its words.
var (
	convSpeakers = []string{"Ana", "Ben"}
	convTopics   = []string{"pottery class", "camping trip", "adoption agency", "violin lessons", "marathon training", "garden shed", "book club", "job interview", "road trip", "charity bake sale", "dance recital", "beach cleanup", "science fair", "family reunion", "photography workshop", "volunteer shift", "birthday party", "art exhibit", "hiking club", "cooking contest"}
	convPlaces   = []string{"Lisbon", "Denver", "Kyoto", "Oslo", "Austin", "Nairobi", "Quebec", "Seville", "Tucson", "Galway", "Bergen", "Porto", "Utrecht", "Hobart", "Cusco"}
	convThings   = []string{"lantern", "compass", "kayak", "quilt", "telescope", "harmonica", "easel", "terrarium", "sketchbook", "thermos", "hammock", "metronome", "sourdough", "bonsai", "typewriter", "mosaic", "canoe", "scarf", "puzzle", "kite"}
	convFillers  = []string{"That sounds wonderful, tell me more!", "I am so happy for you.", "How have you been lately?", "Talk to you soon!", "Thanks for listening, it means a lot."}
)

// genConversation writes sessions of a conversation into ws for teammate
// name, starting at from, one every few days, and returns questions about
// some of its turns.
func genConversation(t testing.TB, ws *layout.Workspace, name string, from time.Time, sessions, turns int, seed int64) []recall.EvidenceQuestion {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	var qs []recall.EvidenceQuestion
	d := from
	for s := 1; s <= sessions; s++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n## Session %d — %d:%02d pm\n", d.Format(layout.DateLayout), s, 1+r.Intn(11), r.Intn(60))
		for i := 1; i <= turns; i++ {
			who := convSpeakers[i%2]
			id := fmt.Sprintf("D%d:%d", s, i)
			if r.Intn(4) == 0 {
				fmt.Fprintf(&b, "- [%s] %s: %s\n", id, who, convFillers[r.Intn(len(convFillers))])
				continue
			}
			topic, place, thing := convTopics[r.Intn(len(convTopics))], convPlaces[r.Intn(len(convPlaces))], convThings[r.Intn(len(convThings))]
			n := 2 + r.Intn(40)
			fmt.Fprintf(&b, "- [%s] %s: After the %s in %s I bought a %s for %d dollars (receipt R%d%02d).\n", id, who, topic, place, thing, n, s, i)
			if r.Intn(3) == 0 {
				qs = append(qs, recall.EvidenceQuestion{ID: id, Category: "single-hop", Evidence: []string{id},
					Question: fmt.Sprintf("What did %s buy in %s after the %s?", who, place, topic)})
			}
		}
		writeFile(t, ws, layout.DailyPath(name, d), b.String(), d)
		d = d.AddDate(0, 0, 3+r.Intn(8))
	}
	return qs
}

// recallScore indexes ws (BM25 only) as of now and scores the questions.
func recallScore(t testing.TB, ws *layout.Workspace, now time.Time, qs []recall.EvidenceQuestion) recall.EvidenceScore {
	t.Helper()
	ix, err := recall.Open(ws, recall.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	s, err := recall.ScoreEvidence(context.Background(), ix, qs, recall.Query{Mode: recall.ModeBM25, RecencyDepth: -1}, 10)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// memoryFiles counts the files under a teammate's memory folder.
func memoryFiles(t testing.TB, ws *layout.Workspace, name string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(ws.Abs(name+"/memory"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// contextTokens builds the teammate's prompt stack for a task and returns
// its manifest.
func contextManifest(t testing.TB, ws *layout.Workspace, name, task string, now time.Time) memctx.Manifest {
	t.Helper()
	ix, err := recall.Open(ws, recall.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	tk, err := memctx.NewTokenizer("chars4")
	if err != nil {
		t.Fatal(err)
	}
	res, err := memctx.Build(context.Background(), ws, memctx.Options{Teammate: name, Task: task, Now: func() time.Time { return now }, Recaller: ix, Tokenizer: tk})
	if err != nil {
		t.Fatal(err)
	}
	return res.Manifest
}

// TestCompactionKeepsFacts compacts a generated conversation (weeklies a
// week after its last session, monthlies a year later) and checks that
// every turn asked about is still found in the top 10 by a word only it
// has, as it was before, and that the prompt stack stays within its
// budget. Recall@10 of the questions themselves is logged: on this
// templated conversation the summaries' short bullets take some top-10
// slots from the archived turns (see BenchmarkCompactionRecall).
func TestCompactionKeepsFacts(t *testing.T) {
	ws := fromTxtar(t, "-- conv/SOUL.md --\n# Conv\n")
	qs := genConversation(t, ws, "conv", day("2025-01-06"), 30, 24, 7)
	last := lastDaily(t, ws, "conv")
	yearLater := last.AddDate(1, 0, 1)
	known := knownItems(t, ws, "conv", qs)
	before := recallScore(t, ws, yearLater, qs)
	foundBefore := foundTurns(t, ws, yearLater, known)
	if len(foundBefore) != len(known) {
		t.Fatalf("before compaction only %d of %d turns are found by their receipt", len(foundBefore), len(known))
	}
	compactTwice(t, ws, last, yearLater)
	if d, m := paths(t, ws, "conv", layout.KindDaily), paths(t, ws, "conv", layout.KindMonthly); len(d) != 0 || len(m) < 5 {
		t.Fatalf("dailies %v left, monthlies %v: the test must reach monthlies", d, m)
	}
	foundAfter := foundTurns(t, ws, yearLater, known)
	for id := range foundBefore {
		if !foundAfter[id] {
			t.Errorf("turn %s was found by its receipt before compaction, not after", id)
		}
	}
	after := recallScore(t, ws, yearLater, qs)
	t.Logf("recall@10 over %d questions: %.3f before, %.3f after; %d memory files", len(qs), before.Recall, after.Recall, memoryFiles(t, ws, "conv"))
	m := contextManifest(t, ws, "conv", qs[0].Question, yearLater)
	if m.Budget.Exceeded || m.Budget.Used > m.Budget.Total {
		t.Errorf("context used %d of %d tokens", m.Budget.Used, m.Budget.Total)
	}
}

// compactTwice compacts as a weekly cron would see it a week after the
// last session, then a year later.
func compactTwice(t testing.TB, ws *layout.Workspace, last, yearLater time.Time) {
	t.Helper()
	for _, now := range []time.Time{last.AddDate(0, 0, 8), yearLater} {
		now := now.Add(12 * time.Hour)
		if _, err := Run(context.Background(), ws, Options{Now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
	}
}

// foundTurns returns the evidence turns found in the top 10 of their
// questions.
func foundTurns(t testing.TB, ws *layout.Workspace, now time.Time, qs []recall.EvidenceQuestion) map[string]bool {
	t.Helper()
	ix, err := recall.Open(ws, recall.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	out := map[string]bool{}
	for _, q := range qs {
		s, err := recall.ScoreEvidence(context.Background(), ix, []recall.EvidenceQuestion{q}, recall.Query{Mode: recall.ModeBM25, RecencyDepth: -1}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if s.Recall == 1 {
			out[q.Evidence[0]] = true
		}
	}
	return out
}

// knownItems turns each question into a search for its evidence turn's
// receipt number, a word no other turn has.
func knownItems(t testing.TB, ws *layout.Workspace, name string, qs []recall.EvidenceQuestion) []recall.EvidenceQuestion {
	t.Helper()
	out := make([]recall.EvidenceQuestion, len(qs))
	for i, q := range qs {
		var s, n int
		if _, err := fmt.Sscanf(q.Evidence[0], "D%d:%d", &s, &n); err != nil {
			t.Fatal(err)
		}
		out[i] = q
		out[i].Question = fmt.Sprintf("receipt R%d%02d", s, n)
	}
	return out
}

func lastDaily(t testing.TB, ws *layout.Workspace, name string) time.Time {
	t.Helper()
	var last time.Time
	for _, f := range mustFiles(t, ws, name) {
		if f.Kind == layout.KindDaily && f.Date.After(last) {
			last = f.Date
		}
	}
	return last
}
