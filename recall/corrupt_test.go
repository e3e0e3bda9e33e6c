package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/hashembed"
)

// probeQueries are asked after every corruption: words for BM25, a
// question for the vectors, CJK, the shared scope and a date; the
// default recency depth adds the two latest weeklies.
var probeQueries = []string{
	"bulk container lookup",
	"where should design reviews be held",
	"検索インデックス",
	"release freeze during the demo week",
	"what happened in week 45 of 2026",
}

// The probe child's operations: search (syncing first, as `tmem recall`
// does), search without syncing (`--no-sync`), or sync (`tmem index`)
// and then search without syncing.
const (
	probeSearch = "probe-search"
	probeNoSync = "probe-nosync"
	probeIndex  = "probe-index"
)

// probeResult is what a probe child prints: two passes, each with a new
// Index, as two runs of tmem would be.
type probeResult struct {
	Passes []probePass
}

type probePass struct {
	Hits [][]Hit // per probe query
	Warn string
}

// probe runs op on the workspace at dir and prints a probeResult.
func probe(dir, op string) int {
	ws, err := layout.Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	var res probeResult
	for pass := 0; pass < 2; pass++ {
		var warn bytes.Buffer
		ix, err := Open(ws, Options{Embedder: hashembed.Embedder{}, Now: func() time.Time { return fixtureNow }, Warn: &warn})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if op == probeIndex {
			if _, err := ix.Sync(ctx, nil); err != nil {
				fmt.Fprintln(os.Stderr, "sync:", err)
				return 1
			}
		}
		var p probePass
		for _, text := range probeQueries {
			hits, err := ix.Search(ctx, Query{Text: text, Teammates: []string{"beacon"}, NoSync: op != probeSearch})
			if err != nil {
				fmt.Fprintf(os.Stderr, "search %q: %v\n", text, err)
				return 1
			}
			p.Hits = append(p.Hits, hits)
		}
		ix.Close()
		p.Warn = warn.String()
		res.Passes = append(res.Passes, p)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runProbe runs op in a child process, so that a panic or a fault on a
// mapped file shows up as a failed run instead of ending the test.
func runProbe(t *testing.T, dir, op string) (probeResult, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TMEM_RECALL_CHILD_WS="+dir, "TMEM_RECALL_CHILD_OP="+op)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return probeResult{}, fmt.Errorf("%s: %v\n%s", op, err, lastLines(errb.String(), 12))
	}
	var res probeResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Passes) != 2 {
		return probeResult{}, fmt.Errorf("%s: output %q: %v", op, out.String(), err)
	}
	return res, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// corruption damages one file of an index.
type corruption struct {
	name  string
	apply func(b []byte, rng *rand.Rand) []byte
}

var corruptions = []corruption{
	{"truncate", func(b []byte, rng *rand.Rand) []byte {
		return b[:rng.IntN(len(b))]
	}},
	{"zero-fill", func(b []byte, rng *rand.Rand) []byte {
		start := rng.IntN(len(b))
		n := 1 + rng.IntN(min(len(b)-start, 4096))
		clear(b[start : start+n])
		return b
	}},
	{"flip", func(b []byte, rng *rand.Rand) []byte {
		for k := 1 + rng.IntN(8); k > 0; k-- {
			b[rng.IntN(len(b))] ^= 1 << rng.IntN(8)
		}
		return b
	}},
}

// TestCorruptIndex damages every file under the indexes a query reads
// (manifest, vectors, and bleve's index_meta.json, root.bolt and
// segments) in every way, with seeded random offsets, and checks that the
// next run answers exactly as a fresh index does, says once that it
// rebuilt, and that the run after it answers the same without a word. The
// runs are child processes: a panic or SIGBUS fails the trial instead of
// ending the test. -short runs one trial per file and kind of damage.
func TestCorruptIndex(t *testing.T) {
	ws := newWorkspace(t, "ws")
	fresh, err := runProbe(t, ws.Root, probeSearch)
	if err != nil {
		t.Fatalf("fresh index: %v", err)
	}
	want := mustJSON(t, fresh.Passes[0].Hits)
	if got := mustJSON(t, fresh.Passes[1].Hits); got != want {
		t.Fatalf("a fresh index answers differently on the second run:\n%s\nthen\n%s", want, got)
	}
	// Each trial damages a copy of the workspace with its fresh index.
	template := filepath.Join(t.TempDir(), layout.DirName)
	copyDir(t, ws.Root, template)
	var files []string // relative to the workspace root
	for _, dir := range []string{ws.IndexDir(""), ws.IndexDir("beacon")} {
		files = append(files, regularFiles(t, ws.Root, dir)...)
	}
	combos := len(files) * len(corruptions)
	trials := combos * ((120 + combos - 1) / combos) // at least 120, every combination as often
	if testing.Short() {
		trials = combos
	}
	ops := []string{probeSearch, probeNoSync, probeIndex}
	for i := 0; i < trials; i++ {
		rel := files[i%len(files)]
		c := corruptions[i/len(files)%len(corruptions)]
		op := ops[(i+i/combos)%len(ops)]
		// Half the trials damage the copy as it is (its files' stat data
		// moved, so they are checked by content); the other half first
		// let a sync take the copy's stat data into the manifest, as if
		// the index had been written in place.
		resync := (i/2)%2 == 1
		t.Run(fmt.Sprintf("%03d %s %s %s resync=%v", i, c.name, rel, op, resync), func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), layout.DirName)
			copyDir(t, template, root)
			if resync {
				resyncCopy(t, root)
			}
			p := filepath.Join(root, filepath.FromSlash(rel))
			orig, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(11, uint64(i)))
			damaged := c.apply(bytes.Clone(orig), rng)
			if err := os.WriteFile(p, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := runProbe(t, root, op)
			if err != nil {
				t.Fatal(err)
			}
			for pass, pr := range res.Passes {
				if got := mustJSON(t, pr.Hits); got != want {
					t.Errorf("run %d answers differently from a fresh index:\n%s\nwant\n%s", pass+1, got, want)
				}
			}
			notice := strings.TrimSuffix(withoutLenientNotices(res.Passes[0].Warn), "\n")
			t.Logf("notice: %s", notice)
			switch {
			case bytes.Equal(orig, damaged) && notice != "":
				t.Errorf("an unchanged file gave the notice %q", notice)
			case !bytes.Equal(orig, damaged) && (!strings.Contains(notice, "tmem: recall: rebuilding the ") || strings.Contains(notice, "\n")):
				t.Errorf("notice %q, want one line saying the index was rebuilt", notice)
			}
			if res.Passes[1].Warn != "" {
				t.Errorf("the run after the repair gave the notice %q", res.Passes[1].Warn)
			}
		})
	}
}

// resyncCopy syncs the workspace at root in process, which records the
// stat data of its index files.
func resyncCopy(t *testing.T, root string) {
	t.Helper()
	ws, err := layout.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	ix, warn := openIndex(t, ws, Options{Embedder: hashembed.Embedder{}})
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if warn.Len() > 0 {
		t.Fatalf("syncing the copy: %s", warn)
	}
}

func mustJSON(t *testing.T, v interface{}) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// regularFiles lists the files under dir, relative to root.
func regularFiles(t *testing.T, root, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
			return err
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyDir copies a folder of regular files, index folders included
// (copyTree leaves those out).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// withoutLenientNotices drops the lines naming a file whose frontmatter
// was read leniently, which a rebuild repeats as it indexes the file again.
func withoutLenientNotices(warn string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(warn, "\n") {
		if !strings.HasSuffix(strings.TrimSuffix(l, "\n"), "its frontmatter was read as key: value lines") {
			b.WriteString(l)
		}
	}
	return b.String()
}
