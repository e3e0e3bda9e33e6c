package recall

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/internal/filecache"
)

// TestLocate: a chunk is found where it was indexed, up to maxShift
// lines further down (an index written before chunk lines counted blank
// and stamp lines), and on a file's last line when no newline ends it.
func TestLocate(t *testing.T) {
	body := "# 2026-01-05\n\n## Talk\n\n\n\nfirst\nsecond\nthird"
	f := newFileText([]byte(body))
	tests := []struct {
		name     string
		from, to int
		text     string
		want     string
	}{
		{"where it was indexed", 7, 8, "first second", "7-8 true"},
		{"maxShift lines further down", 4, 5, "first second", "4-8 true"},
		{"one line more is too far", 3, 4, "first second", "3-4 false"},
		{"the last line of a file without a final newline", 9, 9, "third", "9-9 true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to, ok := f.locate(tt.from, tt.to, tt.text)
			if got := fmt.Sprintf("%d-%d %v", from, to, ok); got != tt.want {
				t.Errorf("locate(%d, %d, %q) = %s, want %s", tt.from, tt.to, tt.text, got, tt.want)
			}
		})
	}
}

// TestTouch: two passages touch when they overlap, sit side by side, or
// have only blank lines between them.
func TestTouch(t *testing.T) {
	f := newFileText([]byte("one\ntwo\n\nfour\nfive\nsix"))
	tests := []struct {
		name       string
		a, b, c, d int
		want       bool
	}{
		{"side by side", 1, 1, 2, 2, true},
		{"a blank line between", 1, 2, 4, 5, true},
		{"text between", 1, 1, 4, 5, false},
		{"overlapping", 1, 4, 2, 5, true},
		{"the later one first", 4, 5, 1, 2, true},
		{"the later one first, text between", 5, 6, 1, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.touch(tt.a, tt.b, tt.c, tt.d); got != tt.want {
				t.Errorf("touch(%d-%d, %d-%d) = %v, want %v", tt.a, tt.b, tt.c, tt.d, got, tt.want)
			}
		})
	}
}

// TestWidenTokenLimit: a context line that costs exactly the tokens
// allowed comes along; one token more and it does not.
func TestWidenTokenLimit(t *testing.T) {
	// Lines 1 and 3 are eight bytes: two tokens each.
	f := newFileText([]byte("12345678\nanswer\nabcdefgh"))
	tests := []struct {
		name   string
		tokens int
		want   string
	}{
		{"exactly the limit", 2, "1-3"},
		{"one token over", 1, "2-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := f.widen(2, 2, 1, 3, 1, tt.tokens)
			if got := fmt.Sprintf("%d-%d", from, to); got != tt.want {
				t.Errorf("widen with %d tokens = %s, want %s", tt.tokens, got, tt.want)
			}
		})
	}
}

// TestWithContextMergesLines: passages of one entry that touch become one
// whose lines cover both, whichever of them scored better.
func TestWithContextMergesLines(t *testing.T) {
	const rel = "beacon/memory/2026-01-05.md"
	ws := newWorkspace(t, "ws")
	writeFile(t, ws, rel, "# 2026-01-05\n\n## Talk\n\nline a\nline b\nline c\nline d\n")
	chunk := func(from, to int, score float64) ranked {
		return ranked{chunk: Chunk{ID: fmt.Sprintf("c%d", from), Path: rel, Kind: "daily", Heading: "Talk", StartLine: from, EndLine: to,
			Text: strings.Join([]string{"line a", "line b", "line c", "line d"}[from-5:to-4], "\n")}, score: score}
	}
	tests := []struct {
		name      string
		in        []ranked
		wantLines string
		wantText  string
	}{
		{"the better one below", []ranked{chunk(7, 7, 2), chunk(5, 6, 1)}, "5-7", "line a\nline b\nline c"},
		{"the better one above", []ranked{chunk(5, 5, 2), chunk(6, 7, 1)}, "5-7", "line a\nline b\nline c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			texts := filecache.New[*fileText](func() time.Time { return time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC) })
			out := withContext(ws, texts, tt.in, 0, 0)
			if len(out) != 1 {
				t.Fatalf("%d passages, want one", len(out))
			}
			c := out[0].chunk
			if got := fmt.Sprintf("%d-%d", c.StartLine, c.EndLine); got != tt.wantLines || c.Text != tt.wantText || c.ID != tt.in[0].chunk.ID {
				t.Errorf("passage %s lines %s showing %q, want %s lines %s showing %q", c.ID, got, c.Text, tt.in[0].chunk.ID, tt.wantLines, tt.wantText)
			}
		})
	}
}
