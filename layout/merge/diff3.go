package merge

import (
	"sort"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// unit is one piece of a file that a merge keeps or drops whole.
type unit struct {
	id   string // identity: units with equal ids are the same unit
	key  string // orders units both sides added at one place
	text string // the unit's text, without trailing blank lines
	// sep is what separated the unit from the next in its version (a
	// line break and the blank lines after it), kept when it is followed
	// by another; "" when it was last.
	sep string
	// arch is set on an archive section (see keepEntriesOnce).
	arch *archived
}

// archived is an archive section and the units of the copy it holds (nil
// when the copy does not parse).
type archived struct {
	sec   layout.ArchiveSection
	parts []string
}

// piece is a stretch of merged output: units, or a conflict between two
// versions of the same stretch.
type piece struct {
	units          []unit
	conflict       bool
	ours, theirs   []unit
	keptFromTheirs int
}

// merge3 merges the unit sequences three ways. Stretches unchanged on both
// sides anchor the merge; between anchors a stretch changed on one side
// takes that side, and one changed on both is a conflict, unless union is
// set and the change is adding units, which are then all kept, once.
func merge3(base, ours, theirs []unit, union bool) []piece {
	mo, mt := match(base, ours), match(base, theirs)
	var out []piece
	seen := map[string]bool{}
	i, a, b := 0, 0, 0
	for {
		k := i
		for k < len(base) && (mo[k] < 0 || mt[k] < 0) {
			k++
		}
		oe, te := len(ours), len(theirs)
		if k < len(base) {
			oe, te = mo[k], mt[k]
		}
		out = append(out, chunk(base[i:k], ours[a:oe], theirs[b:te], union, seen))
		if k == len(base) {
			return out
		}
		out = append(out, anchor(base[k], ours[oe], theirs[te]))
		seen[ours[oe].id] = true
		i, a, b = k+1, oe+1, te+1
	}
}

// anchor merges a unit all three hold (by id: an archive section, whose
// text can change under the same source and hash): the version a side
// changed; of two changes, the first in order when they differ only in
// the day the section was archived (a file archived again on another
// day), else a conflict (hand edits to the section on both sides).
func anchor(b, o, t unit) piece {
	keep := func(u unit) piece { return piece{units: []unit{u}} }
	switch {
	case o.text == b.text:
		return keep(t)
	case t.text == b.text:
		return keep(o)
	case o.arch == nil || t.arch == nil || o.arch.sec.Text != t.arch.sec.Text:
		return piece{conflict: true, ours: []unit{o}, theirs: []unit{t}}
	case first(o, t):
		return keep(o)
	}
	return keep(t)
}

// chunk merges one stretch between anchors.
func chunk(b, o, t []unit, union bool, seen map[string]bool) piece {
	var p piece
	switch {
	case same(o, b):
		p.units, p.keptFromTheirs = t, len(t)
	case same(t, b), same(o, t):
		p.units = o
	case union && len(b) == 0:
		p.units = interleave(o, t)
	case union && added(b, t) != nil:
		p.units = append(append([]unit{}, o...), added(b, t)...)
	case union && added(b, o) != nil:
		p.units = append(append([]unit{}, t...), added(b, o)...)
	default:
		var ok bool
		if union {
			p.units, ok = apart(b, o, t)
		}
		if !ok {
			return piece{conflict: true, ours: o, theirs: t}
		}
	}
	var kept []unit
	at := map[string]int{}
	for _, u := range p.units {
		if union && seen[u.id] {
			if i, ok := at[u.id]; ok && first(u, kept[i]) {
				kept[i] = u
			}
			continue
		}
		seen[u.id], at[u.id] = true, len(kept)
		kept = append(kept, u)
	}
	p.units = kept
	return p
}

// hunk is one side's change to base: units from to to (an insertion when
// equal) replaced by units.
type hunk struct {
	from, to int
	units    []unit
}

// hunks returns side's changes to base, in order.
func hunks(base, side []unit) []hunk {
	m := match(base, side)
	var out []hunk
	i, j := 0, 0
	for {
		k := i
		for k < len(base) && m[k] < 0 {
			k++
		}
		end := len(side)
		if k < len(base) {
			end = m[k]
		}
		if k > i || end > j {
			out = append(out, hunk{from: i, to: k, units: side[j:end]})
		}
		if k == len(base) {
			return out
		}
		i, j = k+1, m[k]+1
	}
}

// apart merges a stretch both sides changed when their changes touch
// different units of base (an edit to one entry on each side, the entries
// next to each other): each side's change is applied where it is. ok is
// false when two changes overlap, or both insert at one place.
func apart(b, o, t []unit) ([]unit, bool) {
	hs := append(hunks(b, o), hunks(b, t)...)
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].from != hs[j].from {
			return hs[i].from < hs[j].from
		}
		return hs[i].to < hs[j].to // an insertion before a change starting there
	})
	var out []unit
	at := 0
	for i, h := range hs {
		if i > 0 && (h.from < hs[i-1].to || h.from == hs[i-1].from && h.to == hs[i-1].to) {
			return nil, false
		}
		out = append(append(out, b[at:h.from]...), h.units...)
		at = h.to
	}
	return append(out, b[at:]...), true
}

// added returns the units side adds to b when it keeps all of b, in order,
// and adds units only after it; nil otherwise.
func added(b, side []unit) []unit {
	if len(side) <= len(b) || !same(side[:len(b)], b) {
		return nil
	}
	return side[len(b):]
}

// interleave merges two runs of added units by key, keeping each run's
// own order, and drops units of t that o holds too. Of two units with one
// id and different text (two machines archived the same file on different
// days), the first in order is kept, whichever side it came from.
func interleave(o, t []unit) []unit {
	in := map[string]int{}
	for i, u := range o {
		in[u.id] = i
	}
	o = append([]unit(nil), o...)
	var rest []unit
	for _, u := range t {
		i, ok := in[u.id]
		switch {
		case !ok:
			rest = append(rest, u)
		case first(u, o[i]):
			o[i] = u
		}
	}
	out := make([]unit, 0, len(o)+len(rest))
	i, j := 0, 0
	for i < len(o) || j < len(rest) {
		if j == len(rest) || (i < len(o) && order(o[i]) <= order(rest[j])) {
			out = append(out, o[i])
			i++
		} else {
			out = append(out, rest[j])
			j++
		}
	}
	return out
}

func order(u unit) string { return u.key + "\x00" + u.id }

// first reports whether u goes before v of the same id: by order, then text.
func first(u, v unit) bool { return order(u)+"\x00"+u.text < order(v)+"\x00"+v.text }

func same(x, y []unit) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].id != y[i].id {
			return false
		}
	}
	return true
}

// maxCells bounds the LCS table; larger inputs match only their common
// prefix and suffix.
const maxCells = 16 << 20

// match returns, for each unit of base, the index of the unit of side it
// is matched with by a longest common subsequence, or -1.
func match(base, side []unit) []int {
	m := make([]int, len(base))
	for i := range m {
		m[i] = -1
	}
	pre := 0
	for pre < len(base) && pre < len(side) && base[pre].id == side[pre].id {
		m[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(base)-pre && suf < len(side)-pre && base[len(base)-1-suf].id == side[len(side)-1-suf].id {
		m[len(base)-1-suf] = len(side) - 1 - suf
		suf++
	}
	bs, ss := base[pre:len(base)-suf], side[pre:len(side)-suf]
	if len(bs)*len(ss) > maxCells {
		return m
	}
	n, w := len(bs), len(ss)
	dp := make([]int32, (n+1)*(w+1))
	for i := n - 1; i >= 0; i-- {
		for j := w - 1; j >= 0; j-- {
			c := i*(w+1) + j
			switch {
			case bs[i].id == ss[j].id:
				dp[c] = dp[c+w+2] + 1
			case dp[c+w+1] >= dp[c+1]:
				dp[c] = dp[c+w+1]
			default:
				dp[c] = dp[c+1]
			}
		}
	}
	for i, j := 0, 0; i < n && j < w; {
		c := i*(w+1) + j
		switch {
		case bs[i].id == ss[j].id:
			m[pre+i] = pre + j
			i++
			j++
		case dp[c+w+1] >= dp[c+1]:
			i++
		default:
			j++
		}
	}
	return m
}

// render joins the pieces, each unit followed by what followed it in its
// version, or by sep; conflicts get git's markers. It returns the text
// and the number of conflicts.
func render(pieces []piece, sep string) (string, int) {
	var b strings.Builder
	n := 0
	after := "" // what goes before the next part
	join := func(us []unit) string {
		var j strings.Builder
		for i, u := range us {
			if i > 0 {
				j.WriteString(sepOr(us[i-1].sep, sep))
			}
			j.WriteString(u.text)
		}
		return j.String()
	}
	for _, p := range pieces {
		switch {
		case !p.conflict && len(p.units) == 0:
			continue
		case !p.conflict:
			b.WriteString(after + join(p.units))
			after = sepOr(p.units[len(p.units)-1].sep, sep)
			continue
		}
		n++
		b.WriteString(after + "<<<<<<< ours\n")
		if len(p.ours) > 0 {
			b.WriteString(join(p.ours) + "\n")
		}
		b.WriteString("=======\n")
		if len(p.theirs) > 0 {
			b.WriteString(join(p.theirs) + "\n")
		}
		b.WriteString(">>>>>>> theirs")
		after = sep
	}
	return b.String(), n
}

// sepOr is sep, or def when sep is "".
func sepOr(sep, def string) string {
	if sep == "" {
		return def
	}
	return sep
}
