package recall

import (
	"strings"

	"github.com/tmemhq/tmem/internal/filecache"
	"github.com/tmemhq/tmem/layout"
)

// A passage is shown as whole lines of its file: a chunk that starts in
// the middle of a line (a long entry split at a sentence) gets the whole
// line, so a speaker or tag at its start is not cut. The entry's "##"
// heading line is left out (the hit's Heading holds it), unless the
// passage is nothing else. Then it is widened
// by up to ContextLines lines before and after, within its entry, each
// side adding at most ContextTokens tokens: a line that answers without
// the query's words, next to one that has them, comes along. Passages of
// one entry that then touch are merged. Text and lines are read from the
// file; when it no longer holds the chunk (changed since it was indexed),
// the chunk is shown as indexed.

// fileText is a memory file's lines, with those recall never shows
// (entry stamps, conflict markers) marked. It is not changed once made:
// searches share it.
type fileText struct {
	lines []string
	skip  map[int]bool // 1-based
	// words is each line's words joined by single spaces, for holds.
	words []string
}

// readFileText reads rel's lines, from texts when it holds them under
// rel's current stat data; nil when it cannot be read.
func readFileText(ws *layout.Workspace, texts *filecache.Cache[*fileText], rel string) *fileText {
	ft, err := texts.Read(ws, rel, 0, func(b []byte) (*fileText, error) { return newFileText(b), nil })
	if err != nil {
		return nil
	}
	return ft
}

func newFileText(b []byte) *fileText {
	ft := &fileText{lines: strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), skip: map[int]bool{}}
	for _, n := range layout.ConflictMarkers(b) {
		ft.skip[n] = true
	}
	ft.words = make([]string, len(ft.lines))
	for i, l := range ft.lines {
		if layout.StampOf(l) != "" {
			ft.skip[i+1] = true
		}
		ft.words[i] = oneLine(l)
	}
	return ft
}

// line returns line n (1-based), "" outside the file.
func (f *fileText) line(n int) string {
	if n < 1 || n > len(f.lines) {
		return ""
	}
	return f.lines[n-1]
}

// quiet reports whether line n shows nothing: blank, a stamp or a marker.
func (f *fileText) quiet(n int) bool {
	return f.skip[n] || strings.TrimSpace(f.line(n)) == ""
}

// text returns lines from..to as shown: without stamps and markers.
func (f *fileText) text(from, to int) string {
	var b strings.Builder
	for n := from; n <= to; n++ {
		if f.skip[n] {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.line(n))
	}
	return strings.Trim(b.String(), "\n")
}

// holds reports whether lines from..to, as shown, hold want (words
// joined by single spaces).
func (f *fileText) holds(from, to int, want string) bool {
	if from < 1 || to > len(f.lines) || from > to {
		return false
	}
	var b strings.Builder
	for n := from; n <= to; n++ {
		if w := f.words[n-1]; w != "" && !f.skip[n] {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
	}
	return strings.Contains(b.String(), want)
}

// locate returns the lines that hold a chunk indexed as from..to: those,
// or, for an index written before chunk lines counted the blank and stamp
// lines under a heading, the same lines a little further down. The text
// is compared spacing aside.
func (f *fileText) locate(from, to int, text string) (int, int, bool) {
	text = oneLine(text)
	for d := 0; d <= maxShift; d++ {
		if f.holds(from, to+d, text) {
			return from, to + d, true
		}
		if d > 0 && f.holds(from+d, to+d, text) {
			return from + d, to + d, true
		}
	}
	return from, to, false
}

// maxShift is how far locate looks.
const maxShift = 3

// boundary reports whether line n ends an entry: a "#" or "##" heading,
// an archive section marker or a frontmatter fence.
func (f *fileText) boundary(n int) bool {
	l := strings.TrimRight(f.line(n), " \t")
	return l == "#" || l == "##" || strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "## ") ||
		strings.HasPrefix(l, "<!-- tmem:archive ") || strings.HasPrefix(l, "<!-- tmem:end ") || l == "---"
}

// entryHeading reports whether line n is a "##" heading.
func (f *fileText) entryHeading(n int) bool {
	return strings.HasPrefix(f.line(n), "## ") || strings.TrimSpace(f.line(n)) == "##"
}

// entryOf returns the lines of the entry that holds lines from..to: from
// its "##" heading (when it has one) to the line before the next.
func (f *fileText) entryOf(from, to int) (lo, hi int) {
	lo, hi = 1, len(f.lines)
	for n := from; n >= 1; n-- {
		if f.boundary(n) {
			lo = n + 1
			if f.entryHeading(n) {
				lo = n
			}
			break
		}
	}
	for n := to + 1; n <= len(f.lines); n++ {
		if f.boundary(n) {
			hi = n - 1
			break
		}
	}
	return lo, hi
}

// widen extends from..to by up to lines shown lines each way within
// lo..hi, each side adding at most tokens (bytes/4).
func (f *fileText) widen(from, to, lo, hi, lines, tokens int) (int, int) {
	step := func(at, dir, limit int) int {
		added, n := 0, 0
		for i := at + dir; n < lines && (dir < 0 && i >= limit || dir > 0 && i <= limit); i += dir {
			if f.quiet(i) {
				continue
			}
			added += (len(f.line(i)) + 3) / 4
			if added > tokens {
				break
			}
			at, n = i, n+1
		}
		return at
	}
	return step(from, -1, lo), step(to, 1, hi)
}

// touch reports whether lines a..b and c..d overlap or only quiet lines
// lie between them.
func (f *fileText) touch(a, b, c, d int) bool {
	if c < a {
		a, b, c, d = c, d, a, b
	}
	for n := b + 1; n < c; n++ {
		if !f.quiet(n) {
			return false
		}
	}
	return true
}

// withContext shows each passage as whole lines of its file widened by
// context, merging passages of one entry that then touch (into the
// better one). Passages whose file cannot be read, or no longer holds
// them, are left as they are.
func withContext(ws *layout.Workspace, texts *filecache.Cache[*fileText], rs []ranked, lines, tokens int) []ranked {
	files := map[string]*fileText{}
	type place struct {
		f      *fileText
		lo, hi int // the entry
	}
	at := make([]place, len(rs))
	for i := range rs {
		c := &rs[i].chunk
		f, ok := files[c.Path]
		if !ok {
			f = readFileText(ws, texts, c.Path)
			files[c.Path] = f
		}
		if f == nil {
			continue
		}
		from, to, ok := f.locate(c.StartLine, c.EndLine, c.Text)
		if !ok {
			continue
		}
		lo, hi := f.entryOf(from, to)
		if lo < to && f.entryHeading(lo) {
			// The hit's Heading names the entry: its text starts below
			// the heading line, which context never adds either.
			for lo++; lo < to && f.quiet(lo); lo++ {
			}
			from = max(from, lo)
		}
		c.StartLine, c.EndLine = f.widen(from, to, lo, hi, lines, tokens)
		at[i] = place{f, lo, hi}
	}
	out := rs[:0]
	kept := at[:0]
	for i, x := range rs {
		p := at[i]
		j := -1
		for o := range out {
			q := kept[o]
			if p.f != nil && q.f == p.f && q.lo == p.lo && p.f.touch(out[o].chunk.StartLine, out[o].chunk.EndLine, x.chunk.StartLine, x.chunk.EndLine) {
				j = o
				break
			}
		}
		if j < 0 {
			out, kept = append(out, x), append(kept, p)
			continue
		}
		o := &out[j].chunk
		o.StartLine, o.EndLine = min(o.StartLine, x.chunk.StartLine), max(o.EndLine, x.chunk.EndLine)
		out[j].bm25, out[j].vector = max(out[j].bm25, x.bm25), max(out[j].vector, x.vector)
		out[j].reason = unionReasons(out[j].reason, x.reason)
	}
	for i := range out {
		if p := kept[i]; p.f != nil {
			out[i].chunk.Text = p.f.text(out[i].chunk.StartLine, out[i].chunk.EndLine)
		}
	}
	return out
}
