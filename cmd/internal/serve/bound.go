package serve

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A hit shows whole lines of its file, and a memory file may hold a line
// of megabytes: ten such hits made an answer of 46 MB, sent twice (text
// and structured content). So one hit's text shows at most maxHitBytes,
// the hits' texts together at most maxSearchBytes, and a hit cut short
// says so and how to read the rest with memory_get; its heading and
// memory name, which are one line each, show at most maxTitleBytes.
const (
	maxHitBytes    = 8 << 10
	maxSearchBytes = maxGetBytes
	maxTitleBytes  = 1 << 10
)

// boundHits cuts the hits' texts to the limits, best hits first.
func boundHits(hits []SearchHit) {
	left := maxSearchBytes
	for i := range hits {
		h := &hits[i]
		h.Heading, h.Name = cutTitle(h.Heading), cutTitle(h.Name)
		limit, cut := min(maxHitBytes, left), "hit"
		if left < maxHitBytes {
			cut = "answer"
		}
		if len(h.Text) > limit {
			h.Text, h.Cut = cutText(h.Text, limit)+cutMarker(h, cut), cut
		}
		left = max(0, left-len(h.Text))
	}
}

// cutMarker says that h's text stops short, why, and how to read it whole.
func cutMarker(h *SearchHit, cut string) string {
	why := fmt.Sprintf("a hit shows at most %d KiB", maxHitBytes>>10)
	if cut == "answer" {
		why = fmt.Sprintf("the hits of one answer show at most %d KiB together", maxSearchBytes>>10)
	}
	return fmt.Sprintf("\n[memory_search: cut here, %s; read lines %d-%d with memory_get %s]", why, h.StartLine, h.EndLine, h.Ref)
}

// cutText is the start of text, longer than limit bytes: up to the last
// line break in its limit's second half, else the last whole character.
func cutText(text string, limit int) string {
	if i := strings.LastIndexByte(text[:limit], '\n'); i >= limit/2 {
		return text[:i]
	}
	end := limit
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[:end]
}

// cutTitle is a heading or name cut to maxTitleBytes, ending in "…".
func cutTitle(s string) string {
	if len(s) <= maxTitleBytes {
		return s
	}
	return cutText(s, maxTitleBytes-len("…")) + "…"
}
