package secrets

import (
	"fmt"
	"sort"
	"strings"
)

// Finding is one secret in a text.
type Finding struct {
	Rule string // rule id, e.g. "github-pat"
	Kind string // what Redact writes: "[REDACTED:" + Kind + "]"
	Name string // for people, with its article: "a GitHub token"
	// Verified is set when the secret carries a checksum that holds
	// (GitHub's classic tokens): it is certainly a real token's format.
	Verified bool
	// Start and End are byte offsets: the secret is text[Start:End].
	Start, End int
	// Line and Col locate Start, EndLine and EndCol locate End; all
	// 1-based, columns count bytes.
	Line, Col       int
	EndLine, EndCol int
}

// String describes the finding for a message: "line 3: looks like a
// GitHub token (github-pat)".
func (f Finding) String() string {
	return fmt.Sprintf("line %d: %s", f.Line, f.Describe())
}

// Describe says what the secret looks like, without its position.
func (f Finding) Describe() string {
	return "looks like " + f.Name + " (" + f.Rule + ")"
}

// Marker is what Redact writes in place of a secret of this kind.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// Scan returns the secrets in text, in order. Where two rules match
// overlapping text, the match that starts first (then the longer one)
// wins.
func Scan(text string) []Finding {
	s := &scan{text: text, named: map[int]bool{}}
	cands := s.candidates()
	out := resolve(cands)
	locate(text, out)
	return out
}

// Redact returns text with every secret replaced by its marker
// ("[REDACTED:kind]"), and the findings of text. Text without findings
// comes back unchanged, and redacted text has no findings left.
func Redact(text string) (string, []Finding) {
	fs := Scan(text)
	if len(fs) == 0 {
		return text, nil
	}
	return replace(text, fs), fs
}

// RedactLines is Redact keeping every line where it was: a secret over
// several lines (a private key) leaves its marker on its first line and
// the others empty, so that line numbers still point into the file.
func RedactLines(text string) (string, []Finding) {
	return RedactRange(text, 0, len(text))
}

// RedactRange is RedactLines for text[start:end], with the findings that
// reach into it. The secrets are looked for in all of text, so one that
// start or end cuts is found whole, and none of it is shown.
func RedactRange(text string, start, end int) (string, []Finding) {
	var b strings.Builder
	var found []Finding
	at := start
	for _, f := range Scan(text) {
		if f.End <= start || f.Start >= end {
			continue
		}
		from := max(at, f.Start)
		b.WriteString(text[at:from])
		b.WriteString(Marker(f.Kind))
		at = min(f.End, end)
		b.WriteString(strings.Repeat("\n", strings.Count(text[from:at], "\n")))
		found = append(found, f)
	}
	if found == nil {
		return text[start:end], nil
	}
	b.WriteString(text[at:end])
	return b.String(), found
}

// replace swaps each finding's span for its marker; fs is sorted and
// does not overlap.
func replace(text string, fs []Finding) string {
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, f := range fs {
		b.WriteString(text[at:f.Start])
		b.WriteString(Marker(f.Kind))
		at = f.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// resolve keeps non-overlapping candidates: earliest start first, then
// the longest, then the rule listed first, then the one found first.
func resolve(cands []candidate) []Finding {
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		switch {
		case a.Start != b.Start:
			return a.Start < b.Start
		case a.End != b.End:
			return a.End > b.End
		}
		return a.rank < b.rank
	})
	var out []Finding
	end := -1
	for _, c := range cands {
		if c.Start >= end {
			out = append(out, c.Finding)
			end = c.End
		}
	}
	return out
}

// locate fills in lines and columns of sorted, non-overlapping findings
// in one pass.
func locate(text string, fs []Finding) {
	line, lineStart, at := 1, 0, 0
	advance := func(to int) (int, int) {
		for at < to {
			i := strings.IndexByte(text[at:to], '\n')
			if i < 0 {
				at = to
				break
			}
			at += i + 1
			line, lineStart = line+1, at
		}
		return line, to - lineStart + 1
	}
	for i := range fs {
		fs[i].Line, fs[i].Col = advance(fs[i].Start)
		fs[i].EndLine, fs[i].EndCol = advance(fs[i].End)
	}
}
