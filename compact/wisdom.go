package compact

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// wisdom writes one WISDOM.md entry from similar typed memories: the
// title is the name of the memory most like the others (or the entry's
// current title), the text its rule, then why and how to apply it, each
// the first full sentence of a source's **Why:** and **How to apply:**
// (the central memory's first). Nothing is cut: a sentence too long to
// quote is left out, and the sources stay cited.
func (e Extractive) wisdom(req Request) (string, error) {
	if len(req.Sources) == 0 {
		return "", fmt.Errorf("extractive: wisdom %s has no sources", req.Unit)
	}
	sim := e.Similarity
	if sim == nil {
		sim = Shingles{}
	}
	order := centralFirst(req.Sources, sim)
	title := order[0].Label
	if t, _, ok := splitEntry(req.Existing); ok && t != "" {
		title = t
	}
	rule, why, how := "", "", ""
	for _, src := range order {
		r, w, h := ruleParts(src.Text)
		rule, why, how = firstOf(rule, r), firstOf(why, w), firstOf(how, h)
	}
	if rule == "" {
		return "", fmt.Errorf("extractive: wisdom %s: no rule found in its sources", req.Unit)
	}
	text := rule
	if why != "" {
		text += " Why: " + why
	}
	if how != "" {
		text += " How to apply: " + how
	}
	return "## " + oneLine(title) + "\n\n" + text + "\n", nil
}

// centralFirst orders sources by how alike they are to all the others,
// most central first (ties keep their order).
func centralFirst(srcs []Source, sim Similarity) []Source {
	best, bestScore := 0, -1.0
	for i, a := range srcs {
		s := 0.0
		for j, b := range srcs {
			if i != j {
				s += sim.Similarity(a.Text, b.Text)
			}
		}
		if s > bestScore {
			best, bestScore = i, s
		}
	}
	out := []Source{srcs[best]}
	for i, s := range srcs {
		if i != best {
			out = append(out, s)
		}
	}
	return out
}

// ruleParts returns the first sentence of a typed memory's rule (its first
// paragraph that is not a Why, How to apply or Sources line), of its
// **Why:** and of its **How to apply:**.
func ruleParts(body string) (rule, why, how string) {
	for _, p := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n\n") {
		p = strings.Join(strings.Fields(p), " ")
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		label, rest := labelled(p)
		switch label {
		case "why":
			why = firstOf(why, firstSentence(rest))
		case "how to apply":
			how = firstOf(how, firstSentence(rest))
		case "sources":
		default:
			rule = firstOf(rule, capitalise(factText(firstSentence(p))))
		}
	}
	return rule, why, how
}

// labelled splits "**Why:** text" into "why" and "text"; a paragraph
// without such a label gives "".
func labelled(p string) (string, string) {
	t := strings.TrimLeft(p, "*_ ")
	for _, l := range []string{"why", "how to apply", "sources"} {
		if len(t) > len(l) && strings.EqualFold(t[:len(l)], l) {
			rest := strings.TrimLeft(t[len(l):], "*_ ")
			if strings.HasPrefix(rest, ":") {
				return l, strings.TrimLeft(strings.TrimPrefix(rest, ":"), "*_ ")
			}
		}
	}
	return "", p
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// capitalise upper-cases the first letter of s.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
