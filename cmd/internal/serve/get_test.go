package serve

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
)

// getSession serves a copy of the example workspace with the file
// beacon/memory/archive/big.md holding text, and returns a session.
func getSession(t *testing.T, text string) *mcp.ClientSession {
	t.Helper()
	ws := layouttest.Copy(t, filepath.Join("..", "..", "..", "testdata", "example", ".teammates"))
	dir := filepath.Join(ws.Root, "beacon", "memory", "archive")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return connect(t, serviceOf(t, ws, ""))
}

// numbered is n lines of about 100 bytes, numbered from 1.
func numbered(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("- line %06d: %s\n", i+1, strings.Repeat("é", 40))
	}
	return lines
}

// getText is the text a memory_get result returns: its first text
// content. The structured content must not repeat it.
func getText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if m, ok := res.StructuredContent.(map[string]any); !ok || m["text"] != nil {
		t.Errorf("structured content %T holds the text again", res.StructuredContent)
	}
	if len(res.Content) == 0 {
		t.Fatal("no content")
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestGetPages reads a 300 KiB file whole: each call returns at most
// maxGetBytes, cut after a whole line, says where to read on, and the
// pages put together are the file.
func TestGetPages(t *testing.T) {
	lines := numbered(3000)
	cs := getSession(t, strings.Join(lines, ""))
	var got strings.Builder
	from, calls := 1, 0
	for from != 0 {
		var out GetOutput
		res := callOK(t, cs, "memory_get", map[string]any{"path": "beacon/memory/archive/big.md", "from_line": from}, &out)
		text := getText(t, res)
		if len(text) > maxGetBytes || text != strings.Join(lines[from-1:out.ToLine], "") {
			t.Fatalf("from_line %d: %d bytes, to_line %d: not the lines asked for, or over %d bytes", from, len(text), out.ToLine, maxGetBytes)
		}
		if out.NextFromLine != 0 && (out.Cut != "size" || !strings.Contains(texts(res), fmt.Sprintf("read on with from_line %d", out.NextFromLine))) {
			t.Errorf("from_line %d: cut %q, text %q: want the cut and where to read on", from, out.Cut, texts(res)[len(text):])
		}
		got.WriteString(text)
		from = out.NextFromLine
		if calls++; calls > 10 {
			t.Fatal("no end after 10 calls")
		}
		if from == 0 && out.TotalLines != len(lines) {
			t.Errorf("last page: total_lines %d, want %d", out.TotalLines, len(lines))
		}
	}
	if got.String() != strings.Join(lines, "") || calls < 3 {
		t.Errorf("%d calls put together %d bytes, want the %d of the file in at least 3", calls, got.Len(), len(strings.Join(lines, "")))
	}
}

// TestGetStopsReading asks for one line of a 2 MB file: the file is read
// only some way past it, so its line count is left out, and the rest is
// offered from line 2.
func TestGetStopsReading(t *testing.T) {
	cs := getSession(t, strings.Join(numbered(20000), ""))
	var out GetOutput
	res := callOK(t, cs, "memory_get", map[string]any{"path": "beacon/memory/archive/big.md", "max_lines": 1}, &out)
	if text := getText(t, res); text != numbered(1)[0] || out.ToLine != 1 || out.NextFromLine != 2 || out.Cut != "" {
		t.Errorf("get %+v, text %q: want line 1 and next_from_line 2", out, text)
	}
	if out.TotalLines != 0 {
		t.Errorf("total_lines %d: the whole file was read for one line", out.TotalLines)
	}
}

// TestGetLongLine reads a file whose first line is 300 KiB of two-byte
// characters: only its start is shown, cut between characters.
func TestGetLongLine(t *testing.T) {
	cs := getSession(t, strings.Repeat("é", 150<<10)+"\nsecond line\n")
	var out GetOutput
	res := callOK(t, cs, "memory_get", map[string]any{"path": "beacon/memory/archive/big.md"}, &out)
	text := getText(t, res)
	if len(text) > maxGetBytes || len(text) < maxGetBytes-1 || !utf8.ValidString(text) {
		t.Errorf("%d bytes, valid UTF-8 %v: want the line's start, up to %d bytes", len(text), utf8.ValidString(text), maxGetBytes)
	}
	if out.Cut != "long-line" || out.ToLine != 1 || out.NextFromLine != 2 || !strings.Contains(texts(res), "read on with from_line 2") {
		t.Errorf("get %+v: want line 1 cut and next_from_line 2", out)
	}
}

// privateKey is a PEM private key block of random base64, n body lines.
func privateKey(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	lines := []string{"-----BEGIN RSA PRIVATE KEY-----\n"}
	for range n {
		b := make([]byte, 48)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		lines = append(lines, base64.StdEncoding.EncodeToString(b)+"\n")
	}
	return append(lines, "-----END RSA PRIVATE KEY-----\n")
}

// TestGetRedactsAcrossCut reads a file with a private key through pages
// and ranges that start or stop inside the key: no line of its body is
// shown, wherever the range falls.
func TestGetRedactsAcrossCut(t *testing.T) {
	key := privateKey(60) // lines 1341-1402
	lines := append(append(numbered(1340), key...), numbered(10)...)
	cs := getSession(t, strings.Join(lines, ""))
	const path = "beacon/memory/archive/big.md"
	var first GetOutput
	callOK(t, cs, "memory_get", map[string]any{"path": path}, &first)
	if first.Cut != "size" || first.ToLine < 1342 || first.ToLine >= 1402 {
		t.Fatalf("the first page ends at line %d (%s), not inside the key's body", first.ToLine, first.Cut)
	}
	for _, args := range []map[string]any{
		{"path": path}, {"path": path, "from_line": 1360}, {"path": path, "from_line": 1390, "max_lines": 4}, {"path": path, "from_line": 1339, "max_lines": 4},
	} {
		for {
			var out GetOutput
			text := getText(t, callOK(t, cs, "memory_get", args, &out))
			for _, l := range key[1 : len(key)-1] {
				if strings.Contains(text, strings.TrimSpace(l)) {
					t.Fatalf("get %v shows the key line %q", args, l)
				}
			}
			if strings.Contains(text, "[REDACTED:private-key]") != (len(out.Redacted) > 0) {
				t.Errorf("get %v: redacted %q, text %q", args, out.Redacted, text)
			}
			if n := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1; n != out.ToLine-out.FromLine+1 {
				t.Errorf("get %v: %d lines of text for lines %d-%d", args, n, out.FromLine, out.ToLine)
			}
			if out.Cut == "" || out.NextFromLine == 0 {
				break
			}
			args = map[string]any{"path": path, "from_line": out.NextFromLine}
		}
	}
}

// TestGetBadText reads files with a NUL byte or invalid UTF-8: memory_get
// fails with the error tmem show gives, naming the line and the offset
// in the file, however far in the range read starts; lines before the
// bad one are read.
func TestGetBadText(t *testing.T) {
	const path = "beacon/memory/archive/big.md"
	far := strings.Join(numbered(3000), "")
	tests := []struct {
		name string
		text string
		args map[string]any
		bad  bool
	}{
		{name: "invalid UTF-8", text: "# Big\n\nfine\nbad \xff byte\n", args: map[string]any{"path": path}, bad: true},
		{name: "a NUL byte", text: "# Big\nnul \x00 here\n", args: map[string]any{"path": path}, bad: true},
		{name: "past a margin", text: far + "bad \xc3 cut\n", args: map[string]any{"path": path, "from_line": 2990}, bad: true},
		{name: "lines before it", text: "# Big\n\nfine\nbad \xff byte\n", args: map[string]any{"path": path + ":1-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, getSession(t, tt.text), "memory_get", tt.args)
			if !tt.bad {
				if res.IsError {
					t.Errorf("get %v: %s, want the lines", tt.args, texts(res))
				}
				return
			}
			want := layout.CheckText(path, []byte(tt.text)).Error()
			if !res.IsError || texts(res) != "memory_get: "+want {
				t.Errorf("get %v: %q, want the error %q", tt.args, texts(res), want)
			}
		})
	}
}

// TestGetRef reads refs: a good one gives its lines, and one with
// anything but start-end in digits after the colon is refused.
func TestGetRef(t *testing.T) {
	cs := getSession(t, strings.Join(numbered(10), ""))
	const path = "beacon/memory/archive/big.md"
	tests := []struct {
		ref      string
		from, to int // 0 when refused
	}{
		{ref: path + ":2-3", from: 2, to: 3},
		{ref: path + ":1-2xyz"},
		{ref: path + ":1-2 "},
		{ref: path + ":+1-2"},
		{ref: path + ":1--2"},
		{ref: path + ":1-"},
		{ref: path + ":3-2"},
		{ref: path + ":0-2"},
		{ref: path + ":1-99999999999999999999"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.ref, path), func(t *testing.T) {
			res := call(t, cs, "memory_get", map[string]any{"path": tt.ref})
			if tt.from == 0 {
				if !res.IsError || !strings.Contains(texts(res), "a ref is path:start-end") {
					t.Errorf("%q: %.80q, want it refused", tt.ref, texts(res))
				}
				return
			}
			var out GetOutput
			res = callOK(t, cs, "memory_get", map[string]any{"path": tt.ref}, &out)
			if out.FromLine != tt.from || out.ToLine != tt.to {
				t.Errorf("%q: lines %d-%d, want %d-%d", tt.ref, out.FromLine, out.ToLine, tt.from, tt.to)
			}
		})
	}
}
