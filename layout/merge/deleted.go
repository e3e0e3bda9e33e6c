package merge

import (
	"fmt"
	pathpkg "path"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// Deleted settles a daily log that one side deleted (compaction folded it
// into a summary and the archive) while the other side, kept, appended to
// it: the result is the daily's stub (layout.DailyStub; archived says
// whether compaction archives) with only the entries kept added since
// base, for the next compaction to fold in next to what the summary holds
// already. n is how many; with none the deletion stands (data is nil).
func Deleted(path string, base, kept []byte, archived bool) (data []byte, n int, err error) {
	b, okb := splitDoc(path, base)
	k, okk := splitDoc(path, kept)
	if !okb || !okk {
		return nil, 0, fmt.Errorf("merge %s: a version does not parse as a daily log, settle it by hand", path)
	}
	units := withPreamble(b, k, newSince(b, k))
	if len(units) == 0 {
		return nil, 0, nil
	}
	pre := k.preamble
	if day, err := time.Parse(layout.DateLayout+".md", pathpkg.Base(path)); err == nil && !layout.HasStub([]byte(pre)) {
		pre = strings.TrimSuffix(string(layout.DailyStub(day, archived)), "\n")
	}
	return renderDaily(pre, units), len(units), nil
}

// mergeCompacted merges a daily log that compaction replaced by its stub
// (layout.DailyStub) on one side or both, since base: the result is the
// stub with every entry either side added since base, in time order, for
// the next compaction to fold in; what base held is in the archive and
// the summary already. ok is false when a version does not parse.
func mergeCompacted(path string, base, ours, theirs []byte) (Result, bool) {
	b, okb := splitDoc(path, base)
	o, oko := splitDoc(path, ours)
	t, okt := splitDoc(path, theirs)
	if !okb || !oko || !okt {
		return Result{}, false
	}
	stubbed, other := o, t
	switch os, ts := layout.HasStub(ours), layout.HasStub(theirs); {
	case os && ts && t.preamble < o.preamble, !os:
		stubbed, other = t, o
	}
	had := newSince(b, stubbed)
	late := newSince(b, other)
	units := withPreamble(b, other, inTimeOrder([]piece{{units: interleave(had, late)}}, nil)[0].units)
	res := Result{Data: renderDaily(stubbed.preamble, units)}
	if n := len(units) - len(had); n > 0 && !(layout.HasStub(ours) && layout.HasStub(theirs)) {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: compaction summarised it on one side while %d entr%s appended on the other; kept them in the daily for the next compaction to fold in", path, n, plural(n)))
	}
	return res, true
}

// newSince returns the units of side that base does not hold.
func newSince(base, side doc) []unit {
	old := map[string]bool{}
	for _, u := range base.units {
		old[u.id] = true
	}
	var out []unit
	for _, u := range side.units {
		if !old[u.id] {
			out = append(out, u)
		}
	}
	return out
}

// withPreamble puts before units, as a unit of its own, the lines side
// wrote under the daily's title since base (a note before the first
// entry), if any: the stub replaces the title's block, and they would go
// with it.
func withPreamble(base, side doc, units []unit) []unit {
	if side.preamble == base.preamble || layout.HasStub([]byte(side.preamble)) {
		return units
	}
	old := setOf(strings.Split(base.preamble, "\n"))
	var added []string
	for _, l := range strings.Split(side.preamble, "\n") {
		if !old[l] || strings.TrimSpace(l) == "" {
			added = append(added, l)
		}
	}
	if text := trimBlank(added); text != "" {
		return append([]unit{{id: text, text: text}}, units...)
	}
	return units
}

// renderDaily joins a daily's preamble and units.
func renderDaily(preamble string, units []unit) []byte {
	parts := []string{}
	if preamble != "" {
		parts = append(parts, preamble)
	}
	for _, u := range units {
		parts = append(parts, u.text)
	}
	return []byte(strings.Join(parts, "\n\n") + "\n")
}
