package recall

import "math"

// Cutting an entry by lexical cohesion (TextTiling, Hearst 1997): an
// entry over the target is cut into as many chunks as the target asks
// for, each between half and one and a half targets long, at the gaps
// where the text on either side shares the fewest words. Words are
// weighted by tf·idf over the entry's units, so that what every line of
// the entry says (a speaker's name, a date) does not hold it together.

// maxTileCells bounds the cut search of one entry (chunks × units); a
// larger entry is cut greedily. An entry of 2,000 sentences into 200
// chunks is within it.
const maxTileCells = 1 << 22

// tileUnits returns the index of each chunk's first unit, or nil when the
// entry is cut greedily (no cut fits the size window, or too large).
func tileUnits(units []unit, target int) []int {
	if len(units) < 2 {
		return nil
	}
	lo, hi := target/2, target+target/2
	prefix := make([]int, len(units)+1)
	for i, u := range units {
		prefix[i+1] = prefix[i] + u.tokens
	}
	k0 := (prefix[len(units)] + target - 1) / target
	gap := cohesion(units, target/2)
	// Units are at most a target each, so a split into twice the chunks
	// the target asks for, one unit or two each, nearly always fits.
	for k := max(k0, 1); k <= 2*k0+1 && k <= len(units); k++ {
		if k*len(units) > maxTileCells {
			return nil
		}
		if cuts := bestCuts(prefix, gap, k, lo, hi); cuts != nil {
			return cuts
		}
	}
	return nil
}

// bestCuts splits the units (prefix holds their running token sums) into
// k chunks of lo..hi tokens minimising the summed cohesion across the
// cuts; nil when no split fits.
func bestCuts(prefix []int, gap []float64, k, lo, hi int) []int {
	n := len(prefix) - 1
	inf := math.Inf(1)
	cost := make([]float64, n+1)
	for b := range cost {
		cost[b] = inf
	}
	cost[0] = 0
	from := make([][]int32, k)
	for j := range from {
		next := make([]float64, n+1)
		from[j] = make([]int32, n+1)
		for b := range next {
			next[b] = inf
			for a := b - 1; a >= 0 && prefix[b]-prefix[a] <= hi; a-- {
				if prefix[b]-prefix[a] < lo || cost[a] == inf {
					continue
				}
				c := cost[a]
				if a > 0 {
					c += gap[a]
				}
				if c < next[b] {
					next[b], from[j][b] = c, int32(a)
				}
			}
		}
		cost = next
	}
	if cost[n] == inf {
		return nil
	}
	cuts := make([]int, k)
	for j, b := k-1, n; j >= 0; j-- {
		b = int(from[j][b])
		cuts[j] = b
	}
	return cuts
}

// cohesion returns, for each gap g between units g-1 and g, the cosine
// of the tf·idf vectors of the units before it and of those after it,
// each side up to block tokens (at least one unit): TextTiling's block
// comparison. gap[0] is unused.
func cohesion(units []unit, block int) []float64 {
	vecs := unitTerms(units)
	gap := make([]float64, len(units))
	for g := 1; g < len(units); g++ {
		left, right := map[string]float64{}, map[string]float64{}
		for i, tok := g-1, 0; i >= 0 && (tok == 0 || tok+units[i].tokens <= block); i-- {
			tok += units[i].tokens
			addTerms(left, vecs[i])
		}
		for i, tok := g, 0; i < len(units) && (tok == 0 || tok+units[i].tokens <= block); i++ {
			tok += units[i].tokens
			addTerms(right, vecs[i])
		}
		gap[g] = cosine(left, right)
	}
	return gap
}

// unitTerms returns each unit's analysed terms (the index's English and
// CJK analyzers, stop words out) weighted by count × ln(units / units
// holding the term).
func unitTerms(units []unit) []map[string]float64 {
	vecs := make([]map[string]float64, len(units))
	a, err := analyzers()
	df := map[string]float64{}
	for i, u := range units {
		v := map[string]float64{}
		if err == nil {
			for _, t := range a.en.Analyze([]byte(u.text)) {
				v[string(t.Term)]++
			}
			for _, t := range a.cjk.Analyze([]byte(cjkOnly(u.text))) {
				v[string(t.Term)]++
			}
		}
		for t := range v {
			df[t]++
		}
		vecs[i] = v
	}
	for _, v := range vecs {
		for t := range v {
			v[t] *= math.Log(float64(len(vecs)) / df[t])
		}
	}
	return vecs
}

func addTerms(dst, v map[string]float64) {
	for t, w := range v {
		dst[t] += w
	}
}

func cosine(a, b map[string]float64) float64 {
	var dot, na, nb float64
	for t, x := range a {
		na += x * x
		dot += x * b[t]
	}
	for _, y := range b {
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// tiledPieces writes each chunk of units, led (as greedy pieces are) by
// trailing units of the chunk before up to the overlap budget, as long as
// it stays within one and a half targets.
func tiledPieces(units []unit, cores []int, opts ChunkOptions) []piece {
	hi := opts.TargetTokens + opts.TargetTokens/2
	out := make([]piece, 0, len(cores))
	for j, a := range cores {
		b := len(units)
		if j+1 < len(cores) {
			b = cores[j+1]
		}
		size := 0
		for _, u := range units[a:b] {
			size += u.tokens
		}
		from, carry := a, 0
		for j > 0 && from > cores[j-1] {
			t := units[from-1].tokens
			if carry+t > opts.OverlapTokens || size+carry+t > hi {
				break
			}
			carry += t
			from--
		}
		out = append(out, joinUnits(units[from:b], j == 0))
	}
	return out
}
