package merge

import (
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
	starts := map[int]bool{}
	for _, e := range pd.Entries {
		if e.Heading != "" {
			starts[e.Start-1] = true
		}
	}
	for i := body; i < len(lines); i++ {
		if layout.StampOf(lines[i]) != "" && !(i > 0 && starts[i-1]) {
			starts[i] = true
		}
	}
	from := body
	flush := func(to int) {
		text := trimBlank(lines[from:to])
		switch {
		case from == body && !starts[from]:
			d.preamble = text
		case text != "":
			d.units = append(d.units, unit{id: text, key: stampIn(lines[from:to]), text: text})
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

// stampIn returns the time of the first stamp among lines, "" if none.
func stampIn(lines []string) string {
	for _, l := range lines {
		if at := layout.StampOf(l); at != "" {
			return at
		}
	}
	return ""
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
		d.units = append(d.units, unit{id: id, key: s.Archived + " " + id, text: trimBlank(lines[s.Header-1 : end])})
	}
	return d, true
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
