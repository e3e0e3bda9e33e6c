package recall

import (
	"hash/maphash"
	"sort"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// Fusion names how BM25 and vector results are combined.
type Fusion string

// The fusion methods.
const (
	// FusionRRF sums 1/(RRFK+rank) over the lists a chunk appears in.
	FusionRRF Fusion = "rrf"
	// FusionWeighted sums each list's score divided by that list's best
	// score, weighted by VectorWeight and 1-VectorWeight.
	FusionWeighted Fusion = "weighted"
)

// Ranking tunes how results are fused and ordered. See DefaultRanking for
// the defaults and the package README for how they were measured.
type Ranking struct {
	Fusion       Fusion
	RRFK         float64 // RRF's rank offset
	VectorWeight float64 // weighted fusion: the vector list's share, 0..1
	// Candidates is how many results each list contributes before fusion.
	Candidates int
	// KindBoost multiplies a fused score by the chunk's kind: typed
	// memories outrank the episodic summaries they were distilled from.
	KindBoost map[string]float64
	// RecencyDepth is how many recent weekly summaries every search
	// returns; a Query's RecencyDepth overrides it.
	RecencyDepth int
	// PassageDecay scales the score of each further passage of a file
	// (of an archived source) by this once more: 1 ranks passages by
	// score alone, near 0 gives each file one passage. 0 means the
	// default; outside 0..1 the default too.
	PassageDecay float64
	// ContextLines is how many lines before and after a passage, within
	// its entry, a hit shows too, each side adding at most ContextTokens
	// (bytes/4). 0 means the default; negative, none.
	ContextLines  int
	ContextTokens int
}

// DefaultRanking is what Open uses unless told otherwise.
var DefaultRanking = Ranking{
	Fusion:       FusionWeighted,
	RRFK:         60,
	VectorWeight: 0.5,
	Candidates:   100,
	KindBoost: map[string]float64{
		"typed":     1.1,
		"wisdom":    1.1,
		"crossteam": 1.05,
		"monthly":   1.0,
		"weekly":    1.0,
		"daily":     0.95,
		"archive":   0.9,
	},
	RecencyDepth:  2,
	PassageDecay:  1,
	ContextLines:  1,
	ContextTokens: 30,
}

func (r Ranking) withDefaults() Ranking {
	d := DefaultRanking
	if r.Fusion == "" {
		r.Fusion = d.Fusion
	}
	if r.RRFK <= 0 {
		r.RRFK = d.RRFK
	}
	if r.VectorWeight <= 0 || r.VectorWeight > 1 {
		r.VectorWeight = d.VectorWeight
	}
	if r.Candidates <= 0 {
		r.Candidates = d.Candidates
	}
	if r.KindBoost == nil {
		r.KindBoost = d.KindBoost
	}
	if r.RecencyDepth == 0 {
		r.RecencyDepth = d.RecencyDepth
	}
	if r.PassageDecay <= 0 || r.PassageDecay > 1 {
		r.PassageDecay = d.PassageDecay
	}
	if r.ContextLines == 0 {
		r.ContextLines = d.ContextLines
	}
	if r.ContextTokens == 0 {
		r.ContextTokens = d.ContextTokens
	}
	return r
}

// ranked is a chunk on its way through the passes.
type ranked struct {
	chunk  Chunk
	bm25   float64
	vector float64
	score  float64
	reason []string
}

// fuse combines BM25 and vector result lists (each best first) into one
// list of scored chunk IDs, best first.
func fuse(r Ranking, bm, vec []scored) []ranked {
	by := map[string]*ranked{}
	var order []string
	get := func(id string) *ranked {
		x, ok := by[id]
		if !ok {
			x = &ranked{chunk: Chunk{ID: id}}
			by[id] = x
			order = append(order, id)
		}
		return x
	}
	maxOf := func(l []scored) float64 {
		m := 0.0
		for _, s := range l {
			if s.score > m {
				m = s.score
			}
		}
		return m
	}
	wb, wv := 1-r.VectorWeight, r.VectorWeight
	if len(vec) == 0 {
		wb = 1
	}
	if len(bm) == 0 {
		wv = 1
	}
	bmMax, vMax := maxOf(bm), maxOf(vec)
	for i, s := range bm {
		x := get(s.id)
		x.bm25 = s.score
		x.reason = append(x.reason, "bm25")
		if r.Fusion == FusionWeighted {
			if bmMax > 0 {
				x.score += wb * s.score / bmMax
			}
		} else {
			x.score += 1 / (r.RRFK + float64(i+1))
		}
	}
	for i, s := range vec {
		x := get(s.id)
		x.vector = s.score
		x.reason = append(x.reason, "vector")
		if r.Fusion == FusionWeighted {
			if vMax > 0 && s.score > 0 {
				x.score += wv * s.score / vMax
			}
		} else {
			x.score += 1 / (r.RRFK + float64(i+1))
		}
	}
	out := make([]ranked, 0, len(order))
	for _, id := range order {
		out = append(out, *by[id])
	}
	sortRanked(out)
	return out
}

func sortRanked(rs []ranked) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].score != rs[j].score {
			return rs[i].score > rs[j].score
		}
		return rs[i].chunk.ID < rs[j].chunk.ID
	})
}

// boost multiplies scores by the chunk kind's factor and re-sorts.
func boost(r Ranking, rs []ranked) {
	for i := range rs {
		f, ok := r.KindBoost[rs[i].chunk.Kind]
		if !ok || f == 1 {
			continue
		}
		rs[i].score *= f
		rs[i].reason = append(rs[i].reason, "boost")
	}
	sortRanked(rs)
}

// dropCopies drops every chunk that is a copy of a better-ranked one: its
// text, spacing aside, is the other's, both belong to the log (dailies,
// weekly and monthly summaries, and those in the archive), they come from
// different files (or archived sources), and the times they speak for
// overlap. That is what compaction leaves behind: a day copied into a
// weekly summary, a monthly's day copied from a weekly now in the archive.
// The same words on two different days are two events, and a typed
// memory, WISDOM.md or CROSS-TEAM.md saying what a daily says is a memory
// of its own: both are kept.
func dropCopies(rs []ranked) []ranked {
	type record struct {
		text     string
		group    string
		from, to time.Time
	}
	seen := map[uint64][]record{}
	out := rs[:0:0]
	for _, x := range rs {
		from, to, ok := logDays(x.chunk)
		if !ok {
			out = append(out, x)
			continue
		}
		key := wordsHash(x.chunk.Text)
		g := x.chunk.group()
		copied := false
		for _, r := range seen[key] {
			if r.group != g && !from.After(r.to) && !r.from.After(to) && sameWords(r.text, x.chunk.Text) {
				copied = true
				break
			}
		}
		if copied {
			continue
		}
		seen[key] = append(seen[key], record{x.chunk.Text, g, from, to})
		out = append(out, x)
	}
	return out
}

// wordsSeed seeds wordsHash for the life of the process.
var wordsSeed = maphash.MakeSeed()

// wordsHash hashes s's words, so that texts that differ only in spacing
// (oneLine of one equals oneLine of the other) hash alike.
func wordsHash(s string) uint64 {
	var h maphash.Hash
	h.SetSeed(wordsSeed)
	for w := range strings.FieldsSeq(s) {
		h.WriteString(w)
		h.WriteByte(' ')
	}
	return h.Sum64()
}

// sameWords reports whether a and b hold the same words in the same
// order. It runs only when their hashes agree.
func sameWords(a, b string) bool { return oneLine(a) == oneLine(b) }

// logDays returns the first and last day a chunk of the log speaks for:
// a daily's day, a weekly summary's seven days, a monthly summary's
// weeks (every week that touches its month, as compaction rolls them up),
// and the same for each in the archive. A chunk that is not part
// of the log, or has no date, has none.
func logDays(c Chunk) (from, to time.Time, ok bool) {
	d := dateOf(c.Date)
	if d.IsZero() {
		return d, d, false
	}
	switch recordKind(c) {
	case layout.KindDaily:
		return d, d, true
	case layout.KindWeekly:
		return d, d.AddDate(0, 0, 6), true
	case layout.KindMonthly:
		first := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1)
		return layout.WeekOf(first).Start(), layout.WeekOf(last).Start().AddDate(0, 0, 6), true
	}
	return d, d, false
}

// recordKind is the kind of file a chunk was written in: for a section
// of the archive, the kind of the file archived there.
func recordKind(c Chunk) layout.Kind {
	if c.Kind != string(layout.KindArchive) || c.Source == "" {
		return layout.Kind(c.Kind)
	}
	sub, name := archivedSource(c.Source)
	return layout.Classify(c.Teammate, sub, name).Kind
}

// mergeChunks joins two neighbouring chunks of one entry, a before b,
// dropping the overlap b repeats.
func mergeChunks(a, b ranked) ranked {
	m := a
	m.chunk.EndLine = b.chunk.EndLine
	m.chunk.Text = joinOverlap(a.chunk.Text, b.chunk.Text)
	if b.bm25 > m.bm25 {
		m.bm25 = b.bm25
	}
	if b.vector > m.vector {
		m.vector = b.vector
	}
	m.reason = unionReasons(a.reason, b.reason)
	m.chunk.Ordinal = b.chunk.Ordinal
	if a.chunk.Ordinal < m.chunk.Ordinal {
		m.chunk.Ordinal = a.chunk.Ordinal
	}
	m.chunk.ID = a.chunk.ID
	return m
}

// joinOverlap appends b to a, without the longest prefix of b that a
// already ends with.
func joinOverlap(a, b string) string {
	for n := min(len(a), len(b)); n > 0; n-- {
		if strings.HasSuffix(a, b[:n]) && (n == len(b) || b[n] == ' ' || b[n] == '\n') {
			return a + b[n:]
		}
	}
	return a + "\n" + b
}

func unionReasons(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, r := range b {
		if !hasReason(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func hasReason(rs []string, r string) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// withRecency cuts the ranked hits to k and appends the recent weekly
// summaries that are not among them, newest first; one already there is
// only marked. Recency items never displace a relevant hit and never
// repeat.
func withRecency(rs []ranked, recent []ranked, k int) []ranked {
	if len(rs) > k {
		rs = rs[:k]
	}
	out := append([]ranked(nil), rs...)
	for _, r := range recent {
		found := false
		for i := range out {
			if out[i].chunk.Path == r.chunk.Path {
				if !hasReason(out[i].reason, "recency") {
					out[i].reason = append(out[i].reason, "recency")
				}
				found = true
				break
			}
		}
		if !found {
			r.reason = unionReasons(r.reason, []string{"recency"})
			out = append(out, r)
		}
	}
	return out
}
