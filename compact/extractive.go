package compact

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/layout"
)

// Extractive is the default Summarizer: offline, deterministic and honest.
// A weekly summary has a section per day; each entry of the day becomes
// one bullet, its heading and the first full sentence of its text (never
// cut inside a sentence or a word, never leaving Markdown open; when the
// log's full text is not kept, a long entry also keeps one sentence in
// four of the rest, see digestDoc), and every
// paragraph or list item marked as a decision, lesson or fact follows it
// word for word as a sub-item. A paragraph is marked when it starts with
// "Decision:", "Decided:", "Lesson:", "Learned:" or "Fact:" (any case,
// bold or not), carries a #decision or #lesson tag, or sits under a
// heading holding one of those words. Different days are never merged.
// A monthly summary gathers its weeks' day sections. Over Request.Budget
// the sentences go first (a long entry's others before its first), then
// the unmarked bullets of each day (counted, with a pointer to the full
// log); marked text is always kept.
type Extractive struct {
	Similarity Similarity // used for wisdom entries; nil means Shingles{}
}

// Default summary budgets, in tokens (chars/4).
const (
	DefaultWeeklyBudget  = 1500
	DefaultMonthlyBudget = 4000
)

// logPrefix starts the line of a day section that says where the day's
// full log is.
const logPrefix = "Log: "

// nothingLogged is a day section's only bullet when its log has no entry.
const nothingLogged = "- Nothing was logged."

// Summarize implements Summarizer.
func (e Extractive) Summarize(_ context.Context, req Request) (string, error) {
	switch req.Kind {
	case KindWisdom:
		return e.wisdom(req)
	case KindWeekly, KindMonthly:
	default:
		return "", fmt.Errorf("extractive: unknown kind %q", req.Kind)
	}
	secs, title, err := existingSections(req)
	if err != nil {
		return "", err
	}
	for _, src := range req.Sources {
		add, err := sourceSections(req.Kind, src)
		if err != nil {
			return "", err
		}
		secs = mergeSections(secs, add)
	}
	switch {
	case title != "": // its lines as written
	case req.Kind == KindMonthly:
		title = "# Month " + req.Unit
	default:
		title = "# Week " + req.Unit
	}
	return fitBudget(title, secs, budgetOf(req)), nil
}

func budgetOf(req Request) int {
	switch {
	case req.Budget > 0:
		return req.Budget
	case req.Kind == KindMonthly:
		return DefaultMonthlyBudget
	}
	return DefaultWeeklyBudget
}

// section is one "##" section of a summary. Key orders and matches them:
// a day's date, or a week's Monday for text that is not a day section.
type section struct {
	Key string
	Day bool // a day section, which a newer rendering of that day replaces
	// More is set on a day section rendered from a compacted daily's stub
	// that gained entries: it adds them to that day's section instead of
	// replacing it.
	More bool
	Text string
	// digests, label and where are kept for a day section rendered in
	// this run, so that the budget can render it again with less.
	digests []digest
	label   string
	where   string
}

// existingSections reads the summary the sources are merged into, and its
// title line. Both are kept as written, headings too (closing hashes, a
// setext underline), so that a merge changes only the lines it must.
func existingSections(req Request) (secs []section, title string, err error) {
	if strings.TrimSpace(req.Existing) == "" {
		return nil, "", nil
	}
	d, err := layout.Parse("existing "+req.Unit, []byte(req.Existing))
	if err != nil {
		return nil, "", fmt.Errorf("extractive: %w", err)
	}
	// Line for line with d's entries; only line ends, stamps and conflict
	// markers differ from d.Body.
	lines := strings.Split(string(d.ReadableBody()), "\n")
	asWritten := func(en layout.Entry) string {
		return strings.Join(lines[en.Start-d.BodyLine:en.End-d.BodyLine+1], "\n")
	}
	if d.TitleLine > 0 {
		title = titleAsWritten(lines[d.TitleLine-d.BodyLine:])
	}
	return docSections(d, "", asWritten), title, nil
}

// atxTitle and setextTitle match the line of an ATX level-1 heading and
// the underline of a setext one.
var (
	atxTitle    = lazyregexp.New(`^ {0,3}#([ \t]|$)`)
	setextTitle = lazyregexp.New(`^ {0,3}=+[ \t]*$`)
)

// titleAsWritten is the title heading at the start of lines: its line,
// or for a setext heading its lines up to its underline.
func titleAsWritten(lines []string) string {
	if atxTitle().MatchString(lines[0]) {
		return lines[0]
	}
	for i, l := range lines {
		if setextTitle().MatchString(l) {
			return strings.Join(lines[:i+1], "\n")
		}
	}
	return lines[0]
}

// docSections splits a summary into sections, text renders each: day
// sections keyed by their date, anything else under key (with its heading
// kept), or when key is set and a day comes before it, under a key just
// after that day's, so that it stays after the day it follows.
func docSections(d *layout.Doc, key string, text func(layout.Entry) string) []section {
	var out []section
	for _, en := range d.Entries {
		if day, ok := layout.HeadingDay(en.Heading); ok {
			out = append(out, section{Key: day, Day: true, Text: text(en)})
			if key != "" {
				key = day + afterDay
			}
			continue
		}
		if en.Heading == "" && strings.TrimSpace(en.Text) == "" {
			continue
		}
		out = append(out, section{Key: key, Text: text(en)})
	}
	return out
}

// afterDay, put after a day's key, sorts after that day and before the
// next: the key of a section that follows the day in its source.
const afterDay = "~"

// entryMarkdown is a section of a summary read as a source, with its
// heading as "## " and its text: en.Text has lost only its blank lines
// around it, so a line's leading indent and trailing spaces (two are a
// hard line break) stay as written.
func entryMarkdown(en layout.Entry) string {
	switch {
	case en.Heading == "":
		return en.Text
	case en.Text == "":
		return "## " + en.Heading
	}
	return "## " + en.Heading + "\n\n" + en.Text
}

// sourceSections turns one source into sections: a daily log into its
// day section, a weekly summary (for a monthly) into its day sections and
// the rest of its text under the week's heading.
func sourceSections(kind Kind, src Source) ([]section, error) {
	d, err := layout.Parse(src.Path, []byte(src.Text))
	if err != nil {
		return nil, fmt.Errorf("extractive: %w", err)
	}
	if kind == KindWeekly {
		ds := digestDoc(d, src.Where == "")
		more := layout.HasStub([]byte(src.Text))
		return []section{{Key: src.Label, Day: true, More: more, Text: renderDay(src.Label, ds, src.Where), digests: ds, label: src.Label, where: src.Where}}, nil
	}
	wk, err := layout.ParseWeek(src.Label)
	if err != nil {
		return nil, fmt.Errorf("extractive: monthly source %s: %w", src.Path, err)
	}
	key := wk.Start().Format(layout.DateLayout)
	var out []section
	for _, s := range docSections(d, key, entryMarkdown) {
		if !s.Day && !strings.HasPrefix(s.Text, "## ") {
			s.Text = "## Week " + src.Label + "\n\n" + s.Text
		} else if !s.Day {
			s.Text = "## Week " + src.Label + ": " + strings.TrimPrefix(s.Text, "## ")
		}
		out = append(out, s)
	}
	return out, nil
}

// mergeSections adds sections to a summary: a day already there is
// replaced by its newer rendering where that holds every line of it (the
// day gained entries since), else gains the lines of the rendering it
// lacks (a person edited the section, or the stub of a compacted daily
// gained entries); a new section goes in date order among the dated ones
// (see insertDated). Nothing else moves, so a summary a person edited
// changes only where it gains text, and loses none of it.
func mergeSections(old, add []section) []section {
	out := append([]section(nil), old...)
	for _, s := range add {
		i := sameDay(out, s)
		switch {
		case i < 0:
			out = insertDated(out, s)
		case s.More:
			out[i] = moreOfDay(out[i], s, false)
		case holdsLines(s.Text, out[i].Text):
			out[i] = s
		default:
			out[i] = moreOfDay(out[i], s, true)
		}
	}
	return out
}

// holdsLines reports whether every non-blank line of old is a line of text.
func holdsLines(text, old string) bool {
	has := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		has[l] = true
	}
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) != "" && !has[l] {
			return false
		}
	}
	return true
}

// sameDay is the index of the day section of secs that s, a day section,
// replaces; -1 when there is none.
func sameDay(secs []section, s section) int {
	if !s.Day {
		return -1
	}
	for i, x := range secs {
		if x.Day && x.Key == s.Key {
			return i
		}
	}
	return -1
}

// insertDated puts s in date order among the dated sections of secs:
// before the dated sections at the end that are all later than s, or
// right after the last dated section when none is later; at the end when
// secs or s has no date. A section without a date thus stays after the
// day it follows, and one at the top or the end of the summary stays
// there.
func insertDated(secs []section, s section) []section {
	at := len(secs)
	for i := len(secs) - 1; i >= 0 && s.Key != ""; i-- {
		if secs[i].Key == "" {
			continue
		}
		if secs[i].Key <= s.Key {
			if at == len(secs) {
				at = i + 1
			}
			break
		}
		at = i
	}
	return append(secs[:at:at], append([]section{s}, secs[at:]...)...)
}

// moreOfDay adds the lines of add, a newer rendering of a day, to that
// day's section, after its last list item: with fresh, those the section
// does not hold (add renders the whole day again: an entry that changed
// gets its new bullet beside the old one, which a person may have
// edited); else all (add renders only entries appended to a compacted
// day's stub). "Nothing was logged" goes once there is something, and
// add's "Log:" line takes the place of the section's for the same file.
func moreOfDay(day, add section, fresh bool) section {
	lines := strings.Split(day.Text, "\n")
	had := map[string]bool{}
	for _, l := range lines {
		had[l] = fresh
	}
	var items []string
	for _, l := range strings.Split(add.Text, "\n")[1:] {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, logPrefix) && l != nothingLogged && !had[l] {
			items = append(items, l)
		}
	}
	at, drop := afterItems(lines), 0
	if i := slices.Index(lines, nothingLogged); i >= 0 && len(items) > 0 {
		at, drop = i, 1 // in its place
	}
	out := append(append(append([]string{}, lines[:at]...), items...), lines[at+drop:]...)
	if add.where != "" {
		out = withLog(out, logPrefix+add.where)
	}
	return section{Key: day.Key, Day: true, Text: strings.Join(out, "\n")}
}

// afterItems is where items go in a day section's lines: after its last
// list item, or when it has none, before the blank and "Log:" lines that
// end it.
func afterItems(lines []string) int {
	for i := len(lines) - 1; i > 0; i-- {
		if t := strings.TrimLeft(lines[i], " "); strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
			return i + 1
		}
	}
	at := len(lines)
	for at > 1 && (strings.TrimSpace(lines[at-1]) == "" || strings.HasPrefix(lines[at-1], logPrefix)) {
		at--
	}
	return at
}

// withLog puts log, a "Log:" line, in place of the line of lines that is
// the "Log:" line tmem wrote for the same file ("Log: f.md" or "Log: f.md
// in archive/…"), or adds it at the end: a line a person added to is
// kept.
func withLog(lines []string, log string) []string {
	file := strings.Fields(log)[1]
	for i, l := range lines {
		f := strings.Fields(l)
		if strings.HasPrefix(l, logPrefix) && (len(f) == 2 || len(f) == 4 && f[2] == "in") && f[1] == file {
			lines[i] = log
			return lines
		}
	}
	return append(lines, "", log)
}

// digest is what a summary keeps of one entry.
type digest struct {
	Heading  string      // word for word; "" for text before the first heading
	Sentence string      // first full sentence of its first unmarked paragraph
	Extra    []string    // other sentences kept, in order (see salientSentences)
	Marked   []string    // marked paragraphs and items, word for word
	salient  []candidate // the sentences Extra may hold, most salient first
}

// digestDoc is what a summary keeps of each entry of a daily log; more
// is set when the log's full text is not kept anywhere (compact.archive
// false), so that the summary is all that is left of it: a long entry then
// keeps its most salient sentences besides its lead. While the log is
// kept, the summary points at it instead (its Log: line), and recall
// finds the rest there.
func digestDoc(d *layout.Doc, more bool) []digest {
	var out []digest
	for _, en := range d.Entries {
		if g := digestEntry(en, more); g.Heading != "" || g.Sentence != "" || len(g.Extra) > 0 || len(g.Marked) > 0 {
			out = append(out, g)
		}
	}
	return out
}

func digestEntry(en layout.Entry, more bool) digest {
	g := digest{Heading: en.Heading}
	var plain []string
	for _, b := range entryBlocks(en.Heading, en.Text) {
		switch {
		case b.Heading:
		case b.Mark != "":
			g.Marked = append(g.Marked, b.Text)
		default:
			if len(plain) == 0 {
				g.Sentence = firstSentence(b.Text)
			}
			plain = append(plain, b.Text)
		}
	}
	if more {
		g.salient = salientSentences(plain, g.Sentence)
		g.Extra = inOrder(g.salient, len(g.salient))
	}
	return g
}

// renderDay writes a day section: a bullet per entry, the marked text as
// sub-items, and where the full log is.
func renderDay(label string, ds []digest, where string) string {
	var b strings.Builder
	b.WriteString("## " + dayLabel(label) + "\n\n")
	if len(ds) == 0 {
		b.WriteString(nothingLogged + "\n")
	}
	for _, g := range ds {
		b.WriteString(bullet(g) + "\n")
		for _, m := range g.Marked {
			b.WriteString("  - " + m + "\n")
		}
	}
	if where != "" {
		b.WriteString("\n" + logPrefix + where + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// bullet is an entry's line: its heading, then its first sentence.
func bullet(g digest) string {
	body := g.sentences()
	switch {
	case g.Heading == "" && body == "":
		return "- (untitled)"
	case g.Heading == "":
		return "- " + body
	case body == "":
		return "- " + g.Heading
	}
	return "- " + g.Heading + " — " + body
}

// sentences is the entry's first sentence and the others it keeps, with
// an ellipsis where text is left out (a first sentence too long to quote
// is left out too).
func (g digest) sentences() string {
	if len(g.Extra) == 0 {
		return g.Sentence
	}
	if g.Sentence == "" {
		return "… " + strings.Join(g.Extra, " … ")
	}
	return g.Sentence + " … " + strings.Join(g.Extra, " … ")
}

// dayLabel is "2026-03-09 Monday" for a date, the label itself otherwise.
func dayLabel(label string) string {
	t, err := time.Parse(layout.DateLayout, label)
	if err != nil {
		return label
	}
	return label + " " + t.Weekday().String()
}
