package recall

import (
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout/layouttest"
)

// TestSearchKeepsFileTexts searches with Options.FileClock, which keeps
// the lines of the files hits come from between searches, again and
// after the hit's file changes behind the index (same size, same mtime):
// every answer must be an uncached index's. Chunks are a line each, so
// that a hit shows the lines around its chunk.
func TestSearchKeepsFileTexts(t *testing.T) {
	ws := newWorkspace(t, "ws")
	rel := "beacon/memory/project_zephyr.md"
	writeFile(t, ws, rel, "---\nname: Zephyr\ndescription: the gateway\ntype: project\n---\n"+
		"Harbor cranes lift the heavy steel boxes from the ships onto the long quay every morning.\n"+
		"The zephyr quasar gateway drains carrier events.\n"+
		"Night shifts watch the yard cameras and write down every truck that leaves the gate late.\n")
	chunking := ChunkOptions{TargetTokens: 12, OverlapTokens: -1}
	// An hour ahead of the files' times: every file counts as settled.
	cached, _ := openIndex(t, ws, Options{Chunking: chunking, FileClock: func() time.Time { return time.Now().Add(time.Hour) }})
	q := Query{Text: "zephyr quasar gateway", Teammates: []string{"beacon"}, K: 5}
	edit := func(old, new string) func(t *testing.T) {
		return func(t *testing.T) { layouttest.EditKeepingTimes(t, ws.Abs(rel), old, new) }
	}
	steps := []struct {
		name   string
		change func(t *testing.T)
		want   string // in the hit's text
	}{
		{"first search", nil, "yard cameras"},
		{"unchanged", nil, "yard cameras"},
		{"a line around the chunk edited", edit("yard cameras", "YARD CAMERAS"), "YARD CAMERAS"},
		{"the chunk edited", edit("drains carrier", "DRAINS CARRIER"), "DRAINS CARRIER"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.change != nil {
				st.change(t)
			}
			got := runSearch(t, cached, q)
			plain, _ := openIndex(t, ws, Options{Chunking: chunking})
			want := runSearch(t, plain, q)
			if len(got) == 0 || got[0].Path != rel {
				t.Fatalf("first hit %v, want %s", paths(got), rel)
			}
			if !strings.Contains(got[0].Text, st.want) {
				t.Errorf("hit text %q does not hold %q", got[0].Text, st.want)
			}
			if len(got) != len(want) {
				t.Fatalf("%d hits, an uncached index gives %d", len(got), len(want))
			}
			for i := range got {
				if got[i].Text != want[i].Text || got[i].StartLine != want[i].StartLine || got[i].EndLine != want[i].EndLine {
					t.Errorf("hit %d: %s:%d-%d %q, an uncached index gives %s:%d-%d %q", i,
						got[i].Path, got[i].StartLine, got[i].EndLine, got[i].Text, want[i].Path, want[i].StartLine, want[i].EndLine, want[i].Text)
				}
			}
		})
	}
}
