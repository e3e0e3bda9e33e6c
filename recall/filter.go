package recall

import (
	"fmt"
	"slices"
	"strings"
	"time"

	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/tmemhq/tmem/layout"
)

// Filter narrows a search to chunks of some kinds, or of some days. BM25
// applies it to every chunk before it keeps the best: a filtered search
// finds the best matches of the kinds and days asked for, however many
// better ones of others there are. The vector list is filtered from its
// filterVectorRows nearest chunks.
type Filter struct {
	Kinds []string // Hit.Kind values kept; empty keeps every kind
	// Since and Until are days (YYYY-MM-DD); either may be empty. A chunk
	// passes when the days it speaks for meet Since..Until: a daily's day,
	// a weekly summary's seven days, a monthly's weeks, the date of any
	// other chunk. With either set, undated chunks do not pass.
	Since, Until string
}

// HitKinds are the kinds a hit can have (Hit.Kind).
var HitKinds = []string{"typed", "weekly", "monthly", "daily", "wisdom", "crossteam", "archive"}

// filterVectorRows is how many nearest chunks the vector list of a
// filtered search is taken from.
const filterVectorRows = 1000

func (f *Filter) active() bool {
	return f != nil && (len(f.Kinds) > 0 || f.Since != "" || f.Until != "")
}

// Check refuses a filter that cannot be applied: a kind no hit has, a
// day that is not YYYY-MM-DD, or Since after Until.
func (f *Filter) Check() error {
	if f == nil {
		return nil
	}
	for _, k := range f.Kinds {
		if !slices.Contains(HitKinds, k) {
			return fmt.Errorf("kind %q is not a kind; want %s", k, strings.Join(HitKinds, ", "))
		}
	}
	for _, d := range []struct{ name, v string }{{"since", f.Since}, {"until", f.Until}} {
		if _, err := time.Parse(layout.DateLayout, d.v); d.v != "" && err != nil {
			return fmt.Errorf("%s %q: want a day as YYYY-MM-DD", d.name, d.v)
		}
	}
	if f.Since != "" && f.Until != "" && f.Since > f.Until {
		return fmt.Errorf("since %s is after until %s: no day is in between", f.Since, f.Until)
	}
	return nil
}

// chunkDays is the first and last day chunk c speaks for (see Filter),
// both "" when it has no date.
func chunkDays(c Chunk) (from, to string) {
	if f, t, ok := logDays(c); ok {
		return f.Format(layout.DateLayout), t.Format(layout.DateLayout)
	}
	return c.Date, c.Date
}

// keeps reports whether c passes f; a nil filter keeps every chunk.
func (f *Filter) keeps(c Chunk) bool {
	if !f.active() {
		return true
	}
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, c.Kind) {
		return false
	}
	if f.Since == "" && f.Until == "" {
		return true
	}
	from, to := chunkDays(c)
	return from != "" && (f.Since == "" || to >= f.Since) && (f.Until == "" || from <= f.Until)
}

// docSet is the chunk numbers of one scope's index a filter keeps.
type docSet []uint64

func (d docSet) has(doc uint64) bool {
	return doc/64 < uint64(len(d)) && d[doc/64]&(1<<(doc%64)) != 0
}

// kept returns the chunks of the segments that f keeps, from the kind and
// day fields the index holds for filtering (fKind, fFrom, fTo): those of
// the kinds asked for, ending on or after Since, starting on or before
// Until. Deleted chunks are left out.
func (s *segments) kept(f *Filter) (docSet, error) {
	var sets []docSet
	add := func(field string, terms []string, from, to string) error {
		d, err := s.termsDocs(field, terms, from, to)
		sets = append(sets, d)
		return err
	}
	var err error
	if len(f.Kinds) > 0 {
		err = add(fKind, f.Kinds, "", "")
	}
	if err == nil && f.Since != "" {
		err = add(fTo, nil, f.Since, "")
	}
	if err == nil && f.Until != "" {
		err = add(fFrom, nil, "", f.Until+"\x00")
	}
	if err != nil {
		return nil, err
	}
	out := sets[0]
	for _, d := range sets[1:] {
		for i := range out {
			out[i] &= d[i]
		}
	}
	return out, nil
}

// termsDocs returns the chunks that hold, in field, one of terms, or
// (terms nil) a term from..to (to excluded; "" leaves that end open).
func (s *segments) termsDocs(field string, terms []string, from, to string) (docSet, error) {
	out := make(docSet, (s.size+63)/64)
	dicts, err := s.dictionaries(field)
	if err != nil {
		return nil, err
	}
	for i, d := range dicts {
		ts := terms
		if ts == nil {
			if ts, err = termRange(d, from, to); err != nil {
				return nil, err
			}
		}
		for _, t := range ts {
			if err := s.eachPosting(i, d, t, func(doc uint64) { out[doc/64] |= 1 << (doc % 64) }); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// termRange lists a term dictionary's terms from..to (to excluded; ""
// leaves that end open).
func termRange(d segment.TermDictionary, from, to string) ([]string, error) {
	var lo, hi []byte
	if from != "" {
		lo = []byte(from)
	}
	if to != "" {
		hi = []byte(to)
	}
	var out []string
	it := d.AutomatonIterator(nil, lo, hi)
	for {
		e, err := it.Next()
		if err != nil || e == nil {
			return out, err
		}
		out = append(out, e.Term)
	}
}

// eachPosting calls fn with the number of every chunk segment i (whose
// dictionary is d) holds term in, deleted chunks left out.
func (s *segments) eachPosting(i int, d segment.TermDictionary, term string, fn func(doc uint64)) error {
	var err error
	if s.pl, err = d.PostingsList([]byte(term), s.segs[i].Deleted(), s.pl); err != nil {
		return err
	}
	s.it = s.pl.Iterator(false, false, false, s.it)
	for {
		p, err := s.it.Next()
		if err != nil || p == nil {
			return err
		}
		fn(s.offsets[i] + p.Number())
	}
}
