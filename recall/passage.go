package recall

import "math"

// A search returns passages, not files: the best chunks, several of one
// file when they earn it, each merged with the chunks next to it in its
// entry that are chosen too, then widened by a few lines of context (see
// context.go).

// span is a passage on its way: a chunk, or neighbouring chunks of one
// entry merged, covering ordinals lo..hi.
type span struct {
	ranked
	lo, hi int
}

// passages picks up to k passages from rs (best first). Each pick is the
// chunk with the best score once decayed by the passages its group (its
// file, or archived source) already has: decay to the power of their
// number, so a second passage of one file must score 1/decay times
// better than another file's first. A pick next to a passage already
// chosen, in the same entry, joins it and takes no place of its own. A
// passage's score is its decayed score, so that the order stays by score.
func passages(rs []ranked, k int, decay float64) []ranked {
	rs = preferLogs(dropCopies(rs))
	groups := make([]string, len(rs))
	for i, x := range rs {
		groups[i] = x.chunk.group()
	}
	var out []span
	perGroup := map[string]int{}
	used := make([]bool, len(rs))
	for len(out) < k {
		best, bestScore := -1, math.Inf(-1)
		for i, x := range rs {
			if used[i] {
				continue
			}
			s := x.score * math.Pow(decay, float64(perGroup[groups[i]]))
			if s > bestScore {
				best, bestScore = i, s
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		x := rs[best]
		if j := neighbourOf(out, x.chunk); j >= 0 {
			out[j] = joinSpan(out[j], x)
			continue
		}
		x.score = bestScore
		out = append(out, span{ranked: x, lo: x.chunk.Ordinal, hi: x.chunk.Ordinal})
		perGroup[groups[best]]++
	}
	res := make([]ranked, len(out))
	for i, s := range out {
		res[i] = s.ranked
	}
	return res
}

// neighbourOf returns the passage of out that c is the next or previous
// chunk of, within one entry, or -1.
func neighbourOf(out []span, c Chunk) int {
	for j, s := range out {
		p := s.chunk
		if p.Path == c.Path && p.Section == c.Section && sameCrumb(p.Heading, c.Heading) &&
			(c.Ordinal == s.lo-1 || c.Ordinal == s.hi+1) {
			return j
		}
	}
	return -1
}

// joinSpan merges chunk x into the passage s next to it, which keeps its
// score.
func joinSpan(s span, x ranked) span {
	score := s.score
	if x.chunk.Ordinal < s.lo {
		s.ranked = mergeChunks(x, s.ranked)
		s.lo = x.chunk.Ordinal
	} else {
		s.ranked = mergeChunks(s.ranked, x)
		s.hi = x.chunk.Ordinal
	}
	s.score = score
	return s
}

// preferLogs drops a summary's day (a chunk that cites its full log)
// when a chunk of that log scored too: the day is shown by its log.
func preferLogs(rs []ranked) []ranked {
	hasLog := map[string]bool{}
	for _, x := range rs {
		if x.chunk.Cites == "" {
			hasLog[x.chunk.group()] = true
		}
	}
	out := rs[:0:0]
	for _, x := range rs {
		if x.chunk.Cites != "" && hasLog[x.chunk.group()] {
			continue
		}
		out = append(out, x)
	}
	return out
}
