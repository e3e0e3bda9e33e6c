package layout

import (
	"bytes"
	"strings"

	"github.com/tmemhq/tmem/internal/lazyregexp"
)

// scanHeadings finds headings of level 1 and 2 with a plain line scan,
// for deeply nested input that the block parser would take too long
// over. It follows the block rules that decide whether a line is a
// top-level heading: ATX headings ("## x"), setext headings (a paragraph
// underlined with "=" or "-"), fenced code and HTML blocks, in which
// nothing is a heading, and list items and quotes with their
// continuation lines, which are never top-level.
func scanHeadings(body []byte) []mark {
	return scan(body).heads
}

// closerOf returns the line that closes the fenced code block or HTML
// block text leaves open at its end, so that what is written after text
// is read as a block of its own: the fence's marker run, or the HTML
// block's end ("-->", "</pre>", "?>" ...). It returns "" when nothing
// is open, or when a blank line ends what is (an HTML block of other
// tags, a fence inside a list item or quote, which ends with it).
func closerOf(text string) string { return scan([]byte(text)).closer() }

func (s *scanner) closer() string {
	switch {
	case s.fence != nil:
		return string(s.fence)
	case s.html != "\n":
		return s.html
	}
	return ""
}

// OpenBlockCloser returns the line that closes the fenced code block or
// HTML block (comment, <pre>, <script>, <?, <![CDATA[ ...) text leaves
// open at its end, or "" when none is: what to put after a piece of
// Markdown so that what follows it is not read as part of that block.
func OpenBlockCloser(text string) string { return closerOf(text) }

// TopLevel reads text once and reports, line by line (split at "\n"),
// whether a line is read outside every code block, HTML block (one
// closed on its first line too), list item and block quote (the lines
// where a heading of text's own can be, and the paragraph text a setext
// underline can make one), and what closes the block text leaves open
// (see OpenBlockCloser).
func TopLevel(text string) (top []bool, closer string) {
	s := scan([]byte(text))
	return s.topLines, s.closer()
}

// InCode reports, line by line (split at "\n"), whether a line of text is
// read inside a fenced code block or an HTML block that an earlier line
// opened: shown as written, so a stamp or heading there is not one.
func InCode(text string) []bool {
	s := &scanner{para: -1, item: -1}
	s.lines = bytes.Split([]byte(text), []byte("\n"))
	in := make([]bool, len(s.lines))
	for i, raw := range s.lines {
		in[i] = s.fence != nil || s.html != ""
		line, indent := trimIndent(raw)
		s.line(i, line, indent)
	}
	return in
}

// scan reads body's lines with the block rules below.
func scan(body []byte) *scanner {
	s := &scanner{para: -1, item: -1}
	s.lines = bytes.Split(body, []byte("\n"))
	s.topLines = make([]bool, len(s.lines))
	for i, raw := range s.lines {
		line, indent := trimIndent(raw)
		s.line(i, line, indent)
		s.topLines[i] = s.top && s.fence == nil && s.html == "" && s.item < 0 && !s.quote
	}
	return s
}

type scanner struct {
	lines    [][]byte
	topLines []bool // per line: read outside every block (see TopLevel)
	heads    []mark
	fence    []byte    // the open fence's marker run, nil outside a fence
	html     string    // what ends the open HTML block ("" outside one, "\n" for a blank line)
	para     int       // 0-based first line of the open paragraph, -1 when none
	item     int       // content column of the open list item, -1 when none
	quote    bool      // a block quote is open
	text     textState // the text the open item or quote ends in, which a line can continue
	empty    bool      // the open list item's first line, just read, is its marker alone
	blank    bool      // the previous line was blank
	top      bool      // the last line was read outside any container block
}

func (s *scanner) line(i int, line []byte, indent int) {
	blank := len(bytes.TrimSpace(line)) == 0
	empty := s.empty
	defer func() { s.blank = blank }()
	s.top, s.empty = false, false
	switch {
	case s.fence != nil:
		if indent <= 3 && closesFence(line, s.fence) {
			s.fence = nil
		}
	case s.html != "":
		if (s.html == "\n" && blank) || (s.html != "\n" && endsHTML(line, s.html)) {
			s.html = ""
		}
	case blank:
		s.para, s.text = -1, noText
		if empty { // an item can start with one blank line, not two
			s.item = -1
		}
	case (s.item >= 0 || s.quote) && s.inItem(line, indent):
	case indent > 3: // inside a paragraph, a continuation; else indented code
		s.top = s.para >= 0
	default:
		s.top = true
		s.topLevel(i, line, indent)
	}
}

// inItem reports whether a line belongs to the open list item or quote:
// indented under it, another item or quote line, or (right after text)
// a lazy continuation. A line that does not closes the item.
func (s *scanner) inItem(line []byte, indent int) bool {
	switch {
	case s.quote && line[0] == '>' && indent <= 3:
		s.text = quoteText(line, indent, s.text)
	case s.item >= 0 && indent >= s.item:
		s.text = contentText(line, indent-s.item, indent, s.text)
	case s.item >= 0 && itemWidth(line) > 0 && indent <= 3 && !thematicBreak(line):
		s.item = indent + contentOffset(line, indent)
		s.text = itemText(line, indent)
		s.empty = markerAlone(line)
	case s.text != noText && lazyLine(line, indent):
	default:
		s.item, s.quote = -1, false
		return false
	}
	return true
}

// lazyLine reports whether a line that is neither indented under the
// open item or quote nor a line of its own continues the paragraph text
// it ends in: indented four columns or more, where no block but code
// starts and code cannot interrupt a paragraph, or reading as text and
// opening no HTML block or list item. Outside the paragraph's container
// any list marker opens an item, an empty one or one numbered other
// than 1 too, as the parser reads it.
func lazyLine(line []byte, indent int) bool {
	return indent > 3 || textLine(line) && htmlEnd(line, true) == "" && itemWidth(line) == 0
}

// textLine reports whether a line that is not blank reads as paragraph
// text, which a later line can continue lazily, rather than as the start
// of a heading, fence, break or quote.
func textLine(line []byte) bool {
	return atxLevel(line) == 0 && fenceRun(line) == nil && !thematicBreak(line) && line[0] != '>'
}

// textState is the paragraph text an item or quote ends in: none, its
// own, or the text of an item or quote nested in it, which a line
// continues by other rules (see lazyLine).
type textState uint8

const (
	noText textState = iota
	ownText
	nestedText
)

// contentText reads an item's or quote's content on a line, rest at
// column at, cols columns past the content's own, after the text open,
// and returns the text it leaves open: the open text continued, or that
// of a paragraph the line opens, in the container or in items and
// quotes the line opens.
func contentText(rest []byte, cols, at int, open textState) textState {
	nested := false
	for {
		rest = bytes.TrimRight(rest, " \t\r")
		t := noText
		switch {
		case len(rest) == 0:
		case cols > 3: // a continuation, or indented code
			t = open
		case open == ownText && continuesText(rest), open == nestedText && lazyLine(rest, cols):
			t = open
		case rest[0] == '>':
			// Text nested in the container is most often a quote's,
			// which this ">" goes on with; else the ">" opens one.
			if open == nestedText {
				open = ownText
			} else {
				open = noText
			}
			rest, cols, at = quoteContent(rest, at)
			nested = true
			continue
		case itemWidth(rest) > 0 && !thematicBreak(rest):
			rest, cols, at = itemContent(rest, at)
			open, nested = noText, true
			continue
		case open == noText && textLine(rest) && htmlEnd(rest, false) == "":
			t = ownText
		}
		if nested && t == ownText {
			return nestedText
		}
		return t
	}
}

// quoteText is contentText of a quote line, its ">" at column at.
func quoteText(line []byte, at int, open textState) textState {
	rest, cols, at := quoteContent(line, at)
	return contentText(rest, cols, at, open)
}

// itemText is contentText of a list item's first line, its marker at
// column at.
func itemText(line []byte, at int) textState {
	rest, cols, at := itemContent(line, at)
	return contentText(rest, cols, at, noText)
}

// quoteContent splits a quote line, its ">" at column at, into its
// content, the columns of white space before that past the one the
// marker takes, and the content's column.
func quoteContent(line []byte, at int) ([]byte, int, int) {
	rest, n := skipSpace(line[1:], at+1)
	return rest, max(n-1, 0), at + 1 + n
}

// itemContent splits a list item's first line, its marker at column at,
// into its content, the columns of white space before that past the one
// to four the marker takes (with five or more, it takes one), and the
// content's column.
func itemContent(line []byte, at int) ([]byte, int, int) {
	w := min(itemWidth(line)-1, len(line)) // the marker's bytes
	rest, n := skipSpace(line[w:], at+w)
	if n <= 4 {
		return rest, 0, at + w + n
	}
	return rest, n - 1, at + w + n
}

// skipSpace drops the spaces and tabs l starts with at column at and
// returns the columns they take, a tab reaching the next multiple of four.
func skipSpace(l []byte, at int) ([]byte, int) {
	col := at
	for len(l) > 0 && (l[0] == ' ' || l[0] == '\t') {
		if l[0] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
		l = l[1:]
	}
	return l, col - at
}

// continuesText reports whether a line not indented four columns
// continues the paragraph text before it in the same container: it reads
// as text and nothing on it interrupts a paragraph (an HTML block, a
// list item that can, a setext underline).
func continuesText(line []byte) bool {
	return textLine(line) && htmlEnd(line, true) == "" && setextLevel(line) == 0 &&
		(itemWidth(line) == 0 || !interrupts(line))
}

// contentOffset is the column, from a list item's marker at column
// indent, where its content starts, which its continuation lines must
// reach: after the marker and the one to four columns of white space
// that follow it, a tab reaching the next multiple of four (one column
// when there are more, which make the content indented code, or none).
func contentOffset(line []byte, indent int) int {
	w := itemWidth(line)
	if markerAlone(line) {
		return w
	}
	start := indent + w - 1 // the column after the marker
	col := start
	for i := w - 1; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		if line[i] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	if n := col - start; n >= 1 && n <= 4 {
		return w - 1 + n
	}
	return w
}

// markerAlone reports whether a list item's first line holds its marker
// and nothing else.
func markerAlone(line []byte) bool {
	w := itemWidth(line)
	return w >= len(line) || len(bytes.TrimSpace(line[w:])) == 0
}

// endsHTML reports whether line holds the end of an HTML block that end
// ends: its text, or for a block of raw text (<pre>, <script>, <style>,
// <textarea>) the end tag of any of the four, in any case, as the block
// parser reads it.
func endsHTML(line []byte, end string) bool {
	if rawEnds[end] {
		return htmlRawEnd().Match(line)
	}
	return bytes.Contains(line, []byte(end))
}

// rawEnds are what htmlEnd gives for the blocks of raw text.
var rawEnds = map[string]bool{"</script>": true, "</pre>": true, "</style>": true, "</textarea>": true}

// interrupts reports whether a list item's first line can interrupt a
// paragraph: it holds text, and an ordered item is numbered 1.
func interrupts(line []byte) bool {
	w := itemWidth(line)
	if w > len(line) || len(bytes.TrimSpace(line[w:])) == 0 {
		return false
	}
	digits := bytes.TrimLeft(line[:w-2], "0")
	return line[0] < '0' || line[0] > '9' || string(digits) == "1"
}

// topLevel reads a line outside any container block.
func (s *scanner) topLevel(i int, line []byte, indent int) {
	switch {
	case fenceRun(line) != nil:
		s.fence, s.para = fenceRun(line), -1
	case htmlEnd(line, s.para >= 0) != "":
		s.html, s.para, s.top = htmlEnd(line, s.para >= 0), -1, false
		if s.html != "\n" && endsHTML(line[1:], s.html) {
			s.html = ""
		}
	case atxLevel(line) > 0:
		if lvl := atxLevel(line); lvl <= 2 && atxText(line, lvl) != "" {
			s.heads = append(s.heads, mark{i + 1, i + 1, lvl, atxText(line, lvl)})
		}
		s.para = -1
	case s.para >= 0 && setextLevel(line) > 0:
		s.heads = append(s.heads, mark{s.para + 1, i + 1, setextLevel(line), joinTrimmed(s.lines[s.para:i])})
		s.para = -1
	case thematicBreak(line):
		s.para = -1
	case line[0] == '>':
		s.quote, s.para, s.text = true, -1, quoteText(line, indent, noText)
	case itemWidth(line) > 0 && (s.para < 0 || interrupts(line)):
		s.item, s.para, s.text = indent+contentOffset(line, indent), -1, itemText(line, indent)
		s.empty = markerAlone(line)
	case s.para < 0:
		s.para = i
	}
}

// trimIndent drops a line's leading spaces and tabs, returning the
// columns they take, and its carriage returns at the end.
func trimIndent(l []byte) ([]byte, int) {
	l, cols := skipSpace(l, 0)
	return bytes.TrimRight(l, "\r"), cols
}

// fenceRun returns the marker run opening a fenced code block ("```" or
// "~~~", three or more), or nil.
func fenceRun(l []byte) []byte {
	if len(l) < 3 || (l[0] != '`' && l[0] != '~') {
		return nil
	}
	n := 0
	for n < len(l) && l[n] == l[0] {
		n++
	}
	if n < 3 || (l[0] == '`' && bytes.IndexByte(l[n:], '`') >= 0) {
		return nil
	}
	return l[:n]
}

func closesFence(l, fence []byte) bool {
	run := fenceRun(l)
	return run != nil && run[0] == fence[0] && len(run) >= len(fence) && len(bytes.TrimSpace(l[len(run):])) == 0
}

// atxLevel returns the level of an ATX heading line, 0 when it is none.
func atxLevel(l []byte) int {
	n := 0
	for n < len(l) && l[n] == '#' {
		n++
	}
	// A carriage return not ending the line is white space to the parser.
	if n == 0 || n > 6 || (n < len(l) && l[n] != ' ' && l[n] != '\t' && l[n] != '\r') {
		return 0
	}
	return n
}

// atxText is a heading's text without its markers and closing run.
func atxText(l []byte, level int) string {
	t := strings.TrimSpace(string(l[level:]))
	if trimmed := strings.TrimRight(t, "#"); trimmed == "" || strings.HasSuffix(trimmed, " ") {
		t = strings.TrimSpace(trimmed)
	}
	return t
}

// setextLevel returns 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(l []byte) int {
	t := bytes.TrimSpace(l)
	switch {
	case len(t) == 0:
		return 0
	case len(bytes.Trim(t, "=")) == 0:
		return 1
	case len(bytes.Trim(t, "-")) == 0:
		return 2
	}
	return 0
}

// itemWidth returns the width of a list marker and the space after it
// ("- ", "12. "), 0 when the line is no list item.
func itemWidth(l []byte) int {
	n := 0
	for n < len(l) && n < 9 && l[n] >= '0' && l[n] <= '9' {
		n++
	}
	switch {
	case n > 0 && n < len(l) && (l[n] == '.' || l[n] == ')'):
		n++
	case n == 0 && len(l) > 0 && (l[0] == '-' || l[0] == '*' || l[0] == '+'):
		n = 1
	default:
		return 0
	}
	if n == len(l) {
		return n + 1
	}
	if l[n] != ' ' && l[n] != '\t' {
		return 0
	}
	return n + 1
}

// thematicBreak reports a line of three or more "-", "*" or "_", with
// spaces between them allowed.
func thematicBreak(l []byte) bool {
	var mark byte
	n := 0
	for _, c := range bytes.TrimSpace(l) {
		switch {
		case c == ' ' || c == '\t':
		case mark == 0 && (c == '-' || c == '*' || c == '_'):
			mark, n = c, 1
		case c == mark:
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// htmlEnd returns what ends an HTML block that line opens ("\n" for a
// blank line), or "" when it opens none, by the start conditions of the
// block parser files are read with. Blocks of the last kind (a complete
// tag alone, of a name not in blockTags) cannot interrupt a paragraph.
func htmlEnd(l []byte, inPara bool) string {
	if len(l) < 2 || l[0] != '<' {
		return ""
	}
	if m := htmlRaw().FindSubmatch(l); m != nil {
		return "</" + strings.ToLower(string(m[1])) + ">"
	}
	switch {
	case bytes.HasPrefix(l, []byte("<!--")):
		return "-->"
	case bytes.HasPrefix(l, []byte("<?")):
		return "?>"
	case len(l) > 2 && l[1] == '!' && l[2] >= 'A' && l[2] <= 'Z':
		return ">"
	case bytes.HasPrefix(l, []byte("<![CDATA[")):
		return "]]>"
	}
	if m := htmlTagAlone().FindSubmatch(l); m != nil {
		tag := strings.ToLower(string(m[2]))
		closeWithAttrs := len(m[1]) > 0 && len(m[3]) > 0
		if blockTags[tag] || !inPara && !closeWithAttrs && tag != "script" && tag != "style" && tag != "pre" {
			return "\n"
		}
	}
	if m := htmlTagStart().FindSubmatch(l); m != nil && blockTags[strings.ToLower(string(m[1]))] {
		return "\n"
	}
	return ""
}

// The HTML block start conditions: a raw-text tag, any complete tag
// alone on its line, and the start of a tag.
var (
	htmlRaw      = lazyregexp.New(`(?i)^<(script|pre|style|textarea)(?:\s|/?>|$)`)
	htmlRawEnd   = lazyregexp.New(`(?i)</(?:script|pre|style|textarea)>`)
	htmlTagAlone = lazyregexp.New(`^<(/ *)?([a-zA-Z][a-zA-Z0-9-]*)((?:[\t ]+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:[\t ]*=[\t ]*(?:[^"'=<>` + "`" + `\x00-\x20]+|'[^']*'|"[^"]*"))?)*) */?> *$`)
	htmlTagStart = lazyregexp.New(`^<(?:/ *)?([a-zA-Z][a-zA-Z0-9-]*)(?: |/?>|$)`)
)

// blockTags are the tag names that start an HTML block ended by a blank
// line, even inside a paragraph.
var blockTags = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(`address article aside base basefont blockquote body caption center col colgroup
		dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6
		head header hr html iframe legend li link main menu menuitem meta nav noframes ol optgroup option p param
		search section summary table tbody td tfoot th thead title tr track ul`) {
		m[t] = true
	}
	return m
}()

func joinTrimmed(lines [][]byte) string {
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		parts = append(parts, strings.TrimSpace(string(l)))
	}
	return strings.Join(parts, " ")
}
