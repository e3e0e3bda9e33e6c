package compact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/layout"
)

// Kind names what a summary unit produces.
type Kind string

// The kinds of unit a Summarizer is asked for.
const (
	KindWeekly  Kind = "weekly"  // daily logs of one ISO week → a weekly summary body
	KindMonthly Kind = "monthly" // weekly summaries of one month → a monthly summary body
	KindWisdom  Kind = "wisdom"  // similar typed memories → one WISDOM.md entry
)

// Source is one input of a summary: a daily log, a weekly summary or a
// typed memory.
type Source struct {
	Path  string // workspace-relative
	Label string // "2026-03-09", "2026-W11" or the memory's name
	Text  string // the file's body (frontmatter removed)
	// Where the full text can be read once compaction is done, relative
	// to the memory folder: "2026-03-09.md in archive/2026-03.md" (the
	// section of that archive file with the file's name), or the file
	// itself while it stays.
	Where string
}

// Request asks for one summary.
type Request struct {
	Kind     Kind
	Teammate string
	Unit     string // "2026-W11", "2026-03" or the wisdom entry's topic
	Period   string // "2026-03-09 to 2026-03-15"; empty for wisdom
	// Existing is the body of the summary the sources are merged into (a
	// weekly that gained a late daily, a monthly that gained a week);
	// empty when the summary is new.
	Existing string
	Sources  []Source
	// Budget is the summary's size limit in tokens (chars/4); 0 means the
	// default for its kind. Wisdom entries have none.
	Budget int
}

// key identifies a request by everything a summary depends on, so that an
// answer kept for later (a proposal) is used only for the same question.
func (r Request) key() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", r.Kind, r.Teammate, r.Unit, r.Existing)
	for _, s := range r.Sources {
		fmt.Fprintf(h, "%s\x00%s\x00", s.Path, s.Text)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Summarizer writes the body of a weekly or monthly summary, or one
// WISDOM.md entry ("## Title" then one to three sentences). It returns
// Markdown without frontmatter; the caller adds frontmatter and
// provenance.
type Summarizer interface {
	Summarize(ctx context.Context, req Request) (string, error)
}

// ErrInvalidOutput marks a summary that failed validation; the unit is
// aborted and its sources kept.
var ErrInvalidOutput = errors.New("invalid summary")

// Validate checks a summarizer's output for req: not empty, no
// frontmatter, parseable Markdown, not longer than its sources, and for
// wisdom an entry of one "##" heading and one to three sentences.
func Validate(req Request, out string) error {
	body := strings.TrimSpace(out)
	if body == "" {
		return fmt.Errorf("%w: empty", ErrInvalidOutput)
	}
	if strings.HasPrefix(body, "---") {
		return fmt.Errorf("%w: starts with frontmatter, want only the body", ErrInvalidOutput)
	}
	if _, err := layout.Parse(req.Unit, []byte(body)); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidOutput, err)
	}
	n := len(req.Existing)
	for _, s := range req.Sources {
		n += len(s.Text)
	}
	if len(body) > n {
		return fmt.Errorf("%w: %d bytes, longer than its %d bytes of sources", ErrInvalidOutput, len(body), n)
	}
	if req.Kind == KindWisdom {
		title, text, ok := splitEntry(body)
		if !ok || title == "" || text == "" {
			return fmt.Errorf("%w: want a \"## Title\" line followed by the entry text", ErrInvalidOutput)
		}
		if strings.Contains(text, "\n## ") || strings.Contains(text, "\n# ") {
			return fmt.Errorf("%w: more than one entry", ErrInvalidOutput)
		}
		if s := sentences(text); s < 1 || s > 3 {
			return fmt.Errorf("%w: %d sentences, want 1 to 3", ErrInvalidOutput, s)
		}
	}
	return nil
}

// splitEntry splits "## Title\n\ntext" into its title and text.
func splitEntry(s string) (title, text string, ok bool) {
	first, rest, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if !strings.HasPrefix(first, "## ") {
		return "", "", false
	}
	return strings.TrimSpace(first[3:]), strings.TrimSpace(rest), true
}

// sentences counts sentence ends in s, roughly.
func sentences(s string) int {
	n := 0
	f := strings.Fields(s)
	for i, w := range f {
		if strings.HasSuffix(w, ".") || strings.HasSuffix(w, "!") || strings.HasSuffix(w, "?") || i == len(f)-1 {
			n++
		}
	}
	return n
}
