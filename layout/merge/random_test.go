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

// plan draws m operations for each of n machines, interleaved in time.
func plan(seed int64, n, m int) []op {
	r := rand.New(rand.NewSource(seed))
	start := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	var ops []op
	for k := 0; k < n*m; k++ {
		o := op{clone: k % n, at: start.Add(time.Duration(k) * 3 * time.Hour)}
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

// apply makes the write on the machine's clone and commits it.
func (o op) apply(t *testing.T, c *clone) {
	t.Helper()
	switch o.kind {
	case "log":
		if day := c.oldestDaily(t); day != "" && len(o.text)%3 == 0 {
			// a machine that was offline logs to the day it worked on
			c.logOn(t, day, o.at, o.text, "body of "+o.text)
			break
		}
		c.log(t, o.at, o.text, "body of "+o.text)
	case "remember":
		topic := []string{"auth", "billing"}[len(o.text)%2]
		c.remember(t, o.at, topic, o.text)
	case "compact":
		if day := c.oldestDaily(t); day != "" && day < o.at.Format(layout.DateLayout) {
			archive(t, c, "beacon/memory/"+day+".md", o.at)
		}
	}
	c.commit(t, o.kind)
}

// oldestDaily returns the date of the clone's oldest daily, "" if none.
func (c *clone) oldestDaily(t *testing.T) string {
	t.Helper()
	ents, err := c.ws.ReadDir("beacon/memory")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if dailyName(e.Name()) {
			return strings.TrimSuffix(e.Name(), ".md")
		}
	}
	return ""
}

func dailyName(n string) bool {
	_, err := time.Parse(layout.DateLayout+".md", n)
	return err == nil
}

// syncAll has every machine, in order, pull (settling compacted dailies)
// and push; it returns the final memory files by path and how many
// compacted dailies the merges settled.
func syncAll(t *testing.T, origin string, clones []*clone, order []int) (map[string]string, int) {
	t.Helper()
	settled := 0
	for _, i := range order {
		c := clones[i]
		if out, err := c.pull(t); err != nil {
			notes, err := (merge.Git{Dir: c.dir}).ResolveDeleted(c.ws)
			if err != nil {
				t.Fatal(err)
			}
			settled += len(notes)
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
	final := clones[0]
	files := map[string]string{}
	err := filepath.WalkDir(filepath.Join(final.dir, layout.DirName, "beacon", "memory"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(final.ws.Root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, settled
}

// TestRandomMerges: n machines each make m writes (log, remember create or
// append, compact) in two rounds, and after each round all merge, in a
// random order. Every order gives the same files, holding every entry and
// note, none twice.
func TestRandomMerges(t *testing.T) {
	gitEnv(t)
	const n, m, orders = 3, 6, 2
	for _, seed := range []int64{1, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			ops := plan(seed, n, m)
			r := rand.New(rand.NewSource(seed))
			var first map[string]string
			settled := 0
			for k := 0; k < orders; k++ {
				origin := newOrigin(t, useDriver, nil)
				clones := make([]*clone, n)
				for i := range clones {
					clones[i] = newClone(t, origin, fmt.Sprintf("m%d", i), useDriver)
				}
				var files map[string]string
				for _, round := range [][]op{ops[:len(ops)/2], ops[len(ops)/2:]} {
					for _, o := range round {
						o.apply(t, clones[o.clone])
					}
					var s int
					files, s = syncAll(t, origin, clones, r.Perm(n))
					settled += s
				}
				checkUnion(t, ops, files)
				if first == nil {
					first = files
				} else if d := diffFiles(first, files); d != "" {
					t.Fatalf("merge order %d gives other files than the first:\n%s", k, d)
				}
			}
			if settled == 0 {
				t.Error("no merge had to settle a compacted daily: the plan does not test compaction against appends")
			}
		})
	}
}

// checkUnion checks every written entry and note is in the files: each
// log entry exactly once, in a daily or in the archive; each note once in
// its typed memory.
func checkUnion(t *testing.T, ops []op, files map[string]string) {
	t.Helper()
	var live, archived, typed strings.Builder
	for p, s := range files {
		switch {
		case strings.Contains(p, "/archive/"):
			archived.WriteString(s)
		case dailyName(filepath.Base(p)):
			live.WriteString(s)
		default:
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
