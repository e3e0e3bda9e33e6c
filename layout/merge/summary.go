package merge

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/tmemhq/tmem/internal/lazyregexp"

	"github.com/tmemhq/tmem/layout"
)

var summaryPath = lazyregexp.New(`(^|/)memory/(weekly|monthly)/[^/]+\.md$`)

// mergeSummaries merges two versions of a weekly or monthly summary that
// both changed it: two machines that compacted the same week. A summary
// is made from its sources, so when every line of one version's body is
// in the other's, the fuller one is kept; otherwise the bodies are merged
// section by section (see unionBodies). Either way the result has the
// sources of both and the period that covers both, and depends on the
// versions' content only, never on which side is ours. ok is false when
// a version does not parse or its body is not made of sections and
// items (the merge then goes by unit and may conflict).
func mergeSummaries(path string, base, ours, theirs []byte) (Result, bool) {
	o, erro := layout.Parse(path, ours)
	t, errt := layout.Parse(path, theirs)
	if erro != nil || errt != nil || !o.HasMeta || !t.HasMeta {
		return Result{}, false
	}
	if bytes.Compare(theirs, ours) < 0 {
		o, t = t, o
	}
	var bb []byte
	if b, err := layout.Parse(path, base); err == nil {
		bb = b.Body
	}
	lb, lo, lt := bodyLines(bb), bodyLines(o.Body), bodyLines(t.Body)
	keep, other := o, t
	note := "kept the fuller summary"
	switch {
	case lo.holds(lt) && !lo.restores(lb, lt):
	case lt.holds(lo) && !lt.restores(lb, lo):
		keep, other = t, o
	default:
		body, ok := unionBodies(bb, o.Body, t.Body)
		if !ok {
			return Result{}, false
		}
		keep.Body, note = body, "merged the entries of both"
	}
	if err := widenSummary(keep, other); err != nil {
		return Result{}, false
	}
	data, n, ok := withFields(path, base, ours, theirs, keep)
	if !ok {
		return Result{}, false
	}
	res := Result{Data: data, Conflicts: n, Notes: []string{fmt.Sprintf("%s: both sides summarised it; %s, with the sources of both", path, note)}}
	if n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %d conflict(s) left between markers: edit them, then run tmem doctor", path, n))
	}
	return res, true
}

// withFields is keep's body under the frontmatter of the three versions
// merged field by field (a field a person added, changed or removed on
// one side since base stays so; changed on both, a conflict), with the
// sources and period keep has, which cover both sides. ok is false when
// a version does not split.
func withFields(path string, base, ours, theirs []byte, keep *layout.Doc) ([]byte, int, bool) {
	k, okk := splitDoc(path, keep.Bytes())
	b, _ := splitDoc(path, base)
	o, oko := splitDoc(path, ours)
	t, okt := splitDoc(path, theirs)
	if !okk || !oko || !okt || k.fm == nil {
		return nil, 0, false
	}
	for _, d := range []*doc{&b, &o, &t} {
		d.fm = fieldsFrom(d.fm, k.fm, "sources", "period")
	}
	fm, n, _ := mergeFrontMatter(b, o, t)
	return []byte(fm + "\n" + string(keep.Body)), n, true
}

// fieldsFrom is fm with the fields named keys as from has them.
func fieldsFrom(fm, from []unit, keys ...string) []unit {
	out := append([]unit(nil), fm...)
	for _, key := range keys {
		for _, f := range from {
			if f.id != key {
				continue
			}
			for i := range out {
				if out[i].id == key {
					out[i].text = f.text
				}
			}
		}
	}
	return out
}

// widenSummary adds to keep the sources of other it lacks and widens its
// period to cover other's.
func widenSummary(keep, other *layout.Doc) error {
	srcs := keep.List("sources")
	has := map[string]bool{}
	for _, s := range srcs {
		has[s] = true
	}
	n := len(srcs)
	for _, s := range other.List("sources") {
		if !has[s] {
			srcs, has[s] = append(srcs, s), true
		}
	}
	if len(srcs) > n {
		// by file, as compaction lists them, then by hash: the same list
		// whichever side added what
		sort.SliceStable(srcs, func(i, j int) bool {
			fi, fj := strings.Fields(srcs[i]+" "), strings.Fields(srcs[j]+" ")
			if fi[0] != fj[0] {
				return fi[0] < fj[0]
			}
			return srcs[i] < srcs[j]
		})
		if err := keep.Set("sources", srcs); err != nil {
			return err
		}
	}
	kf, kt, err1 := layout.ParsePeriod(keep.Get("period"))
	of, ot, err2 := layout.ParsePeriod(other.Get("period"))
	if err1 != nil || err2 != nil || (!of.Before(kf) && !ot.After(kt)) {
		return nil
	}
	if of.Before(kf) {
		kf = of
	}
	if ot.After(kt) {
		kt = ot
	}
	return keep.Set("period", layout.Period(kf, kt))
}

// lineSet is a set of strings: a body's lines, a file's units.
type lineSet map[string]bool

func setOf(xs []string) lineSet {
	s := lineSet{}
	for _, x := range xs {
		s[x] = true
	}
	return s
}

// bodyLines is the set of a body's non-blank lines.
func bodyLines(body []byte) lineSet {
	var ls []string
	for _, l := range strings.Split(string(body), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return setOf(ls)
}

// restores reports whether s holds a string of base that other lacks: one
// other removed, which keeping s would bring back.
func (s lineSet) restores(base, other lineSet) bool {
	for l := range base {
		if !other[l] && s[l] {
			return true
		}
	}
	return false
}

// holds reports whether every string of x is in s.
func (s lineSet) holds(x lineSet) bool {
	for l := range x {
		if !s[l] {
			return false
		}
	}
	return true
}

// unionBodies merges two summary bodies that each hold lines the other
// lacks: its "##" sections (a day, a week) are matched by heading and put
// in heading order, which is date order; within a section, items (a
// bullet with its sub-items, a paragraph, a "Log:" line) are kept once,
// those only one side has in the order of their text between the items
// both have, and those a side removed since base dropped. The result is
// the same whichever side is ours. ok is false when a body does not
// render back from its sections and items.
func unionBodies(base, ours, theirs []byte) ([]byte, bool) {
	b, _ := splitSummary(base)
	o, oko := splitSummary(ours)
	t, okt := splitSummary(theirs)
	if !oko || !okt {
		return nil, false
	}
	secs := unionUnits(b.sections, o.sections, t.sections)
	parts := make([]string, len(secs))
	for i, s := range secs {
		parts[i] = renderSection(s.id, unionUnits(b.items[s.id], o.items[s.id], t.items[s.id]))
	}
	return []byte("\n" + strings.Join(parts, "\n\n") + "\n"), true
}

// summaryBody is a summary's body split for merging: its sections (id =
// heading line; "" for the text before the first heading, the title) and
// each one's items.
type summaryBody struct {
	sections []unit
	items    map[string][]unit
}

// splitSummary splits a summary's body; ok is false when it does not
// render back from its parts (a code block, a table), or repeats a
// heading.
func splitSummary(body []byte) (summaryBody, bool) {
	sb := summaryBody{items: map[string][]unit{}}
	cur := ""
	want := strings.TrimSpace(string(body))
	for _, l := range strings.Split(want, "\n") {
		switch {
		case strings.HasPrefix(l, "## "):
			if _, dup := sb.items[l]; dup {
				return summaryBody{}, false
			}
			cur = l
			sb.sections = append(sb.sections, unit{id: l, key: l})
			sb.items[l] = nil
		case strings.TrimSpace(l) == "":
		case l[0] == ' ' || l[0] == '\t':
			its := sb.items[cur]
			if len(its) == 0 {
				return summaryBody{}, false
			}
			its[len(its)-1].id += "\n" + l
			its[len(its)-1].text = its[len(its)-1].id
		default:
			if _, ok := sb.items[cur]; !ok {
				sb.sections = append(sb.sections, unit{})
			}
			sb.items[cur] = append(sb.items[cur], unit{id: l, text: l})
		}
	}
	again := make([]string, len(sb.sections))
	for i, s := range sb.sections {
		again[i] = renderSection(s.id, sb.items[s.id])
	}
	return sb, strings.Join(again, "\n\n") == want
}

// renderSection writes a section: its heading, then its items, list
// items on consecutive lines and anything else apart.
func renderSection(heading string, items []unit) string {
	var b strings.Builder
	b.WriteString(heading)
	for i, it := range items {
		switch {
		case i > 0 && listItem(it.text) && listItem(items[i-1].text):
			b.WriteString("\n")
		case i > 0 || heading != "":
			b.WriteString("\n\n")
		}
		b.WriteString(it.text)
	}
	return b.String()
}

func listItem(s string) bool { return strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") }

// unionUnits keeps every unit of o and t once, but those of base that a
// side removed: the units both hold anchor the result, and between two
// anchors the units only one side holds are merged by key and text.
func unionUnits(base, o, t []unit) []unit {
	in := func(us []unit) map[string]bool {
		m := map[string]bool{}
		for _, u := range us {
			m[u.id] = true
		}
		return m
	}
	io, it := in(o), in(t)
	gone := map[string]bool{}
	for _, u := range base {
		if !io[u.id] || !it[u.id] {
			gone[u.id] = true
		}
	}
	keep := func(us []unit) []unit {
		var out []unit
		for _, u := range us {
			if !gone[u.id] {
				out = append(out, u)
			}
		}
		return out
	}
	o, t = keep(o), keep(t)
	m := match(o, t)
	var out, run []unit
	j := 0
	for i, u := range o {
		if m[i] < 0 {
			run = append(run, u)
			continue
		}
		out = append(append(out, interleave(run, t[j:m[i]])...), u)
		run, j = nil, m[i]+1
	}
	return append(out, interleave(run, t[j:])...)
}
