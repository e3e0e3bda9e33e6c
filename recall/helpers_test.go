package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall/hashembed"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtureNow is "today" for the fixture workspace.
var fixtureNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// newWorkspace writes testdata/<name>.txtar into a temporary .teammates
// folder.
func newWorkspace(t *testing.T, name string) *layout.Workspace {
	t.Helper()
	return layouttest.FromTxtarFile(t, filepath.Join("testdata", name+".txtar"))
}

// syncedWorkspace writes testdata/ws.txtar and syncs its index, with
// vectors from the hashed embedder when vectors is set.
func syncedWorkspace(t *testing.T, vectors bool) *layout.Workspace {
	t.Helper()
	ws := newWorkspace(t, "ws")
	opts := Options{}
	if vectors {
		opts.Embedder = hashembed.Embedder{}
	}
	ix, _ := openIndex(t, ws, opts)
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ws
}

// openIndex opens ws's index with the fixture clock and warnings kept
// in the returned buffer.
func openIndex(t *testing.T, ws *layout.Workspace, opts Options) (*Index, *bytes.Buffer) {
	t.Helper()
	var warn bytes.Buffer
	if opts.Now == nil {
		opts.Now = func() time.Time { return fixtureNow }
	}
	opts.Warn = &syncWriter{w: &warn}
	ix, err := Open(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, &warn
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// runSearch runs q and returns the hit paths in order.
func runSearch(t *testing.T, ix *Index, q Query) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%q): %v", q.Text, err)
	}
	return hits
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeFile writes a workspace file.
func writeFile(t *testing.T, ws *layout.Workspace, rel, data string) {
	t.Helper()
	p := ws.Abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// golden compares got (as indented JSON) with testdata/name, or rewrites
// it under -update.
func golden(t *testing.T, name string, got interface{}) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./recall/... -update to create it)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is right)\ngot:\n%s", p, b)
	}
}

// countingEmbedder wraps the hashed embedder and counts embedded texts.
type countingEmbedder struct {
	mu    sync.Mutex
	n     int
	texts []string
	id    string
}

func (c *countingEmbedder) Identity() string {
	if c.id != "" {
		return c.id
	}
	return hashembed.Embedder{}.Identity()
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.n += len(texts)
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
	return hashembed.Embedder{}.Embed(ctx, texts)
}

func (c *countingEmbedder) reset() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n, c.texts = 0, nil
	return n
}

func mv(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}
