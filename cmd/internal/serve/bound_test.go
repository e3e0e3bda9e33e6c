package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall"
)

// TestSearchBounded searches memories of one line of a megabyte each,
// under a long heading and name: each hit's text, heading and name are
// cut, the answer stays small, a cut hit says so and names the
// memory_get ref that reads it, and that ref reads it.
func TestSearchBounded(t *testing.T) {
	const files = 3
	cs := connect(t, serviceOf(t, bigMemories(t, files, 1<<20), ""))
	var out SearchOutput
	res := callOK(t, cs, "memory_search", map[string]any{"query": "zanzibar", "k": files, "teammates": []string{"beacon"}}, &out)
	var big []SearchHit
	for _, h := range out.Hits {
		if strings.HasPrefix(h.Path, "beacon/memory/reference_big_") {
			big = append(big, h)
		}
	}
	if len(big) != files {
		t.Fatalf("%d hits of the big memories, want %d", len(big), files)
	}
	b, _ := json.Marshal(res)
	if len(b) > 2*files*maxHitBytes+16<<10 {
		t.Errorf("the answer is %d bytes, want at most about %d", len(b), 2*files*maxHitBytes)
	}
	for _, h := range big {
		marker := fmt.Sprintf("with memory_get %s]", h.Ref)
		if h.Cut != "hit" || !strings.HasSuffix(h.Text, marker) || len(h.Text) > maxHitBytes+200 || !utf8.ValidString(h.Text) {
			t.Errorf("hit %s: cut %q, %d bytes ending %q: want it cut to %d bytes, valid UTF-8, ending %q",
				h.Ref, h.Cut, len(h.Text), h.Text[max(0, len(h.Text)-100):], maxHitBytes, marker)
		}
		if len(h.Heading) > maxTitleBytes || len(h.Name) > maxTitleBytes {
			t.Errorf("hit %s: heading of %d bytes, name of %d: want at most %d", h.Ref, len(h.Heading), len(h.Name), maxTitleBytes)
		}
	}
	var got GetOutput
	text := getText(t, callOK(t, cs, "memory_get", map[string]any{"path": big[0].Ref}, &got))
	if !strings.HasPrefix(text, "zanzibar cargo") || got.Cut != "long-line" {
		t.Errorf("memory_get %s: cut %q, text %.40q: want the start of the hit's line", big[0].Ref, got.Cut, text)
	}
}

// bigMemories is the example workspace with n typed memories of beacon's,
// each one line of about size bytes (its first word zanzibar, in no
// other memory) under a heading of twice
// maxTitleBytes, and a name as long.
func bigMemories(t *testing.T, n, size int) *layout.Workspace {
	t.Helper()
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	long := strings.Repeat("x", 2*maxTitleBytes)
	for i := range n {
		line := "zanzibar " + strings.Repeat(fmt.Sprintf("cargo%02d é ", i), size/11)
		body := fmt.Sprintf("---\nname: big %d %s\ndescription: d\ntype: reference\n---\n## Big %d %s\n\n%s\n", i, long, i, long, line)
		if err := os.WriteFile(filepath.Join(ws.Root, "beacon", "memory", fmt.Sprintf("reference_big_%02d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestBoundHits cuts hits by the limit of one hit and of the answer.
func TestBoundHits(t *testing.T) {
	hit := func(text string) SearchHit {
		return SearchHit{Ref: "beacon/memory/x.md:3-4", Hit: recall.Hit{Path: "beacon/memory/x.md", StartLine: 3, EndLine: 4, Text: text}}
	}
	tests := []struct {
		name string
		hits []string
		want []string // each hit's cut
		keep []int    // how many bytes of each text are kept, -1 for all
	}{
		{name: "short hits stay whole", hits: []string{"a\nb", "c"}, want: []string{"", ""}, keep: []int{-1, -1}},
		{name: "a long line is cut between characters", hits: []string{strings.Repeat("é", maxHitBytes)}, want: []string{"hit"}, keep: []int{maxHitBytes}},
		{name: "lines are cut after a whole line", hits: []string{strings.Repeat(strings.Repeat("y", 99)+"\n", 100)}, want: []string{"hit"}, keep: []int{81*100 - 1}},
		{name: "the answer's limit cuts the last hits", hits: slicesRepeat(strings.Repeat("z", maxHitBytes+1), 20),
			want: append(slicesRepeat("hit", 15), slicesRepeat("answer", 5)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits []SearchHit
			for _, s := range tt.hits {
				hits = append(hits, hit(s))
			}
			boundHits(hits)
			total := 0
			for i, h := range hits {
				total += len(h.Text)
				if h.Cut != tt.want[i] {
					t.Errorf("hit %d: cut %q, want %q", i, h.Cut, tt.want[i])
				}
				kept, _, _ := strings.Cut(h.Text, "\n[memory_search: cut here")
				if !utf8.ValidString(h.Text) || h.Cut != "" && !strings.HasSuffix(h.Text, "with memory_get beacon/memory/x.md:3-4]") {
					t.Errorf("hit %d: %q: want valid UTF-8 and, when cut, the marker", i, h.Text[max(0, len(h.Text)-100):])
				}
				if tt.keep != nil && (tt.keep[i] < 0 && h.Text != tt.hits[i] || tt.keep[i] >= 0 && len(kept) != tt.keep[i]) {
					t.Errorf("hit %d: kept %d bytes, want %d", i, len(kept), tt.keep[i])
				}
			}
			if total > maxSearchBytes+len(hits)*200 {
				t.Errorf("%d bytes of text together, want at most %d and a marker each", total, maxSearchBytes)
			}
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
