package recall

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/tmemhq/tmem/layout"
)

// ChunkOptions sizes chunks. Token counts are estimates of the word pieces
// a MiniLM-style model sees (it reads at most 256): a Latin word counts as
// 1.3 tokens, a CJK character as one.
type ChunkOptions struct {
	TargetTokens  int // a chunk is split once it would grow past this; 0 means 200
	OverlapTokens int // the tail of one piece that starts the next; 0 means 30, negative none
}

// DefaultChunkOptions are the settings the index uses unless told
// otherwise; see the package README for how they were chosen.
var DefaultChunkOptions = ChunkOptions{TargetTokens: 200, OverlapTokens: 30}

func (o ChunkOptions) withDefaults() ChunkOptions {
	if o.TargetTokens <= 0 {
		o.TargetTokens = DefaultChunkOptions.TargetTokens
	}
	if o.OverlapTokens == 0 {
		o.OverlapTokens = DefaultChunkOptions.OverlapTokens
	}
	if o.OverlapTokens < 0 {
		o.OverlapTokens = 0
	}
	return o
}

// String names the settings; the index records it and rebuilds when it
// changes.
func (o ChunkOptions) String() string {
	o = o.withDefaults()
	return fmt.Sprintf("md-entries/target=%d/overlap=%d", o.TargetTokens, o.OverlapTokens)
}

// Chunk is one indexed piece of a memory file: part of one `##` entry,
// never more.
type Chunk struct {
	ID          string `json:"id"` // path#ordinal
	Ordinal     int    `json:"ordinal"`
	Teammate    string `json:"teammate"`
	Kind        string `json:"kind"`
	Path        string `json:"path"`
	StartLine   int    `json:"start_line"`
	EndLine     int    `json:"end_line"`
	Heading     string `json:"heading"` // breadcrumb: "Title > Entry heading"
	Type        string `json:"type,omitempty"`
	Date        string `json:"date,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// Source is, in an archive file, the archived file the chunk comes
	// from (relative to the memory folder: "2026-03-09.md"), and Section
	// the archive line its text starts on; a search returns at most one
	// hit per archived source (every copy of it), as it does per file.
	Source  string `json:"source,omitempty"`
	Section int    `json:"section,omitempty"`
	// Cites is set on a summary's day section that says where the day's
	// full log is ("Log: 2026-03-09.md in archive/2026-03.md"): the
	// archived source, as "beacon/memory/archive/2026-03.md@2026-03-09.md".
	// A search shows such a day once: by its full log when that matched
	// too.
	Cites string `json:"cites,omitempty"`
	Text  string `json:"text"`
}

// group is what a search returns one hit of: a file, or an archived
// source within an archive file.
func (c Chunk) group() string {
	switch {
	case c.Cites != "":
		return c.Cites
	case c.Source != "":
		return c.Path + "@" + c.Source
	}
	return c.Path
}

// logLine finds the "Log: 2026-03-09.md in archive/2026-03.md" line of a
// summary's day: the archived source is named, not its lines, which a
// merge of the archive can shift.
var logLine = regexp.MustCompile(`(?m)^Log: (\S+\.md) in (archive/\S+\.md)\s*$`)

// citesOf returns what a chunk of a summary's day section cites.
func citesOf(teammate, text string) string {
	m := logLine.FindStringSubmatch(text)
	if m == nil || teammate == "" {
		return ""
	}
	return teammate + "/memory/" + m[2] + "@" + m[1]
}

// EmbedText is what the embedder reads for a chunk: its breadcrumb, name
// and description give a short entry the context it lacks on its own.
func (c Chunk) EmbedText() string {
	var b strings.Builder
	for _, s := range []string{c.Name, c.Description, c.Heading} {
		if s != "" {
			b.WriteString(s)
			b.WriteString("\n")
		}
	}
	b.WriteString(c.Text)
	return b.String()
}

// ChunkFile parses a memory file and splits it into chunks. Frontmatter
// that is not valid YAML (an unquoted colon in a description is the usual
// slip) is read leniently as "key: value" lines (layout.ParseLenient), so
// the file is still found.
func ChunkFile(f layout.File, src []byte, opts ChunkOptions) ([]Chunk, error) {
	cs, _, err := chunkFile(f, src, opts)
	return cs, err
}

// chunkFile is ChunkFile; problem is the error that made it read the
// frontmatter leniently, nil when the file parsed strictly.
func chunkFile(f layout.File, src []byte, opts ChunkOptions) (cs []Chunk, problem, err error) {
	if f.Kind == layout.KindDaily && layout.IsBareStub(f.Date, src) {
		return nil, nil, nil // a compacted daily's stub: its text is in the archive
	}
	if f.Kind == layout.KindArchive && f.Month != "" {
		cs, err := chunkArchive(f, src, opts.withDefaults())
		return capChunks(cs), nil, err
	}
	doc, problem, err := layout.ParseLenient(f.Path, src)
	if err != nil {
		return nil, nil, err
	}
	return capChunks(chunkDoc(f, doc, opts.withDefaults())), problem, nil
}

// maxChunksPerFile bounds the chunks one file yields. A file of ordinary
// entries stays far below it even at the size limit; one of many
// thousand tiny entries (a generated file, a runaway agent) would
// otherwise cost the index time and memory per entry.
const maxChunksPerFile = 2000

// capChunks joins neighbouring chunks of a file that yields too many,
// never across an archived source, so that it yields about
// maxChunksPerFile; each joined chunk keeps its first breadcrumb and
// spans its parts' lines.
func capChunks(cs []Chunk) []Chunk {
	if len(cs) <= maxChunksPerFile {
		return cs
	}
	per := (len(cs) + maxChunksPerFile - 1) / maxChunksPerFile
	out := make([]Chunk, 0, maxChunksPerFile+1)
	for i := 0; i < len(cs); {
		c := cs[i]
		var b strings.Builder
		b.WriteString(c.Text)
		j := i + 1
		for ; j < len(cs) && j < i+per && cs[j].group() == c.group(); j++ {
			b.WriteString("\n")
			b.WriteString(cs[j].Text)
			c.EndLine = cs[j].EndLine
		}
		c.Text = b.String()
		c.Ordinal = len(out)
		c.ID = fmt.Sprintf("%s#%d", c.Path, c.Ordinal)
		out = append(out, c)
		i = j
	}
	return out
}

func chunkDoc(f layout.File, doc *layout.Doc, opts ChunkOptions) []Chunk {
	base := Chunk{
		Teammate:    f.Teammate,
		Kind:        string(f.Kind),
		Path:        f.Path,
		Type:        f.Type,
		Name:        oneLine(doc.Get("name")),
		Description: oneLine(doc.Get("description")),
		Date:        fileDate(f, doc),
	}
	if t := doc.Get("type"); f.Kind == layout.KindTyped && layout.KnownType(t) {
		base.Type = t
	}
	var out []Chunk
	for _, e := range doc.Entries {
		crumb := crumbOf(doc.Title, e.Heading)
		text := e.Text
		// The text is the entry's lines up to its last, trimmed: blank
		// lines and a stamp below the heading are not part of it.
		start := e.End - strings.Count(text, "\n")
		bare := strings.TrimSpace(text) == ""
		if bare {
			if e.Heading == "" {
				continue
			}
			text, start = e.Heading, e.Start // a bare heading is still findable
		}
		cites := ""
		if f.Kind == layout.KindWeekly || f.Kind == layout.KindMonthly {
			cites = citesOf(f.Teammate, e.Text)
		}
		for _, p := range splitEntry(text, start, opts) {
			c := base
			c.Heading, c.Cites = crumb, cites
			if !p.first {
				c.Heading = cutCrumb(crumb)
			}
			c.Text = p.text
			c.StartLine, c.EndLine = p.start, p.end
			if e.Heading != "" && p.first {
				c.StartLine = e.Start
			}
			if bare {
				c.EndLine = e.End // all of a setext heading's lines
			}
			c.Ordinal = len(out)
			c.ID = fmt.Sprintf("%s#%d", f.Path, c.Ordinal)
			out = append(out, c)
		}
	}
	if len(out) == 0 && doc.Title != "" {
		out = titleChunks(base, doc, opts)
	}
	return out
}

// titleChunks are the chunks of a file that holds nothing but its title,
// so that it is still found; a long title is split like an entry.
func titleChunks(base Chunk, doc *layout.Doc, opts ChunkOptions) []Chunk {
	var out []Chunk
	for _, p := range splitEntry(doc.Title, doc.TitleLine, opts) {
		c := base
		c.Heading, c.Text = doc.Title, p.text
		c.StartLine, c.EndLine = doc.TitleLine, doc.TitleEnd
		c.Ordinal = len(out)
		c.ID = fmt.Sprintf("%s#%d", base.Path, c.Ordinal)
		out = append(out, c)
	}
	return out
}

// maxCrumb bounds the breadcrumb of an entry's chunks after its first,
// where a heading of many kilobytes would be indexed, embedded and shown
// once per chunk; the first chunk keeps it whole, so all of it is found.
const maxCrumb = 512

// cutCrumb is a breadcrumb over maxCrumb (and its mark) cut to it, with
// "…"; cutting a cut one changes nothing.
func cutCrumb(s string) string {
	const mark = " …"
	if len(s) <= maxCrumb+len(mark) {
		return s
	}
	return cutText(s, maxCrumb) + mark
}

// sameCrumb reports whether two chunks' breadcrumbs are those of one
// entry: equal, once the first chunk's whole one is cut (see maxCrumb).
func sameCrumb(a, b string) bool { return a == b || cutCrumb(a) == cutCrumb(b) }

func crumbOf(title, heading string) string {
	switch {
	case title == "":
		return heading
	case heading == "":
		return title
	}
	return title + " > " + heading
}

// oneLine returns s's words joined by single spaces: s, spacing aside.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// fileDate is the date a file speaks for: its name for dailies and
// summaries, else the frontmatter date or period.
func fileDate(f layout.File, doc *layout.Doc) string {
	if !f.Date.IsZero() {
		return f.Date.Format(layout.DateLayout)
	}
	if d := doc.Date(); !d.IsZero() {
		return d.Format(layout.DateLayout)
	}
	return ""
}

// piece is a run of lines (or part of one) of an entry.
type piece struct {
	text       string
	start, end int
	first      bool // holds the entry's first line
}

// unit is the smallest thing the splitter moves around: a paragraph, a
// sentence or, for a runaway sentence, a run of words.
type unit struct {
	text       string
	start, end int
	tokens     int
	paraStart  bool
}

// splitEntry cuts an entry's text (first line at line start) into pieces
// of about opts.TargetTokens, at paragraph boundaries first, then sentence
// boundaries, then words. Consecutive pieces share an overlap of up to
// opts.OverlapTokens taken from whole trailing sentences.
func splitEntry(text string, start int, opts ChunkOptions) []piece {
	total := estimateTokens(text)
	if total <= opts.TargetTokens {
		return []piece{{text: text, start: start, end: start + strings.Count(text, "\n"), first: true}}
	}
	var units []unit
	for _, p := range paragraphs(text, start) {
		if p.tokens <= opts.TargetTokens {
			p.paraStart = true
			units = append(units, p)
			continue
		}
		for i, s := range sentences(p, opts.TargetTokens) {
			s.paraStart = i == 0
			units = append(units, s)
		}
	}
	var out []piece
	var cur []unit
	curTok := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		var b strings.Builder
		for i, u := range cur {
			if i > 0 {
				if u.paraStart {
					b.WriteString("\n\n")
				} else if u.start != cur[i-1].end {
					b.WriteString("\n")
				} else {
					b.WriteString(" ")
				}
			}
			b.WriteString(u.text)
		}
		out = append(out, piece{text: b.String(), start: cur[0].start, end: cur[len(cur)-1].end, first: len(out) == 0})
	}
	for _, u := range units {
		if curTok > 0 && curTok+u.tokens > opts.TargetTokens {
			flush()
			// Carry trailing sentences of the piece just flushed, up to
			// the overlap budget, so a thought cut in two is found whole.
			var carry []unit
			tok := 0
			for i := len(cur) - 1; i >= 0; i-- {
				if tok+cur[i].tokens > opts.OverlapTokens || tok+cur[i].tokens+u.tokens > opts.TargetTokens {
					break
				}
				tok += cur[i].tokens
				carry = append([]unit{cur[i]}, carry...)
			}
			cur, curTok = carry, tok
		}
		cur = append(cur, u)
		curTok += u.tokens
	}
	flush()
	return out
}

// paragraphs splits text at blank lines, keeping line numbers.
func paragraphs(text string, start int) []unit {
	var out []unit
	var buf []string
	from := start
	emit := func(line int) {
		if len(buf) > 0 {
			t := strings.Join(buf, "\n")
			out = append(out, unit{text: t, start: from, end: line - 1, tokens: estimateTokens(t)})
			buf = nil
		}
	}
	for i, l := range strings.Split(text, "\n") {
		line := start + i
		if strings.TrimSpace(l) == "" {
			emit(line)
			continue
		}
		if len(buf) == 0 {
			from = line
		}
		buf = append(buf, l)
	}
	emit(start + strings.Count(text, "\n") + 1)
	return out
}

// sentences splits a paragraph after '.', '!', '?' (and their CJK forms)
// followed by a space or end of line, and after line breaks that start a
// list item; a sentence still over max is cut into runs of words.
func sentences(p unit, max int) []unit {
	var out []unit
	lines := strings.Split(p.text, "\n")
	for li, l := range lines {
		line := p.start + li
		rs := []rune(l)
		from := 0
		for i, r := range rs {
			end := false
			switch r {
			case '。', '！', '？':
				end = true
			case '.', '!', '?':
				end = i+1 == len(rs) || rs[i+1] == ' '
			}
			if end || i+1 == len(rs) {
				s := strings.TrimSpace(string(rs[from : i+1]))
				from = i + 1
				if s != "" {
					out = append(out, words(s, line, max)...)
				}
			}
		}
	}
	return out
}

// words cuts a sentence longer than max tokens into runs of words (or of
// CJK characters) that fit.
func words(s string, line, max int) []unit {
	if t := estimateTokens(s); t <= max {
		return []unit{{text: s, start: line, end: line, tokens: t}}
	}
	var out []unit
	var cur []string
	tok := 0.0
	flush := func() {
		if len(cur) > 0 {
			t := strings.Join(cur, "")
			out = append(out, unit{text: strings.TrimSpace(t), start: line, end: line, tokens: estimateTokens(t)})
			cur, tok = nil, 0
		}
	}
	for _, w := range tokensOf(s) {
		wt := 1.3
		if isCJK([]rune(w)[0]) {
			wt = 1
		}
		if tok+wt > float64(max) {
			flush()
		}
		cur = append(cur, w)
		tok += wt
	}
	flush()
	return out
}

// tokensOf splits s into words (each with its trailing space) and single
// CJK characters, so that joining them gives s back.
func tokensOf(s string) []string {
	var out []string
	var b strings.Builder
	for _, r := range s {
		switch {
		case isCJK(r):
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
			out = append(out, string(r))
		case unicode.IsSpace(r):
			b.WriteRune(r)
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// estimateTokens approximates the word-piece count of s.
func estimateTokens(s string) int {
	latin, cjk := 0, 0
	in := false
	for _, r := range s {
		switch {
		case isCJK(r):
			cjk++
			in = false
		case unicode.IsSpace(r):
			in = false
		default:
			if !in {
				latin++
			}
			in = true
		}
	}
	return (latin*13+9)/10 + cjk
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// cjkOnly keeps the CJK runs of s, space-separated, for the field the CJK
// analyzer reads; Latin text stays out of it so it is not scored twice.
func cjkOnly(s string) string {
	var b strings.Builder
	gap := false
	for _, r := range s {
		if isCJK(r) {
			if gap && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			gap = false
		} else {
			gap = true
		}
	}
	return b.String()
}

// dateOf parses a chunk date; the zero time when empty.
func dateOf(s string) time.Time {
	t, _ := time.Parse(layout.DateLayout, s)
	return t
}
