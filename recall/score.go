package recall

import (
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	bindex "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// BM25 parameters (Robertson and Spärck Jones; the usual values).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// termGroup is a set of query terms scored BM25F style over fields that
// share one analysis: per term, the field frequencies are length
// normalised, weighted and summed before they saturate, and idf counts the
// chunks that hold the term in any of the fields. A word found in a
// memory's name, description and text thus counts once, a little more,
// not three times over.
type termGroup struct {
	terms   []string
	fields  []string
	weights []float64 // per field
	boost   float64   // the group's share of the score
}

// Field weights within the words group: a memory's name and description
// say what it is about, a heading what its entry is about.
var wordWeights = []float64{1, 2, 1.5, 1.5} // text, name, description, heading

// Group boosts: an identifier or an exact run of words matched is worth
// about as much again as its words matched one by one; date tokens as
// before.
const (
	identBoost = 2.0
	pairsBoost = 1.0
	whenBoost  = 2.0
)

// maxGroupTerms bounds the distinct terms of each term group of a query,
// as Lucene bounds the clauses of a boolean query (1,024). Each term is
// looked up in every scope and its postings read: the thousands of words
// and ids of a log pasted into a task would cost many times what its
// question does, and rank by the log. The first terms written are kept, as
// a task says what it asks before what it pastes. No query of a few
// hundred words comes near the bound.
const maxGroupTerms = 1024

// queryGroups analyses a query into its term groups; now completes the
// dates it names (see queryWhen).
func queryGroups(text string, now time.Time) ([]termGroup, error) {
	a, err := analyzers()
	if err != nil {
		return nil, err
	}
	ws, ps := wordsAndPairs(a.en, text)
	joined, split := a.compounds(text, maxGroupTerms)
	gs := []termGroup{{terms: firstTerms(append(ws, joined...)), fields: []string{fText, fName, fDesc, fHead}, weights: wordWeights, boost: 1}}
	add := func(ts []string, field string, boost float64) {
		if len(ts) > 0 {
			gs = append(gs, termGroup{terms: firstTerms(ts), fields: []string{field}, weights: []float64{1}, boost: boost})
		}
	}
	add(identTokens(text), fIdent, identBoost)
	add(append(ps, split...), fPairs, pairsBoost)
	if c := cjkOnly(text); c != "" {
		add(terms(a.cjk, c), fCJK, 1)
	}
	add(queryWhen(text, now), fWhen, whenBoost)
	return gs, nil
}

// errNoWords is bm25Search's answer to a query that holds nothing the
// index holds words for: only stop words, punctuation, symbols or emoji.
var errNoWords = errors.New("the query holds no word to search for")

// HasWords reports whether BM25 finds a word in the query text to search
// for; one that holds only stop words, punctuation, symbols or emoji has
// none, and is found by vectors, if at all.
func HasWords(text string, now time.Time) bool {
	gs, err := queryGroups(queryText(text), now)
	return err == nil && hasTerms(gs)
}

func hasTerms(gs []termGroup) bool {
	for _, g := range gs {
		if len(g.terms) > 0 {
			return true
		}
	}
	return false
}

// firstTerms returns the first maxGroupTerms distinct terms of ts.
func firstTerms(ts []string) []string {
	l := newTermList(maxGroupTerms)
	for _, t := range ts {
		if l.full() {
			break
		}
		l.add(t)
	}
	return l.terms
}

func distinct(ts []string) []string {
	seen := map[string]bool{}
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// posting is a chunk's combined, normalised frequency of one term.
type posting struct {
	doc uint64
	tf  float64
}

// scopePostings is one scope's postings: per group, per term, a span of
// buf.
type scopePostings struct {
	s     *scope
	r     bindex.IndexReader
	docs  uint64
	terms [][]postingSpan
	buf   []posting
	kept  docSet // the chunks a filter keeps; nil: every chunk
}

// postingSpan is a run of postings in scopePostings.buf.
type postingSpan struct{ from, to int }

// postings returns the postings of group gi's term ti.
func (sp *scopePostings) postings(gi, ti int) []posting {
	t := sp.terms[gi][ti]
	return sp.buf[t.from:t.to]
}

// release returns the scope's buffer for the next search to use.
func (sp *scopePostings) release() {
	if sp.buf != nil {
		postingsPool.Put(sp.buf[:0])
		sp.buf = nil
	}
}

// Buffers are reused across searches: on a 94k-chunk index a query sums a
// few hundred thousand postings, and making the arrays anew each time
// kept the collector busy for a third of the query.
var postingsPool, accumulatorPool sync.Pool

// bm25Search scores every chunk of the scopes that holds a query term and
// returns the best n, best first. The statistics (chunk count, document
// frequencies, average field lengths) are those of all scopes together,
// so scores compare across them.
func bm25Search(ctx context.Context, scopes []*scope, text string, now time.Time, n int, f *Filter) ([]scored, error) {
	groups, err := queryGroups(text, now)
	if err != nil {
		return nil, err
	}
	if !hasTerms(groups) {
		return nil, errNoWords
	}
	avg := averageLengths(scopes)
	sps := make([]*scopePostings, len(scopes))
	errs := make([]error, len(scopes))
	var wg sync.WaitGroup
	for i, s := range scopes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = guard("search "+s.label(), func() (err error) {
				sps[i], err = readPostings(ctx, s, groups, avg, f)
				return err
			})
		}()
	}
	wg.Wait()
	defer func() {
		for _, sp := range sps {
			if sp != nil {
				sp.release()
			}
		}
	}()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	top := topChunks(sps, groups, n)
	out := make([]scored, 0, len(top))
	err = guard("search", func() error {
		for _, c := range top {
			id, err := sps[c.scope].r.ExternalID(docID(c.doc))
			if err != nil {
				return fmt.Errorf("chunk of %s: %w", sps[c.scope].s.label(), err)
			}
			out = append(out, scored{id, c.score})
		}
		return nil
	})
	return out, err
}

// averageLengths is, per field, the average length of the chunks that
// have it, over all scopes.
func averageLengths(scopes []*scope) map[string]float64 {
	var st fieldStats
	for _, s := range scopes {
		if s.man != nil {
			st.Lens = st.Lens.add(s.man.Stats.Lens)
			st.Has = st.Has.add(s.man.Stats.Has)
		}
	}
	avg := map[string]float64{}
	for i, f := range lenFields {
		avg[f] = 1
		if i < len(st.Has) && st.Has[i] > 0 && st.Lens[i] > 0 {
			avg[f] = float64(st.Lens[i]) / float64(st.Has[i])
		}
	}
	return avg
}

// readPostings reads, for every query term, the chunks of one scope that
// hold it and their combined normalised frequency.
func readPostings(ctx context.Context, s *scope, groups []termGroup, avg map[string]float64, f *Filter) (*scopePostings, error) {
	r := s.rd.IndexReader
	sp := &scopePostings{s: s, r: r}
	if b, ok := postingsPool.Get().([]posting); ok {
		sp.buf = b
	}
	var err error
	if sp.docs, err = r.DocCount(); err != nil {
		return sp, err
	}
	acc := getAccumulator(sp.docs)
	defer putAccumulator(acc)
	segs, err := newSegments(r)
	if err != nil {
		return sp, err
	}
	if f.active() {
		if sp.kept, err = segs.kept(f); err != nil {
			return sp, err
		}
	}
	for _, g := range groups {
		spans := make([]postingSpan, len(g.terms))
		for ti, t := range g.terms {
			if err := ctx.Err(); err != nil {
				return sp, err
			}
			for fi, f := range g.fields {
				if err := segs.addPostings(t, f, g.weights[fi], avg[f], acc); err != nil {
					return sp, err
				}
			}
			from := len(sp.buf)
			sp.buf = acc.drain(sp.buf)
			spans[ti] = postingSpan{from, len(sp.buf)}
		}
		sp.terms = append(sp.terms, spans)
	}
	return sp, nil
}

// accumulator sums a value per chunk number in a dense array (a map costs
// more than reading the postings) and remembers which chunks it touched.
// Drained, it is all zeros again.
type accumulator struct {
	sums    []float64
	touched []uint64
}

// getAccumulator returns an empty accumulator sized for docs chunks (and
// some growth: a posting beyond it grows the array).
func getAccumulator(docs uint64) *accumulator {
	n := int(docs + docs/8 + 1)
	if a, ok := accumulatorPool.Get().(*accumulator); ok && len(a.sums) >= n {
		return a
	}
	return &accumulator{sums: make([]float64, n)}
}

// putAccumulator empties a and keeps it for the next search.
func putAccumulator(a *accumulator) {
	for _, d := range a.touched {
		a.sums[d] = 0
	}
	a.touched = a.touched[:0]
	accumulatorPool.Put(a)
}

func (a *accumulator) add(doc uint64, v float64) {
	if doc >= uint64(len(a.sums)) {
		a.sums = append(a.sums, make([]float64, int(doc)+1-len(a.sums)+len(a.sums)/2)...)
	}
	if a.sums[doc] == 0 {
		a.touched = append(a.touched, doc)
	}
	a.sums[doc] += v
}

// drain appends the sums to out and starts afresh.
func (a *accumulator) drain(out []posting) []posting {
	for _, d := range a.touched {
		out = append(out, posting{d, a.sums[d]})
		a.sums[d] = 0
	}
	a.touched = a.touched[:0]
	return out
}

// segments reads postings straight from the segments of a bleve
// snapshot, numbering chunks as the snapshot does (a segment's chunks
// follow those of the segments before it). Going through the snapshot's
// term readers instead cost a third more per posting.
type segments struct {
	segs    []*scorch.SegmentSnapshot
	offsets []uint64
	size    uint64                              // chunk numbers in all, deleted ones too
	dicts   map[string][]segment.TermDictionary // per field, per segment
	pl      segment.PostingsList
	it      segment.PostingsIterator
}

func newSegments(r bindex.IndexReader) (*segments, error) {
	is, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("index reader is a %T, not a scorch snapshot", r)
	}
	s := &segments{segs: is.Segments(), dicts: map[string][]segment.TermDictionary{}}
	var off uint64
	for _, seg := range s.segs {
		s.offsets = append(s.offsets, off)
		off += seg.Segment().Count()
	}
	s.size = off
	return s, nil
}

// addPostings adds to acc, per chunk, the term's frequency in the field,
// weighted and normalised by the field's length against the average:
// w·tf / (1 − b + b·len/avg). bleve keeps a field's length in each
// posting as its norm, 1/√len. Deleted chunks are skipped.
func (s *segments) addPostings(term, field string, w, avg float64, acc *accumulator) error {
	dicts, err := s.dictionaries(field)
	if err != nil {
		return err
	}
	for i, d := range dicts {
		if s.pl, err = d.PostingsList([]byte(term), s.segs[i].Deleted(), s.pl); err != nil {
			return err
		}
		s.it = s.pl.Iterator(true, true, false, s.it)
		for {
			p, err := s.it.Next()
			if err != nil {
				return err
			}
			if p == nil {
				break
			}
			length := 1.0
			if n := p.Norm(); n > 0 {
				length = math.Round(1 / (n * n))
			}
			acc.add(s.offsets[i]+p.Number(), w*float64(p.Frequency())/(1-bm25B+bm25B*length/avg))
		}
	}
	return nil
}

// dictionaries returns a field's term dictionary in every segment.
func (s *segments) dictionaries(field string) ([]segment.TermDictionary, error) {
	if ds, ok := s.dicts[field]; ok {
		return ds, nil
	}
	ds := make([]segment.TermDictionary, len(s.segs))
	for i, seg := range s.segs {
		d, err := seg.Segment().Dictionary(field)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", field, err)
		}
		ds[i] = d
	}
	s.dicts[field] = ds
	return ds, nil
}

// docID is the internal ID of a chunk numbered doc.
func docID(doc uint64) bindex.IndexInternalID {
	return binary.BigEndian.AppendUint64(nil, doc)
}

// idf is BM25's inverse document frequency of a term found in df of n
// chunks: ln(1 + (n − df + 0.5)/(df + 0.5)), never negative.
func idf(n, df uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// saturate is BM25's term frequency part: tf·(k1+1)/(tf+k1), tf already
// length normalised.
func saturate(tf float64) float64 {
	return tf * (bm25K1 + 1) / (tf + bm25K1)
}

// scoredDoc is a chunk by scope and internal number.
type scoredDoc struct {
	scope int
	doc   uint64
	score float64
}

// topChunks sums the groups' BM25 scores per chunk and keeps the best n.
func topChunks(sps []*scopePostings, groups []termGroup, n int) []scoredDoc {
	var total uint64
	for _, sp := range sps {
		total += sp.docs
	}
	scores := make([]*accumulator, len(sps))
	for si, sp := range sps {
		scores[si] = getAccumulator(sp.docs)
		defer putAccumulator(scores[si])
	}
	for gi, g := range groups {
		for ti := range g.terms {
			var df uint64
			for _, sp := range sps {
				df += uint64(len(sp.postings(gi, ti)))
			}
			w := g.boost * idf(total, df)
			for si, sp := range sps {
				for _, p := range sp.postings(gi, ti) {
					scores[si].add(p.doc, w*saturate(p.tf))
				}
			}
		}
	}
	h := &docHeap{}
	for si, a := range scores {
		for _, doc := range a.touched {
			if kept := sps[si].kept; kept != nil && !kept.has(doc) {
				continue
			}
			c := scoredDoc{si, doc, a.sums[doc]}
			if h.Len() < n {
				heap.Push(h, c)
			} else if better(c, (*h)[0]) {
				(*h)[0] = c
				heap.Fix(h, 0)
			}
		}
	}
	out := make([]scoredDoc, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(scoredDoc)
	}
	return out
}

// better orders chunks by score, then by scope and number, so that equal
// scores come out the same way every time.
func better(a, b scoredDoc) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.scope != b.scope {
		return a.scope < b.scope
	}
	return a.doc < b.doc
}

// docHeap is a min-heap: its root is the worst of the best n so far.
type docHeap []scoredDoc

func (h docHeap) Len() int            { return len(h) }
func (h docHeap) Less(i, j int) bool  { return better(h[j], h[i]) }
func (h docHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i] }
func (h *docHeap) Push(x interface{}) { *h = append(*h, x.(scoredDoc)) }
func (h *docHeap) Pop() interface{} {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
