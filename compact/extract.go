package compact

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/internal/secrets"
	"github.com/tmemhq/tmem/layout"
)

// fact is a marked paragraph that is filed as a typed memory: lessons as
// feedback, facts as project knowledge. Decisions stay in the summaries.
type fact struct {
	typ    string
	text   string   // the paragraph (or marked heading), word for word
	detail []string // the paragraphs under a marked heading, word for word
	source string   // "2026-03-09.md sha256:0123456789ab"
}

// factsOf returns the facts and lessons of a daily log, each secret in them
// replaced by [REDACTED:kind] so that none reaches a memory's name, file
// name or body.
func factsOf(d dayFile, memRel string) []fact {
	out := rawFacts(d, memRel)
	for i := range out {
		out[i].text, _ = secrets.Redact(out[i].text)
		for k := range out[i].detail {
			out[i].detail[k], _ = secrets.Redact(out[i].detail[k])
		}
	}
	return out
}

// rawFacts are the facts and lessons of a daily log as written. A heading
// that is itself a statement ("## Lesson: never deploy on Fridays") is one
// fact with its paragraphs as detail; under a heading that names a kind
// ("### Lessons learned") every paragraph is a fact of its own.
func rawFacts(d dayFile, memRel string) []fact {
	doc, err := layout.Parse(d.Path, d.Body)
	if err != nil {
		return nil
	}
	src := memRel + " " + shortSum(d.SHA)
	var out []fact
	for _, en := range doc.Entries {
		if typ := typeOf(markedPrefixOf(en.Heading)); typ != "" {
			f := fact{typ: typ, text: en.Heading, source: src}
			for _, b := range entryBlocks(en.Heading, en.Text) {
				if !b.Heading {
					f.detail = append(f.detail, b.Text)
				}
			}
			out = append(out, f)
			continue
		}
		out = append(out, blockFacts(en, src)...)
	}
	return out
}

func blockFacts(en layout.Entry, src string) []fact {
	var out []fact
	under := headingMark(en.Heading)
	sub := ""
	for _, b := range entryBlocks(en.Heading, en.Text) {
		if b.Heading {
			sub = headingMark(b.Text)
			continue
		}
		mark := b.Mark
		if mark == "heading" {
			mark = firstOf(sub, under)
		}
		if typ := typeOf(mark); typ != "" {
			out = append(out, fact{typ: typ, text: b.Text, source: src})
		}
	}
	return out
}

func typeOf(mark string) string {
	switch mark {
	case "fact":
		return "project"
	case "lesson", "learned":
		return "feedback"
	}
	return ""
}

// extract plans typed-memory writes for the facts of dailies. A fact that
// a memory of its type already holds is skipped; one that says the same
// as a memory (FactThreshold) is added to it; anything else becomes a new
// memory, named after its own sentence.
func (pl *planner) extract(ub *unit, dailies []dayFile) error {
	for _, d := range dailies {
		for _, f := range factsOf(d, pl.memRel(d.Path)) {
			if err := pl.fileFact(ub, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// fileFact files one fact.
func (pl *planner) fileFact(ub *unit, f fact) error {
	best, held, err := pl.closest(f)
	if err != nil || held {
		return err
	}
	if best != "" {
		return pl.appendFact(ub, best, f)
	}
	rel, err := pl.freshPath(f)
	if err != nil {
		return err
	}
	d := &layout.Doc{Path: rel}
	name := capitalise(factText(f.text))
	for _, kv := range []struct {
		k string
		v interface{}
	}{{"name", clipWords(firstSentenceOr(name), 80)}, {"description", clipWords(name, 200)}, {"type", f.typ}, {"sources", []string{f.source}}} {
		if err := d.Set(kv.k, kv.v); err != nil {
			return err
		}
	}
	d.Body = []byte("\n" + factBody(f) + "\n")
	return ub.write(rel, d.Bytes())
}

// closest finds the memory of the fact's type with a paragraph that says
// the same thing; held is true when one already holds the fact word for
// word.
func (pl *planner) closest(f fact) (best string, held bool, err error) {
	score := 0.0
	for _, rel := range pl.typedPaths(f.typ) {
		mf := pl.overlay[rel]
		if strings.Contains(string(mf.Content), f.text) {
			return "", true, nil
		}
		d, err := layout.Parse(rel, mf.Content)
		if err != nil {
			continue
		}
		for _, para := range strings.Split(strings.TrimSpace(string(d.Body)), "\n\n") {
			if s := pl.o.Similarity.Similarity(factText(f.text), factText(para)); s > score {
				best, score = rel, s
			}
		}
	}
	if score < pl.o.FactThreshold {
		best = ""
	}
	return best, false, nil
}

// typedPaths lists the planned typed memories of one type, by path; one
// with merge conflict markers is left out, so no fact is added to it.
func (pl *planner) typedPaths(typ string) []string {
	var out []string
	for rel, mf := range pl.overlay {
		f := layout.Classify(pl.name, "memory", pl.memRel(rel))
		if mf.Exists && f.Kind == layout.KindTyped && f.Type == typ && !strings.Contains(pl.memRel(rel), "/") && unresolved(rel, mf.Content) == nil {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

func (pl *planner) appendFact(ub *unit, rel string, f fact) error {
	mf := pl.overlay[rel]
	d, err := layout.Parse(rel, mf.Content)
	if err != nil {
		return fmt.Errorf("compact %s: %w", rel, err)
	}
	if srcs := d.List("sources"); !contains(srcs, f.source) {
		if err := d.Set("sources", append(srcs, f.source)); err != nil {
			return err
		}
	}
	d.Body = []byte(strings.TrimRight(string(d.Body), " \t\r\n") + "\n\n" + factBody(f) + "\n")
	return ub.write(rel, d.Bytes())
}

// freshPath names a new memory after the first content words of its fact,
// adding words, then a number, until the name is free.
func (pl *planner) freshPath(f fact) (string, error) {
	ws := topicWords(redactedMark().ReplaceAllString(factText(f.text), " "))
	if len(ws) == 0 {
		ws = []string{"note"}
	}
	for n := min(4, len(ws)); ; n++ {
		base := strings.Join(ws[:min(n, len(ws))], " ")
		if n > len(ws) {
			base += fmt.Sprintf(" %d", n-len(ws)+1)
		}
		slug, err := layout.Slug(base)
		if err != nil {
			slug = "note"
		}
		rel := layout.TypedPath(pl.name, f.typ, slug)
		mf, err := pl.file(rel)
		if err != nil {
			return "", err
		}
		if !mf.Exists {
			return rel, nil
		}
	}
}

func factBody(f fact) string {
	if len(f.detail) == 0 {
		return f.text
	}
	return f.text + "\n\n" + strings.Join(f.detail, "\n\n")
}

// factText is a marked paragraph without its "Lesson:"-style prefix or
// its #lesson or #decision tag.
func factText(line string) string {
	s := strings.TrimLeft(line, "*_ ")
	if markedPrefixOf(s) != "" {
		if i := strings.Index(s, ":"); i >= 0 {
			s = strings.TrimLeft(s[i+1:], "*_ ")
		}
	}
	s = markTag().ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), " ")
}

// redactedMark is how a redacted secret reads; its words never name a
// file.
var redactedMark = lazyregexp.New(`\[REDACTED:[^\]]*\]`)

var markTag = lazyregexp.New(`(?i)(^|\s)#(decision|lesson)\b`)

// firstSentenceOr is the first sentence of s, or s when it has none that
// can be quoted.
func firstSentenceOr(s string) string {
	if f := firstSentence(s); f != "" {
		return f
	}
	return s
}

// clipWords shortens s to at most n characters at a word boundary, with
// "…" when something was left out. A single word longer than n is kept.
func clipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := strings.LastIndex(string(r[:n]), " ")
	if cut <= 0 {
		if i := strings.Index(s, " "); i > 0 {
			return s[:i] + "…"
		}
		return s
	}
	return strings.TrimRight(s[:cut], " ,;:-—") + "…"
}

// topicWords are the lowercase content words of s, for a file name.
func topicWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
