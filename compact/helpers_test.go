package compact

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// fromTxtar builds a workspace from a txtar archive whose file names are
// relative to .teammates/, and returns it.
func fromTxtar(t *testing.T, archive string) *layout.Workspace {
	t.Helper()
	return layouttest.FromTxtar(t, txtar.Parse([]byte(archive)))
}

// writeFile writes a workspace file with a fixed modification time.
func writeFile(t testing.TB, ws *layout.Workspace, rel, content string, mtime time.Time) {
	t.Helper()
	p := ws.Abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// snapshot returns every workspace file but .tmp as a txtar archive.
func snapshot(t *testing.T, ws *layout.Workspace) string {
	t.Helper()
	var a txtar.Archive
	err := filepath.WalkDir(ws.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := ws.Rel(p)
		if d.IsDir() {
			if rel == ".tmp" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		a.Files = append(a.Files, txtar.File{Name: rel, Data: b})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(a.Files, func(i, j int) bool { return a.Files[i].Name < a.Files[j].Name })
	return string(txtar.Format(&a))
}

// paths lists a teammate's memory files of the given kind, by path.
func paths(t *testing.T, ws *layout.Workspace, name string, kind layout.Kind) []string {
	t.Helper()
	fs, err := ws.Files(name)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, f := range fs {
		if f.Kind == kind {
			out = append(out, strings.TrimPrefix(f.Path, name+"/memory/"))
		}
	}
	return out
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./compact/... -update to create it)", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n%s", name, diffLines(string(want), got))
	}
}

// diffLines shows the first lines that differ.
func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

const soul = "# Beacon — Search engineer\n"

// topics feed the generated logs; repeating lessons make patterns.
var topics = []string{"recall index", "auth middleware", "deploy pipeline", "flaky tests", "docs site", "release notes", "chunking", "embeddings"}

// genDay returns a daily log with n entries, deterministic in day.
func genDay(day time.Time, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", day.Format(layout.DateLayout))
	seed := day.YearDay() + day.Year()
	for i := 0; i < n; i++ {
		topic := topics[(seed+i)%len(topics)]
		fmt.Fprintf(&b, "\n## Worked on %s (%d)\n\n", topic, i+1)
		fmt.Fprintf(&b, "- Looked into the %s behaviour reported on %s\n", topic, day.Format(layout.DateLayout))
		fmt.Fprintf(&b, "- Wrote notes and a small reproduction for item %d\n", seed%97+i)
		fmt.Fprintf(&b, "- Need to follow up with the team tomorrow about %s\n", topic)
		switch (seed + i) % 9 {
		case 0:
			fmt.Fprintf(&b, "- Decision: keep the %s change behind a flag until %s\n", topic, day.AddDate(0, 0, 14).Format(layout.DateLayout))
		case 4:
			fmt.Fprintf(&b, "- Lesson: always pin versions in the %s setup before testing\n", topic)
		}
	}
	return b.String()
}

// genWorkspace writes a teammate's daily logs for every day in [from, to]
// that keep accepts (nil keeps all), n entries each.
func genWorkspace(t *testing.T, from, to time.Time, n int, keep func(time.Time) bool) *layout.Workspace {
	t.Helper()
	ws := fromTxtar(t, "-- beacon/SOUL.md --\n"+soul)
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		if keep == nil || keep(d) {
			writeFile(t, ws, layout.DailyPath("beacon", d), genDay(d, n), d)
		}
	}
	return ws
}

func day(s string) time.Time {
	t, err := time.Parse(layout.DateLayout, s)
	if err != nil {
		panic(err)
	}
	return t
}

func fixed(s string) func() time.Time {
	t := day(s).Add(12 * time.Hour)
	return func() time.Time { return t }
}
