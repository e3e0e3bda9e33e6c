package merge

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

var summaryPath = regexp.MustCompile(`(^|/)memory/(weekly|monthly)/[^/]+\.md$`)

// mergeSummaries merges two versions of a weekly or monthly summary that
// both changed it: two machines that compacted the same week. A summary
// is made from its sources, so when every line of one version's body is
// in the other's, the fuller one is kept, with the sources of both and
// the period that covers both; ok is false otherwise (the merge then goes
// by unit and may conflict). Which version is kept depends on their
// content only, never on which side is ours.
func mergeSummaries(path string, ours, theirs []byte) (Result, bool) {
	o, erro := layout.Parse(path, ours)
	t, errt := layout.Parse(path, theirs)
	if erro != nil || errt != nil || !o.HasMeta || !t.HasMeta {
		return Result{}, false
	}
	lo, lt := bodyLines(o.Body), bodyLines(t.Body)
	keep, other := o, t
	switch {
	case lo.holds(lt) && lt.holds(lo):
		if bytes.Compare(theirs, ours) < 0 {
			keep, other = t, o
		}
	case lo.holds(lt):
	case lt.holds(lo):
		keep, other = t, o
	default:
		return Result{}, false
	}
	if err := widenSummary(keep, other); err != nil {
		return Result{}, false
	}
	note := fmt.Sprintf("%s: both sides summarised it; kept the fuller summary, with the sources of both", path)
	return Result{Data: keep.Bytes(), Notes: []string{note}}, true
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

// holds reports whether every string of x is in s.
func (s lineSet) holds(x lineSet) bool {
	for l := range x {
		if !s[l] {
			return false
		}
	}
	return true
}
