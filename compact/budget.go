package compact

import (
	"fmt"
	"strings"
)

// fitBudget joins a summary's sections under its title and, while it is
// over budget tokens, says less: first long entries keep half, a quarter,
// then none of the sentences they keep besides their first, then the
// bullets lose their sentences, then each day keeps only the entries with
// marked text and counts the rest, pointing at the full log. Marked text
// is never dropped, so a summary can stay over budget; the archive keeps
// every word either way.
func fitBudget(title string, secs []section, budget int) string {
	out := joinSections(title, secs)
	shrinks := []func(section) section{keepExtras(0.5), keepExtras(0.25), keepExtras(0), withoutSentences, onlyMarked}
	for _, shrink := range shrinks {
		if Tokens(out) <= budget {
			break
		}
		for i := range secs {
			if secs[i].Day {
				secs[i] = shrink(secs[i])
			}
		}
		out = joinSections(title, secs)
	}
	return out
}

func joinSections(title string, secs []section) string {
	var b strings.Builder
	b.WriteString(title + "\n")
	for _, s := range secs {
		b.WriteString("\n" + s.Text + "\n")
	}
	if len(secs) == 0 {
		b.WriteString("\nNothing was logged.\n")
	}
	return b.String()
}

// keepExtras renders a day again with only the given share of the
// sentences each long entry keeps besides its first, the most salient
// ones.
func keepExtras(share float64) func(section) section {
	return func(s section) section {
		return rerender(s, func(g digest) digest {
			g.Extra = inOrder(g.salient, int(float64(len(g.salient))*share))
			return g
		})
	}
}

// withoutSentences renders a day again with headings only.
func withoutSentences(s section) section {
	return rerender(s, func(g digest) digest {
		if g.Heading != "" {
			g.Sentence = ""
		}
		return g
	})
}

// rerender renders a day again from its digests changed by change; a
// day read from an earlier summary has no digests and stays as it is.
func rerender(s section, change func(digest) digest) section {
	if s.digests == nil {
		return s
	}
	ds := make([]digest, len(s.digests))
	for i, g := range s.digests {
		ds[i] = change(g)
	}
	s.digests = ds
	s.Text = renderDay(s.label, ds, s.where)
	return s
}

// onlyMarked keeps the bullets that carry marked sub-items and counts the
// others in one line after them.
func onlyMarked(s section) section {
	lines := strings.Split(s.Text, "\n")
	first, last := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, "- ") || first >= 0 && strings.HasPrefix(l, "  ") {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return s
	}
	var keep []string
	dropped := 0
	for i := first; i <= last; i++ {
		j := i + 1
		for j <= last && !strings.HasPrefix(lines[j], "- ") {
			j++
		}
		if j > i+1 {
			keep = append(keep, lines[i:j]...)
		} else {
			dropped++
		}
		i = j - 1
	}
	if dropped == 0 {
		return s
	}
	more := fmt.Sprintf("- %d more entries; see the log.", dropped)
	if dropped == 1 {
		more = "- 1 more entry; see the log."
	}
	out := append(append(append([]string{}, lines[:first]...), keep...), more)
	s.Text = strings.Join(append(out, lines[last+1:]...), "\n")
	s.digests = nil
	return s
}
