package merge

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/layout"
)

// Result is a merged file.
type Result struct {
	Data      []byte
	Conflicts int      // conflicts left in Data, each between git's markers
	Notes     []string // what the merge did that a person should know
}

var archivePath = lazyregexp.New(`(^|/)memory/` + layout.ArchiveDir + `/\d{4}-\d{2}\.md$`)

// Merge merges three versions of the memory file at path (as git names
// it, relative to the repository). An archive month file is merged as the
// union of its sections; every other file by frontmatter field and body
// unit (see the package doc). A version that does not parse, or holds
// conflict markers already, makes the merge fall back to lines.
func Merge(path string, base, ours, theirs []byte) (Result, error) {
	for _, v := range [][]byte{base, ours, theirs} {
		if len(v) > layout.MaxArchiveSize {
			return Result{}, fmt.Errorf("merge %s: a version is over the %d MiB limit", path, layout.MaxArchiveSize>>20)
		}
	}
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(base, theirs):
		return Result{Data: ours}, nil
	case bytes.Equal(base, ours):
		return Result{Data: theirs}, nil
	}
	res := merge(path, base, ours, theirs)
	if !archivePath().MatchString(path) { // sections keep their sources' bytes
		res.Data = inStyleOf(ours, res.Data)
	}
	return res, nil
}

// merge is Merge of three versions that all differ.
func merge(path string, base, ours, theirs []byte) Result {
	if dailyPath().MatchString(path) && !layout.HasStub(base) && (layout.HasStub(ours) || layout.HasStub(theirs)) {
		if res, ok := mergeCompacted(path, base, ours, theirs); ok {
			return res
		}
	}
	if summaryPath().MatchString(path) {
		if res, ok := mergeSummaries(path, base, ours, theirs); ok {
			return res
		}
	}
	split := splitDoc
	if archivePath().MatchString(path) {
		split = splitArchive
	}
	b, okb := split(path, base)
	o, oko := split(path, ours)
	t, okt := split(path, theirs)
	if !okb || !oko || !okt {
		return mergeLines(path, base, ours, theirs)
	}
	if !archivePath().MatchString(path) {
		glueHeadings(&b, &o, &t)
	}
	return mergeDocs(path, b, o, t)
}

// inStyleOf writes merged data the way ours, the version checked out, is
// written: with its byte-order mark, with CRLF line ends when most of its
// lines have them and LF when none has, and without a final line break
// when it has none. (layout.KeepLineEndings asks every line to be CRLF: a
// merge meets files one machine's appends left mixed.)
func inStyleOf(ours, data []byte) []byte {
	const bom = "\ufeff"
	if bytes.HasPrefix(ours, []byte(bom)) && !bytes.HasPrefix(data, []byte(bom)) {
		data = append([]byte(bom), data...)
	}
	crlf := bytes.Count(ours, []byte("\r\n"))
	if crlf == 0 && len(ours) > 0 {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")) // theirs' CRLF lines in an LF file
	}
	if crlf > 0 && 2*crlf > bytes.Count(ours, []byte("\n")) {
		var b bytes.Buffer
		for i, c := range data {
			if c == '\n' && (i == 0 || data[i-1] != '\r') {
				b.WriteByte('\r')
			}
			b.WriteByte(c)
		}
		data = b.Bytes()
	}
	if len(ours) > 0 && ours[len(ours)-1] != '\n' {
		data = bytes.TrimSuffix(bytes.TrimSuffix(data, []byte("\n")), []byte("\r"))
	}
	return data
}

// mergeDocs merges split files.
func mergeDocs(path string, b, o, t doc) Result {
	var out strings.Builder
	next := "" // what goes before the next part
	add := func(text, sep string) {
		if text != "" {
			out.WriteString(next + text)
			next = sepOr(sep, "\n\n")
		}
	}
	fm, conflicts, _ := mergeFrontMatter(b, o, t)
	add(fm, sepOr(o.fmSep, t.fmSep))
	pre, preSep := o.preamble, o.preSep
	if pre == b.preamble || pre == "" {
		pre, preSep = t.preamble, t.preSep
	} else if t.preamble != b.preamble && t.preamble != "" && t.preamble != pre {
		pre = "<<<<<<< ours\n" + pre + "\n=======\n" + t.preamble + "\n>>>>>>> theirs"
		conflicts++
	}
	add(pre, preSep)
	pieces := inTimeOrder(merge3(b.units, o.units, t.units, true), b.units)
	var notes []string
	if len(pieces) == 1 {
		pieces[0].units, notes = keepEntriesOnce(pieces[0].units)
	}
	body, n := render(pieces, "\n\n")
	add(body, "")
	res := Result{Data: []byte(out.String() + "\n"), Conflicts: conflicts + n}
	for _, n := range notes {
		res.Notes = append(res.Notes, path+": "+n)
	}
	if res.Conflicts > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %d conflict(s) left between markers: edit them, then run tmem doctor", path, res.Conflicts))
	}
	return res
}

// mergeFrontMatter merges the frontmatter fields key by key; ok is false
// when neither side has frontmatter.
func mergeFrontMatter(b, o, t doc) (string, int, bool) {
	if o.fm == nil && t.fm == nil {
		return "", 0, false
	}
	open, close := o.fmOpen, o.fmClose
	if o.fm == nil {
		open, close = t.fmOpen, t.fmClose
	}
	get := func(d doc, key string) (string, bool) {
		for _, u := range d.fm {
			if u.id == key {
				return u.text, true
			}
		}
		return "", false
	}
	keys := fieldOrder(o.fm, t.fm)
	lines := []string{open}
	n := 0
	for _, k := range keys {
		bv, bok := get(b, k)
		ov, ook := get(o, k)
		tv, tok := get(t, k)
		switch {
		case ov == tv && ook == tok, ov == bv && ook == bok:
			if tok {
				lines = append(lines, tv)
			}
		case tv == bv && tok == bok:
			if ook {
				lines = append(lines, ov)
			}
		default:
			n++
			lines = append(lines, "<<<<<<< ours", ov, "=======", tv, ">>>>>>> theirs")
		}
	}
	return strings.Join(append(lines, close), "\n"), n, true
}

// fieldOrder lists the fields of o, then puts each field only t has
// after the field t has before it (first, when none), so that a field a
// person added lands where they put it; fields each side added at one
// place go in name order, whichever side is ours.
func fieldOrder(o, t []unit) []string {
	var keys []string
	at := map[string]int{}
	inT := map[string]bool{}
	for _, u := range t {
		inT[u.id] = true
	}
	for _, u := range o {
		if _, ok := at[u.id]; !ok {
			at[u.id], keys = len(keys), append(keys, u.id)
		}
	}
	prev := ""
	for _, u := range t {
		if _, ok := at[u.id]; !ok {
			i := 0
			if prev != "" {
				i = at[prev] + 1
			}
			for i < len(keys) && !inT[keys[i]] && keys[i] < u.id {
				i++
			}
			keys = append(keys[:i], append([]string{u.id}, keys[i:]...)...)
			for j := i; j < len(keys); j++ {
				at[keys[j]] = j
			}
		}
		prev = u.id
	}
	return keys
}

// mergeLines merges files that do not parse line by line, with a conflict
// wherever both sides changed the same lines.
func mergeLines(path string, base, ours, theirs []byte) Result {
	text, n := render(merge3(splitLines(base), splitLines(ours), splitLines(theirs), false), "\n")
	res := Result{Data: []byte(text + "\n"), Conflicts: n}
	res.Notes = append(res.Notes, fmt.Sprintf("%s: a version does not parse as a memory file, merged line by line", path))
	if n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %d conflict(s) left between markers: edit them, then run tmem doctor", path, n))
	}
	return res
}

var dailyPath = lazyregexp.New(`(^|/)memory/\d{4}-\d{2}-\d{2}\.md$`)

// inTimeOrder puts the stamped units that base does not hold in time
// order within each run of stamped units, so the merged file is the same
// whatever order machines merged in; the units of base, and those a side
// edited, keep their order, which a person may have made other than the
// stamps' (see heldBy and placeNew).
// Units without a stamp stay where they are; output with conflicts is
// left as merged.
func inTimeOrder(pieces []piece, base []unit) []piece {
	var all []unit
	for _, p := range pieces {
		if p.conflict {
			return pieces
		}
		all = append(all, p.units...)
	}
	old := heldBy(base, all)
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].key != "" {
			j++
		}
		copy(all[i:j], placeNew(all[i:j], old))
		i = j + 1
	}
	return []piece{{units: all}}
}

// heldBy returns the ids of all that take the place of a unit of base:
// the units of base, and a unit a side edited (its stamp is that of a unit
// of base that is gone), so that an edit does not move an entry a person
// put out of time order.
func heldBy(base, all []unit) map[string]bool {
	old, in, gone := map[string]bool{}, map[string]bool{}, map[string]int{}
	for _, u := range base {
		old[u.id] = true
	}
	for _, u := range all {
		in[u.id] = true
	}
	for _, u := range base {
		if !in[u.id] && u.key != "" {
			gone[u.key]++
		}
	}
	for _, u := range all {
		if !old[u.id] && gone[u.key] > 0 {
			old[u.id] = true
			gone[u.key]--
		}
	}
	return old
}

// placeNew orders a run of stamped units: those of base (old) as they
// are, and each of the others, by stamp, before the first of base stamped
// later. With base in time order, the run ends in time order.
func placeNew(run []unit, old map[string]bool) []unit {
	var kept, fresh []unit
	for _, u := range run {
		if old[u.id] {
			kept = append(kept, u)
		} else {
			fresh = append(fresh, u)
		}
	}
	sort.SliceStable(fresh, func(x, y int) bool { return fresh[x].key < fresh[y].key })
	out := make([]unit, 0, len(run))
	k := 0
	for _, u := range kept {
		for k < len(fresh) && fresh[k].key < u.key {
			out, k = append(out, fresh[k]), k+1
		}
		out = append(out, u)
	}
	return append(out, fresh[k:]...)
}
