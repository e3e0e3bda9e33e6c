package layout

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	yaml "go.yaml.in/yaml/v3"

	"github.com/tmemhq/tmem/internal/bytesize"
)

// MaxFileSize is the largest memory file tmem parses. Larger files are
// listed but refused with a clear error, so one runaway file cannot stall
// every command.
const MaxFileSize = 4 << 20

// Doc is a parsed Markdown memory file.
type Doc struct {
	Path     string // as given to Parse, used in errors
	HasMeta  bool   // the file has a frontmatter block
	Body     []byte // everything after the frontmatter, byte for byte
	BodyLine int    // 1-based line of the file where Body starts
	Title    string // text of the first level-1 heading, if any
	// TitleLine is the line of Title, 0 when there is none; TitleEnd is
	// its last line (a setext heading's underline).
	TitleLine, TitleEnd int
	// Entries are the `##` sections of the body. Text between the title
	// and the first `##` heading, if any, is an entry with an empty
	// Heading, so that nothing in the file is outside an entry.
	Entries []Entry

	fm  *frontMatter // the frontmatter block; nil when absent
	bom bool         // the file began with a UTF-8 byte-order mark
}

// Entry is one `##` section of a memory file.
type Entry struct {
	Heading string `json:"heading"`
	Text    string `json:"text"`       // the section without its heading, trimmed
	Start   int    `json:"start_line"` // line of the heading (or first text line)
	End     int    `json:"end_line"`   // last non-blank line, inclusive
	// At is the time of the entry's first stamp line (see Stamp), as
	// written; "" when it has none.
	At string `json:"at,omitempty"`
}

// Parse parses a memory file. It fails with a *ParseError on invalid UTF-8,
// NUL bytes, oversized input and frontmatter that does not parse.
func Parse(path string, src []byte) (*Doc, error) { return parse(path, src, true) }

// parse is Parse, parsing the body only when body is set.
func parse(path string, src []byte, body bool) (*Doc, error) {
	if err := checkText(path, src); err != nil {
		return nil, err
	}
	d := &Doc{Path: path, BodyLine: 1}
	if rest, ok := bytes.CutPrefix(src, []byte(bom)); ok {
		d.bom, src = true, rest // a byte-order mark is not text; Bytes puts it back
	}
	d.Body = src
	if err := d.parseMeta(src); err != nil {
		return nil, err
	}
	if body {
		d.parseBody()
	}
	return d, nil
}

// CheckText reports oversized, binary or invalid UTF-8 input as a
// *ParseError naming path and line.
func CheckText(path string, src []byte) error { return checkText(path, src) }

func checkText(path string, src []byte) error {
	if len(src) > MaxFileSize {
		return &ParseError{Path: path, Err: &tooLargeError{fmt.Sprintf("file is %s, over the %s limit for memory files", bytesize.Format(int64(len(src))), bytesize.Format(MaxFileSize))}}
	}
	return checkContent(path, src)
}

// checkContent reports NUL bytes and invalid UTF-8 with their line.
func checkContent(path string, src []byte) error { return CheckTextAt(path, src, 1, 0) }

// CheckTextAt reports a NUL byte or invalid UTF-8 in src, a piece of path
// that starts at line and byte offset, as a *ParseError naming its line
// and offset in path: for a caller that reads a file piece by piece.
func CheckTextAt(path string, src []byte, line int, offset int64) error {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return &ParseError{Path: path, Line: line - 1 + lineAt(src, i), Err: errors.New("binary file: contains a NUL byte")}
	}
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return &ParseError{Path: path, Line: line - 1 + lineAt(src, i), Err: fmt.Errorf("invalid UTF-8 (byte 0x%02x at offset %d)", src[i], offset+int64(i))}
	}
	return nil
}

func lineAt(src []byte, off int) int { return bytes.Count(src[:off], []byte("\n")) + 1 }

// parseMeta splits off YAML frontmatter when the first non-blank line is
// "---".
func (d *Doc) parseMeta(src []byte) error {
	fm, off, err := parseFrontMatter(d.Path, src)
	if err != nil || fm == nil {
		return err
	}
	d.HasMeta, d.fm = true, fm
	d.Body = src[off:]
	d.BodyLine = lineAt(src, off)
	return nil
}

// mark is a heading of level 1 or 2 that splits a file into entries.
type mark struct {
	line, last, level int // 1-based; last: final line of the heading (setext underline)
	text              string
}

func (d *Doc) parseBody() {
	lines, stamps, changed := readable(d.Body)
	body := d.Body
	if changed {
		body = []byte(strings.Join(lines, "\n"))
	}
	heads := topHeadings(body)
	if len(heads) > 0 {
		d.Entries = make([]Entry, 0, len(heads)+1)
	}
	nl := len(lines)
	section := func(from, to int) (string, int, int) { // 0-based inclusive line range → trimmed text
		for from <= to && strings.TrimSpace(lines[from]) == "" {
			from++
		}
		for to >= from && strings.TrimSpace(lines[to]) == "" {
			to--
		}
		if from > to {
			return "", 0, 0
		}
		return strings.Join(lines[from:to+1], "\n"), from, to
	}
	next := 0 // first 0-based line not yet assigned
	firstStamp := func(from, to int) string {
		for i := from; i <= to && i < nl; i++ {
			if at, ok := stamps[i]; ok {
				return at
			}
		}
		return ""
	}
	flush := func(upto int) {
		if t, a, b := section(next, upto); t != "" {
			d.Entries = append(d.Entries, Entry{Text: t, Start: a + d.BodyLine, End: b + d.BodyLine, At: firstStamp(next, upto)})
		}
	}
	for i, h := range heads {
		hl := h.line - 1
		end := nl - 1
		if i+1 < len(heads) {
			end = heads[i+1].line - 2
		}
		if h.level == 1 {
			flush(hl - 1)
			if d.Title == "" {
				d.Title, d.TitleLine, d.TitleEnd = h.text, h.line+d.BodyLine-1, h.last+d.BodyLine-1
			}
			next = h.last
			continue
		}
		flush(hl - 1)
		t, _, b := section(h.last, end)
		last := h.last - 1
		if t != "" {
			last = b
		}
		d.Entries = append(d.Entries, Entry{Heading: h.text, Text: t, Start: hl + d.BodyLine, End: last + d.BodyLine, At: firstStamp(h.last, end)})
		next = end + 1
	}
	flush(nl - 1)
}

// topHeadings finds the headings of level 1 and 2 that split body into
// entries, in time linear in its size.
func topHeadings(body []byte) []mark {
	if DeeplyNested(body) {
		return scanHeadings(body)
	}
	return blockHeadings(body)
}

// blockHeadings finds the top-level headings of level 1 and 2 with the
// Markdown block parser.
func blockHeadings(body []byte) []mark {
	root := ParseBlocks(body, false)
	starts := lineStarts(body)
	var heads []mark
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level > 2 || h.Lines().Len() == 0 {
			continue
		}
		line := searchLine(starts, h.Lines().At(0).Start)
		last := line
		if !bytes.HasPrefix(bytes.TrimLeft(body[starts[line-1]:], " "), []byte("#")) {
			last = line + h.Lines().Len() // setext: text lines, then the underline
		}
		heads = append(heads, mark{line, last, h.Level, headingText(h, body)})
	}
	return heads
}

func headingText(h *ast.Heading, src []byte) string {
	var b strings.Builder
	for i := 0; i < h.Lines().Len(); i++ {
		s := h.Lines().At(i)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.Write(bytes.TrimSpace(s.Value(src)))
	}
	return strings.TrimSpace(b.String())
}

func lineStarts(b []byte) []int {
	starts := make([]int, 1, bytes.Count(b, []byte("\n"))+1)
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// searchLine returns the 1-based line holding byte offset off.
func searchLine(starts []int, off int) int {
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}

// Get returns a frontmatter field as a string: a scalar as written, ""
// when absent, null or not a scalar.
func (d *Doc) Get(key string) string { return scalar(d.fm.value(key)) }

// List returns a frontmatter field that is a list of scalars (a single
// scalar counts as a list of one).
func (d *Doc) List(key string) []string {
	v := d.fm.value(key)
	switch {
	case v == nil:
		return nil
	case v.Kind == yaml.ScalarNode:
		if s := scalar(v); s != "" {
			return []string{s}
		}
		return nil
	case v.Kind != yaml.SequenceNode:
		return nil
	}
	var out []string
	for _, it := range v.Content {
		if s := scalar(it); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Keys lists the frontmatter fields in file order.
func (d *Doc) Keys() []string { return d.fm.keys() }

// Value decodes a frontmatter field into plain Go values (strings,
// numbers, lists, maps), for printing as JSON; nil when absent.
func (d *Doc) Value(key string) interface{} {
	v := d.fm.value(key)
	if v == nil {
		return nil
	}
	var out interface{}
	if err := v.Decode(&out); err != nil {
		return v.Value
	}
	return out
}

// Set sets a frontmatter field (a string, a []string, a number or a
// bool). Only the field's own lines change: every other field, comment and
// quote stays byte for byte, and a new field goes at the end. A value with
// line breaks is written quoted on one line, so it reads back exactly.
func (d *Doc) Set(key string, value interface{}) error {
	if d.fm == nil {
		d.fm = newFrontMatter()
	}
	if err := d.fm.set(key, value); err != nil {
		return fmt.Errorf("%s: %w", d.Path, err)
	}
	d.HasMeta = true
	return nil
}

// Bytes renders the document: the frontmatter block as written (with the
// fields Set changed) and the body byte for byte.
func (d *Doc) Bytes() []byte {
	var b bytes.Buffer
	if d.bom {
		b.WriteString(bom)
	}
	if d.fm != nil {
		b.WriteString(d.fm.bytes())
	}
	b.Write(d.Body)
	return b.Bytes()
}
