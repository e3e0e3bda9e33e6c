package compact

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// Extractive is the default Summarizer: offline and deterministic. It keeps
// every line marked as a decision, lesson or fact word for word, reduces
// every other entry to its heading and first line, and merges near-duplicate
// lines. A line is marked when it starts with "Decision:", "Decided:",
// "Lesson:", "Learned:" or "Fact:" (any case, after a list marker), carries
// a #decision or #lesson tag, or sits under a heading holding one of those
// words.
type Extractive struct {
	Similarity Similarity // nil means Shingles{}
	// DupThreshold is the similarity at or above which two unmarked lines
	// are merged; 0 means 0.8.
	DupThreshold float64
}

const (
	decisionsHeading = "Decisions and lessons"
	workHeading      = "Work"
	maxWorkLine      = 120
	maxWeekItems     = 8
)

var (
	datePrefix = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}|\d{4}-W\d{2})(, (\d{4}-\d{2}-\d{2}|\d{4}-W\d{2}))*:? `)
	digits     = regexp.MustCompile(`\S*\d\S*`)
)

// workItem is one line of a summary's Work section: what was done, and
// the days (or weeks) it was done on.
type workItem struct {
	labels []string
	text   string
	key    string
}

// splitLabels splits "2026-03-09, 2026-03-10 text" into its dates and text.
func splitLabels(s string) ([]string, string) {
	m := datePrefix.FindString(s)
	if m == "" {
		return nil, s
	}
	var labels []string
	for _, l := range strings.Split(strings.TrimRight(m, ": "), ", ") {
		labels = append(labels, l)
	}
	return labels, s[len(m):]
}

// noDigits drops every word holding a digit (dates, counts, ids), so that
// the same work on different days compares equal.
func noDigits(s string) string { return digits.ReplaceAllString(s, "") }

// Summarize implements Summarizer.
func (e Extractive) Summarize(_ context.Context, req Request) (string, error) {
	sim, th := e.sim()
	switch req.Kind {
	case KindWisdom:
		return e.wisdom(req, sim)
	case KindWeekly, KindMonthly:
	default:
		return "", fmt.Errorf("extractive: unknown kind %q", req.Kind)
	}
	var keep []string
	var work []*workItem
	seen := map[string]bool{}
	addKeep := func(s string) {
		if !seen[s] {
			seen[s] = true
			keep = append(keep, s)
		}
	}
	addWork := func(line string) {
		labels, text := splitLabels(stripListMarker(line))
		key := noDigits(text)
		for _, w := range work {
			if w.text == text || sim.Similarity(key, w.key) >= th {
				for _, l := range labels {
					w.labels = appendUnique(w.labels, l)
				}
				return
			}
		}
		work = append(work, &workItem{labels: labels, text: text, key: key})
	}
	if req.Existing != "" {
		d, err := layout.Parse("existing "+req.Unit, []byte(req.Existing))
		if err != nil {
			return "", fmt.Errorf("extractive: %w", err)
		}
		for _, en := range d.Entries {
			for _, l := range scanLines(en.Heading, en.Text) {
				switch {
				case l.Marked:
					addKeep(asItem(l.Text))
				case !strings.HasPrefix(l.Text, "#"):
					addWork(asItem(l.Text))
				}
			}
		}
	}
	for _, src := range req.Sources {
		d, err := layout.Parse(src.Path, []byte(src.Text))
		if err != nil {
			return "", fmt.Errorf("extractive: %w", err)
		}
		var items []string
		for _, en := range d.Entries {
			lines := scanLines(en.Heading, en.Text)
			var first string
			for _, l := range lines {
				switch {
				case l.Marked:
					addKeep(asItem(l.Text))
				case first == "" && !strings.HasPrefix(l.Text, "#"):
					first = stripListMarker(l.Text)
				}
			}
			if req.Kind == KindMonthly {
				if markedHeading(en.Heading) {
					continue
				}
				for _, l := range lines {
					if !l.Marked && !strings.HasPrefix(l.Text, "#") {
						it := workTopic(l.Text)
						dup := false
						for _, x := range items {
							if noDigits(x) == noDigits(it) {
								dup = true
							}
						}
						if !dup {
							items = append(items, it)
						}
					}
				}
				continue
			}
			if markedHeading(en.Heading) || (en.Heading == "" && first == "") {
				continue
			}
			item := en.Heading
			if item == "" {
				item, first = first, ""
			}
			if first != "" {
				item += ": " + first
			}
			addWork(src.Label + " " + clip(item, maxWorkLine))
		}
		if req.Kind == KindMonthly && len(items) > 0 {
			more := ""
			if len(items) > maxWeekItems {
				more = fmt.Sprintf("; and %d more", len(items)-maxWeekItems)
				items = items[:maxWeekItems]
			}
			addWork(src.Label + " " + strings.Join(items, "; ") + more)
		}
	}
	var b strings.Builder
	if req.Kind == KindWeekly {
		fmt.Fprintf(&b, "# Week %s\n", req.Unit)
	} else {
		fmt.Fprintf(&b, "# Month %s\n", req.Unit)
	}
	if len(keep) > 0 {
		b.WriteString("\n## " + decisionsHeading + "\n\n" + strings.Join(keep, "\n") + "\n")
	}
	if len(work) > 0 {
		b.WriteString("\n## " + workHeading + "\n\n")
		for _, w := range work {
			b.WriteString("- " + strings.Join(w.labels, ", ") + " " + w.text + "\n")
		}
	}
	if len(keep) == 0 && len(work) == 0 {
		b.WriteString("\nNothing was logged.\n")
	}
	return b.String(), nil
}

func (e Extractive) sim() (Similarity, float64) {
	sim := e.Similarity
	if sim == nil {
		sim = Shingles{}
	}
	th := e.DupThreshold
	if th == 0 {
		th = 0.8
	}
	return sim, th
}

// asItem makes a trimmed line a list item, keeping it word for word.
func asItem(t string) string {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") {
		return t
	}
	return "- " + t
}

// workTopic reduces a weekly "Work" line to its topic: no list marker, no
// date, nothing after the first ": ".
func workTopic(line string) string {
	s := datePrefix.ReplaceAllString(stripListMarker(line), "")
	if i := strings.Index(s, ": "); i > 0 {
		s = s[:i]
	}
	return clip(s, 60)
}

// clip shortens s to at most n bytes at a word boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndex(s[:n], " ")
	if cut < n/2 {
		cut = n
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// wisdom distils similar memories into one entry: the title of the most
// central memory, its rule, and the first "How to apply" line found.
func (e Extractive) wisdom(req Request, sim Similarity) (string, error) {
	if len(req.Sources) == 0 {
		return "", fmt.Errorf("extractive: wisdom %s has no sources", req.Unit)
	}
	if req.Existing != "" {
		return req.Existing, nil
	}
	best, bestScore := 0, -1.0
	for i, a := range req.Sources {
		s := 0.0
		for j, b := range req.Sources {
			if i != j {
				s += sim.Similarity(a.Text, b.Text)
			}
		}
		if s > bestScore {
			best, bestScore = i, s
		}
	}
	c := req.Sources[best]
	title := c.Label
	rule := ""
	var apply string
	for _, src := range append([]Source{c}, req.Sources...) {
		for _, l := range strings.Split(src.Text, "\n") {
			t := stripListMarker(l)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			low := strings.ToLower(strings.Trim(t, "*_ "))
			switch {
			case strings.HasPrefix(low, "how to apply"):
				if apply == "" {
					apply = applyText(t)
				}
			case strings.HasPrefix(low, "why") || strings.HasPrefix(low, "sources:"):
			case rule == "":
				rule = firstSentence(t)
			}
		}
	}
	if rule == "" {
		return "", fmt.Errorf("extractive: wisdom %s: no rule found in sources", req.Unit)
	}
	text := rule
	if apply != "" && apply != rule && sentences(rule+" "+apply) <= 3 {
		text += " " + apply
	}
	return "## " + title + "\n\n" + text + "\n", nil
}

// firstSentence returns s up to and including its first sentence end.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			return s[:i+1]
		}
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// applyText turns "**How to apply:** run it on staging" into "Run it on
// staging."
func applyText(t string) string {
	i := strings.Index(t, ":")
	s := strings.TrimLeft(t[i+1:], "*_ ")
	if s == "" {
		return ""
	}
	s = firstSentence(s)
	return strings.ToUpper(s[:1]) + s[1:]
}
