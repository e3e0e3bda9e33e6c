package layout

import (
	"fmt"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// yaml.v3 names a line in a syntax error ("yaml: line 3: …") that means
// different things for different errors, and the message does not say
// which. It is the line of the error's context mark, unless that is the
// first line; then that of its problem mark, unless that is the first
// line too; then none. It counts from 1 for the scanner's errors and from
// 0 for the parser's. The context mark is where what was being read
// begins: the opening quote of a string never closed or a key with no
// colon, which hold the mistake, but also the value a tab in the next
// line's indentation follows, or the mapping a stray "- item" sits in.
// The problem mark is where it stopped, the line of the mistake or one
// further down. So no offset turns the number into the line of the
// mistake: the text is parsed again to find it.

// unclosedQuote is the one problem yaml.v3 raises for a quoted string
// that reaches the end of the text.
const unclosedQuote = "found unexpected end of stream"

// maxLineSearch bounds the YAML text parsed again to find the line of a
// mistake: the search parses it a few dozen times, which for a block of
// megabytes (a hostile file, read by every command that reads it) would
// take seconds. Frontmatter and tmem.yaml are far smaller; a larger text
// is reported at the line yaml.v3 names, which can be a line off.
const maxLineSearch = 16 << 10

// yamlProblem is where a parse error err of the YAML text is, as the line
// of text (counted from 1) that holds the mistake, and what the mistake
// is, redacted.
func yamlProblem(text string, err error) (int, string) {
	problem := problemOf(err)
	if len(text) > maxLineSearch {
		return max(numberedLine(err.Error()), 1), redacted(problem)
	}
	line := yamlLine(text, problem, err)
	if n := notMapping(text, line); n > 0 {
		return n, "want key: value lines"
	}
	msg := redacted(problem)
	if problem == unclosedQuote {
		msg += ": the quote opened on this line is not closed"
	}
	return line, msg
}

// noContent is what yaml.v3 says of a token that cannot start a value
// ("a: ]"), and of the end of the text inside a flow collection left
// open after "[", "{" or ",".
const noContent = "did not find expected node content"

// yamlLine is the line of text, counted from 1, that holds the mistake
// problem is about: where the string or flow collection it leaves open
// begins, else the first line through which the text fails with it.
func yamlLine(text, problem string, err error) int {
	if problem == noContent {
		text, problem = withEntry(text, problem)
	}
	p, named, ok := yamlMark(text)
	switch {
	case !ok || p != problem: // err is not about text
		return max(numberedLine(err.Error()), 1)
	case problem == unclosedQuote:
		return named - 1 // the scanner counts from 1
	case leftOpen(problem):
		return named // the parser counts from 0
	}
	return max(firstFailing(text, problem, named, numberedLine(err.Error())), 1)
}

// yamlMark is what yaml.v3 says is wrong with text and the line it names,
// with text parsed after a comment line: so what it names is never on
// line 0, and it names where the string, collection or token it was
// reading begins, if any, else where it stopped.
func yamlMark(text string) (problem string, line int, ok bool) {
	err := yaml.Unmarshal([]byte("#\n"+text), &yaml.Node{})
	if err == nil {
		return "", 0, false
	}
	return problemOf(err), numberedLine(err.Error()), true
}

// leftOpen reports whether problem is about a string or flow collection
// never closed, which every cut of the text inside it raises too.
func leftOpen(problem string) bool {
	return problem == unclosedQuote || problem == "did not find expected ',' or ']'" || problem == "did not find expected ',' or '}'"
}

// withEntry is text with an entry added at its end, and its problem, when
// that makes noContent a flow collection left open, which yaml.v3 names
// where it begins. Else it is text and noContent.
func withEntry(text, problem string) (string, string) {
	more := text + "\nx"
	if p, _, ok := yamlMark(more); ok && leftOpen(p) {
		return more, p
	}
	return text, problem
}

// firstFailing is the first line of text, counted from 1, through which
// the text fails as a whole does: with problem, naming line named (as
// yamlMark does); 0 when no cut of it fails so. The parser reads from the
// start and stops at the first mistake, so a cut of the text before that
// line parses or fails otherwise (it ends inside a quoted string or a
// flow collection) and a cut after it fails the same way. hint is the
// line yaml.v3 named for the text as given: where what it was reading
// begins, at or before the mistake, or where it stopped, at or after it.
// The search goes up from just before hint, or from the first line when
// the text through the line before hint fails already.
func firstFailing(text, problem string, named, hint int) int {
	ends := lineEnds(text)
	if len(ends) == 0 {
		return 0
	}
	fails := func(line int) bool { // the text through line fails as a whole does
		p, n, ok := yamlMark(text[:ends[line-1]])
		return ok && p == problem && n == named
	}
	lo := min(max(hint-1, 1), len(ends))
	if lo > 1 && fails(lo-1) {
		lo = 1
	}
	hi := lo
	for step := 1; !fails(hi); step *= 2 { // the lines before lo pass
		if hi == len(ends) {
			return 0
		}
		lo, hi = hi+1, min(hi+step, len(ends))
	}
	return lo + sort.Search(hi-lo, func(i int) bool { return fails(lo + i) })
}

// notMapping is the line where the text before line begins a value other
// than a mapping (a first line with no colon, a "- item"), when it does:
// the mistake is there, not where the parser gave up on it. 0 otherwise.
func notMapping(text string, line int) int {
	ends := lineEnds(text)
	if line < 2 || line-2 >= len(ends) {
		return 0
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(text[:ends[line-2]]), &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	root := doc.Content[0]
	if root.Kind == yaml.MappingNode || root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return 0
	}
	return root.Line
}

// lineEnds is the offset in text just past each line.
func lineEnds(text string) []int {
	var ends []int
	for off := 0; off < len(text); {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return append(ends, len(text))
		}
		off += i + 1
		ends = append(ends, off)
	}
	return ends
}

// problemOf is what a YAML error says is wrong, without the "yaml: "
// and "line 3: " it starts with.
func problemOf(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if strings.HasPrefix(msg, "line ") {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
	}
	return msg
}

// numberedLine is the number a YAML error names ("yaml: line 3: …"); 0
// when it names none.
func numberedLine(msg string) int {
	var n int
	if rest, ok := strings.CutPrefix(strings.TrimPrefix(msg, "yaml: "), "line "); ok {
		fmt.Sscanf(rest, "%d", &n)
	}
	return n
}
