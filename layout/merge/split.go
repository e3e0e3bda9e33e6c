package merge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/layout"
)

// doc is a memory file split for merging: the frontmatter's fields, the
// text before the first unit, and the body's units.
type doc struct {
	fm       []unit // frontmatter fields, id = field name; nil without frontmatter
	fmOpen   string // the frontmatter's opening and closing lines
	fmClose  string
	preamble string
	units    []unit
	// fmSep and preSep are what separates the frontmatter and the
	// preamble from what follows them (see unit.sep).
	fmSep, preSep string
}

// splitDoc splits a Markdown memory file: a body unit starts at each `##`
// heading and at each stamp line that does not sit under one. ok is false
// when the file does not parse.
func splitDoc(path string, src []byte) (d doc, ok bool) {
	if len(strings.TrimSpace(string(src))) == 0 {
		return doc{}, true
	}
	pd, err := layout.Parse(path, src)
	if err != nil || len(layout.ConflictMarkers(src)) > 0 {
		return doc{}, false
	}
	lines := strings.Split(strings.TrimPrefix(string(src), "\ufeff"), "\n")
	body := pd.BodyLine - 1
	if pd.HasMeta {
		if d, ok = splitFrontMatter(lines[:body]); !ok {
			return doc{}, false
		}
	}
	starts := unitStarts(pd, lines, body)
	from := body
	seen := map[string]int{}
	d.fmSep = leadingSep(lines[body:])
	flush := func(to int) {
		text, sep := trimBlank(lines[from:to]), ""
		if to < len(lines) {
			sep = trailingSep(lines[from:to])
		}
		switch {
		case from == body && !starts[from]:
			d.preamble, d.preSep = text, sep
		case text != "":
			d.units = append(d.units, unit{id: occurrence(seen, text), key: stampIn(lines[from:to]), text: text, sep: sep})
		}
		from = to
	}
	for i := body + 1; i < len(lines); i++ {
		if starts[i] {
			flush(i)
		}
	}
	flush(len(lines))
	return d, true
}

// unitStarts returns the lines (0-based, of lines; the body starts at
// body) where a unit starts: each `##` heading, and each stamp line
// outside code that is not right under a heading. A stamp after a blank
// line under a heading starts a unit: `tmem remember --mode append`
// writes one so under a heading with no text, and two machines' appends
// there must merge.
func unitStarts(pd *layout.Doc, lines []string, body int) map[int]bool {
	starts, heads := map[int]bool{}, map[int]bool{}
	for _, e := range pd.Entries {
		if e.Heading != "" {
			starts[e.Start-1], heads[e.Start-1] = true, true
		}
	}
	code := layout.InCode(strings.Join(lines[body:], "\n"))
	for i := body; i < len(lines); i++ {
		if layout.StampOf(lines[i]) != "" && !code[i-body] && !heads[i-1] {
			starts[i] = true
		}
	}
	return starts
}

// occurrence is a unit's id: its text, and for the second and later unit
// of one file with the same text, which one it is, so that an entry
// written twice is two units.
func occurrence(seen map[string]int, text string) string {
	seen[text]++
	if n := seen[text]; n > 1 {
		return fmt.Sprintf("%s\x00%d", text, n)
	}
	return text
}

// glueHeadings joins, in each of docs, a unit that is a heading alone to
// the stamped unit right after it: an entry a formatter wrote with a
// blank line between its heading and its stamp. It does not when one of
// docs has that heading alone with no stamped unit after it: a heading
// with no text, under which remember --mode append adds stamped notes
// that each side may add to. All of docs are joined alike, so that an
// entry is one unit in each.
func glueHeadings(docs ...*doc) {
	glue, veto := map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		for i, u := range d.units {
			if bareHeading(u) {
				if i+1 < len(d.units) && stampedAlone(d.units[i+1]) {
					glue[u.text] = true
				} else {
					veto[u.text] = true
				}
			}
		}
	}
	for _, d := range docs {
		var out []unit
		seen := map[string]int{}
		for i := 0; i < len(d.units); i++ {
			u := d.units[i]
			if bareHeading(u) && glue[u.text] && !veto[u.text] && i+1 < len(d.units) && stampedAlone(d.units[i+1]) {
				next := d.units[i+1]
				u = unit{text: u.text + sepOr(u.sep, "\n\n") + next.text, key: next.key, sep: next.sep}
				i++
			}
			u.id = occurrence(seen, u.text)
			out = append(out, u)
		}
		d.units = out
	}
}

// bareHeading reports whether u is a heading line alone.
func bareHeading(u unit) bool {
	return u.key == "" && u.arch == nil && strings.HasPrefix(u.text, "#") && !strings.Contains(u.text, "\n")
}

// stampedAlone reports whether u starts at a stamp of its own.
func stampedAlone(u unit) bool {
	first, _, _ := strings.Cut(u.text, "\n")
	return u.key != "" && layout.StampOf(first) != ""
}

// stampIn returns the time of the first stamp among lines, "" if none.
func stampIn(lines []string) string {
	for _, l := range lines {
		if at := layout.StampOf(l); at != "" {
			return at
		}
	}
	return ""
}

// leadingSep is what comes before the first non-blank line of lines: a
// line break, then each blank line before it with its own.
func leadingSep(lines []string) string {
	sep := "\n"
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			break
		}
		sep += l + "\n"
	}
	return sep
}

// trailingSep is what follows the last non-blank line of lines, up to
// what comes after them: a line break, then each blank line at their end
// with its own.
func trailingSep(lines []string) string {
	n := len(lines)
	for n > 0 && strings.TrimSpace(lines[n-1]) == "" {
		n--
	}
	sep := "\n"
	for _, l := range lines[n:] {
		sep += l + "\n"
	}
	return sep
}

// trimBlank joins lines without the blank lines at either end.
func trimBlank(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

var fieldStart = lazyregexp.New(`^[^\s#-][^:]*:`)

// splitFrontMatter splits the frontmatter block (its lines, from the
// opening "---" to the closing one) into fields: a field is its key line
// with the indented, list and comment lines that follow it.
func splitFrontMatter(lines []string) (doc, bool) {
	open, close := -1, -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "---" {
			if open < 0 {
				open = i
			} else {
				close = i
				break
			}
		}
	}
	if open < 0 || close < 0 {
		return doc{}, false
	}
	d := doc{fmOpen: strings.Join(lines[:open+1], "\n"), fmClose: lines[close], fm: []unit{}}
	for _, l := range lines[open+1 : close] {
		if m := fieldStart().FindString(l); m != "" {
			d.fm = append(d.fm, unit{id: strings.TrimSpace(strings.TrimSuffix(m, ":")), text: l})
			continue
		}
		if len(d.fm) == 0 {
			d.fmOpen += "\n" + l
			continue
		}
		d.fm[len(d.fm)-1].text += "\n" + l
	}
	return d, true
}

// splitArchive splits an archive file into its sections, identified by
// source and hash and ordered by archive day, source and hash.
func splitArchive(path string, src []byte) (d doc, ok bool) {
	if len(layout.ConflictMarkers(src)) > 0 {
		return doc{}, false
	}
	secs, err := layout.ParseArchive(path, src)
	if err != nil {
		return doc{}, false
	}
	lines := strings.Split(string(src), "\n")
	first := len(lines)
	if len(secs) > 0 {
		first = secs[0].Header - 1
	}
	d.preamble = trimBlank(lines[:first])
	for i, s := range secs {
		end := len(lines)
		if i+1 < len(secs) {
			end = secs[i+1].Header - 1
		}
		id := s.Source + " " + s.SHA
		d.units = append(d.units, unit{id: id, key: s.Archived + " " + id, text: trimBlank(lines[s.Header-1 : end]), arch: &archived{s, partsOf(s.Source, s.Text)}})
	}
	return d, true
}

// partsOf returns the units of an archived copy of the file src, with
// its preamble; nil when the copy does not parse.
func partsOf(src, text string) []string {
	d, ok := splitDoc(src, []byte(text))
	if !ok {
		return nil
	}
	glueHeadings(&d)
	parts := []string{}
	if d.preamble != "" {
		parts = append(parts, d.preamble)
	}
	for _, u := range d.units {
		parts = append(parts, u.text)
	}
	return parts
}

// splitLines splits text into lines, for files that do not parse.
func splitLines(src []byte) []unit {
	s := strings.TrimSuffix(string(src), "\n")
	if s == "" {
		return nil
	}
	var out []unit
	for _, l := range strings.Split(s, "\n") {
		out = append(out, unit{id: l, text: l})
	}
	return out
}

// keepEntriesOnce keeps each entry of an archived file once when the
// archive holds several copies of it: two machines archived a daily at
// different points in its life. Copies are taken in archive order (day,
// then source and hash); each keeps only the units no earlier copy of the
// same file holds, as a part (see layout.ArchiveSection.Part), or goes
// when it has none left. The result depends on the copies alone, not on
// the order machines merged in. It returns the units kept and notes on
// what changed.
func keepEntriesOnce(units []unit) ([]unit, []string) {
	var copies []int
	for i, u := range units {
		if u.arch != nil && u.arch.parts != nil {
			copies = append(copies, i)
		}
	}
	sort.SliceStable(copies, func(a, b int) bool { return units[copies[a]].key < units[copies[b]].key })
	held := map[string]lineSet{} // per source
	drop := map[int]bool{}
	var notes []string
	for _, i := range copies {
		u := &units[i]
		src := u.arch.sec.Source
		if held[src] == nil {
			held[src] = lineSet{}
		}
		var rest []string
		for _, p := range u.arch.parts {
			if !held[src][p] {
				rest = append(rest, p)
			}
		}
		for _, p := range u.arch.parts {
			held[src][p] = true
		}
		switch {
		case len(rest) == len(u.arch.parts):
		case len(rest) == 0:
			drop[i] = true
			notes = append(notes, fmt.Sprintf("dropped the copy %s: an earlier copy of that file holds all of it", u.id))
		default:
			part := u.arch.sec.PartOf(strings.Join(rest, "\n\n"))
			u.text, u.arch = strings.TrimSuffix(part.Render(), "\n"), &archived{part, rest}
			notes = append(notes, fmt.Sprintf("kept of the copy %s only the %d entries no earlier copy of that file holds", u.id, len(rest)))
		}
	}
	kept := units[:0:0]
	for i, u := range units {
		if !drop[i] {
			kept = append(kept, u)
		}
	}
	return kept, notes
}
