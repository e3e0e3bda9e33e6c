package merge_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// op is one write a machine makes.
type op struct {
	clone int
	kind  string // "log", "remember", "compact"
	at    time.Time
	text  string
}

// plan draws m operations for each of n machines, interleaved in time
// over about three weeks, so that compaction finds completed weeks.
func plan(seed int64, n, m int) []op {
	r := rand.New(rand.NewSource(seed))
	start := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	step := 21 * 24 * time.Hour / time.Duration(n*m)
	var ops []op
	for k := 0; k < n*m; k++ {
		o := op{clone: k % n, at: start.Add(time.Duration(k) * step)}
		switch x := r.Intn(10); {
		case x < 5:
			o.kind, o.text = "log", fmt.Sprintf("entry %d by machine %d", k, o.clone)
		case x < 8:
			o.kind, o.text = "remember", fmt.Sprintf("note %d by machine %d", k, o.clone)
		default:
			o.kind = "compact"
		}
		ops = append(ops, o)
	}
	return ops
}

// compaction is how the randomized test compacts: dailies go two days
// after their day once their week is over, and their stubs go after fourteen (longer than a round, as a stub outlives the time between two syncs),
// so that both happen within the test's three weeks.
func compaction(now time.Time) compact.Options {
	return compact.Options{Now: func() time.Time { return now }, KeepRecentDays: 2, KeepStubDays: 14}
}

// apply makes the write on the machine's clone and commits it.
func (o op) apply(t *testing.T, c *clone) {
	t.Helper()
	switch o.kind {
	case "log":
		if day := c.oldestDaily(t, o.at); day != "" && len(o.text)%3 == 0 {
			// a machine that was offline logs to the day it worked on
			c.logOn(t, day, o.at, o.text, "body of "+o.text)
			break
		}
		c.log(t, o.at, o.text, "body of "+o.text)
	case "remember":
		topic := []string{"auth", "billing"}[len(o.text)%2]
		c.remember(t, o.at, topic, o.text)
	case "compact":
		compactWith(t, c, compaction(o.at))
	}
	c.commit(t, o.kind)
}

// oldestDaily returns the date of the clone's oldest daily of the week
// before now that is not a compacted daily's stub, "" if none.
func (c *clone) oldestDaily(t *testing.T, now time.Time) string {
	t.Helper()
	ents, err := c.ws.ReadDir("beacon/memory")
	if err != nil {
		t.Fatal(err)
	}
	from := now.AddDate(0, 0, -7).Format(layout.DateLayout)
	for _, e := range ents {
		if dailyName(e.Name()) && e.Name() >= from && !layout.HasStub(c.read(t, "beacon/memory/"+e.Name())) {
			return strings.TrimSuffix(e.Name(), ".md")
		}
	}
	return ""
}

func dailyName(n string) bool {
	_, err := time.Parse(layout.DateLayout+".md", n)
	return err == nil
}

// tally counts how the merges of a sync went.
type tally struct {
	stubs   int // compacted dailies the driver merged with appended entries
	settled int // modify/delete conflicts settled by ResolveDeleted
}

// syncAll has every machine, in order, pull (settling compacted dailies
// whose stub was deleted) and push; it returns the teammate's files by
// path once all have pulled.
func syncAll(t *testing.T, clones []*clone, order []int, n *tally) map[string]string {
	t.Helper()
	for _, i := range order {
		c := clones[i]
		out, err := c.pull(t)
		n.stubs += len(driverNotes(out))
		if err != nil {
			notes, err := (merge.Git{Dir: c.dir}).ResolveDeleted(c.ws)
			if err != nil {
				t.Fatal(err)
			}
			n.settled += len(notes)
			if u := git(t, c.dir, "ls-files", "-u"); u != "" {
				t.Fatalf("machine %d: merge left conflicts:\n%s\n%s", i, out, u)
			}
			git(t, c.dir, "commit", "--quiet", "--no-edit")
		}
		c.push(t)
	}
	for _, c := range clones {
		if out, err := c.pull(t); err != nil {
			t.Fatalf("pull after sync: %v\n%s", err, out)
		}
	}
	return tree(t, clones[0])
}

// tree returns the clone's teammate files by path.
func tree(t *testing.T, c *clone) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(filepath.Join(c.ws.Root, "beacon"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(c.ws.Rel(p))] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRandomMerges: n machines each make m writes (log, remember create or
// append, real compaction) in three rounds of a week, and after each round all merge,
// in a random order. Every order gives the same files, holding every
// entry and note once, none lost; every archived entry has one bullet in
// the summaries.
func TestRandomMerges(t *testing.T) {
	gitEnv(t)
	const n, m, orders = 3, 8, 2
	var total tally
	cited := 0
	for _, seed := range seeds() {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			ops := plan(seed, n, m)
			r := rand.New(rand.NewSource(seed))
			var first map[string]string
			for k := 0; k < orders; k++ {
				origin := newOrigin(t, useDriver, nil)
				clones := make([]*clone, n)
				for i := range clones {
					clones[i] = newClone(t, origin, fmt.Sprintf("m%d", i), useDriver)
				}
				var files map[string]string
				for _, round := range [][]op{ops[:len(ops)/3], ops[len(ops)/3 : 2*len(ops)/3], ops[2*len(ops)/3:]} {
					for _, o := range round {
						o.apply(t, clones[o.clone])
					}
					files = syncAll(t, clones, r.Perm(n), &total)
				}
				checkUnion(t, ops, files)
				cited += checkCitations(t, files)
				if first == nil {
					first = files
				} else if d := diffFiles(first, files); d != "" {
					t.Fatalf("merge order %d gives other files than the first:\n%s", k, d)
				}
			}
		})
	}
	t.Logf("stubs merged by the driver: %d, modify/delete settled: %d", total.stubs, total.settled)
	if cited == 0 {
		t.Error("no summary cites a log: the plans do not compact")
	}
	if total.stubs == 0 && !testing.Short() {
		t.Error("no merge met a compacted daily that the other side appended to: the plans do not test compaction against appends")
	}
}

// checkUnion checks every written entry and note is in the files: each
// log entry exactly once, in a daily or in the archive, and once in the
// summaries when archived; each note once in a typed memory, live or
// archived.
func checkUnion(t *testing.T, ops []op, files map[string]string) {
	t.Helper()
	var live, archived, summaries, typed strings.Builder
	for p, s := range files {
		switch {
		case strings.Contains(p, "/archive/typed/"):
			typed.WriteString(s)
		case strings.Contains(p, "/archive/"):
			archived.WriteString(s)
		case strings.Contains(p, "/weekly/"), strings.Contains(p, "/monthly/"):
			summaries.WriteString(s)
		case dailyName(filepath.Base(p)):
			live.WriteString(s)
		case strings.Contains(p, "/memory/"):
			typed.WriteString(s)
		}
	}
	for _, o := range ops {
		switch o.kind {
		case "log":
			h := "## " + o.text + "\n"
			l, a := strings.Count(live.String(), h), strings.Count(archived.String(), h)
			if l+a != 1 {
				t.Errorf("%q: %d times in dailies, %d in the archive; want once in one of them", o.text, l, a)
			}
			b := strings.Count(summaries.String(), "- "+o.text+" ") + strings.Count(summaries.String(), "- "+o.text+"\n")
			if a == 1 && b != 1 {
				t.Errorf("%q: archived, with %d bullets in the summaries; want 1", o.text, b)
			}
		case "remember":
			if c := strings.Count(typed.String(), o.text+"\n"); c != 1 {
				t.Errorf("%q: %d times in typed memories, want once", o.text, c)
			}
		}
	}
}

func diffFiles(a, b map[string]string) string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out strings.Builder
	for _, k := range keys {
		if a[k] != b[k] {
			fmt.Fprintf(&out, "--- %s\n%s\n+++ %s\n%s\n", k, a[k], k, b[k])
		}
	}
	return out.String()
}

// seeds are the plans TestRandomMerges runs: four, or one under -short.
func seeds() []int64 {
	if testing.Short() {
		return []int64{1}
	}
	return []int64{1, 2, 3, 4}
}
