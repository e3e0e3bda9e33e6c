package context

import (
	"fmt"
	"strings"

	"github.com/tmemhq/tmem/internal/secrets"
)

// Redaction is a secret the stack shows as "[REDACTED:kind]" instead of
// the text of its file.
type Redaction struct {
	Section string `json:"section"`
	Path    string `json:"path"`
	// Line is the secret's line in the file; for a recalled memory, the
	// hit's first line; 0 when not known (a role in the roster).
	Line int    `json:"line"`
	Rule string `json:"rule"` // what matched, e.g. "github-pat"
}

// redact returns text with its secrets replaced, and a Redaction for each
// one, located in path from line, the line of text's first line (0 when
// not known).
func redact(section, path string, line int, text string) (string, []Redaction) {
	out, found := secrets.Redact(text)
	var rs []Redaction
	for _, f := range found {
		r := Redaction{Section: section, Path: path, Rule: f.Rule}
		if line > 0 {
			r.Line = line + f.Line - 1
		}
		rs = append(rs, r)
	}
	return out, rs
}

// noteRedactions says in the manifest's notes where secrets were hidden.
func (b *builder) noteRedactions() {
	rs := b.man.Redactions
	if len(rs) == 0 {
		return
	}
	var where []string
	for _, r := range rs {
		at := r.Path
		if r.Line > 0 {
			at = fmt.Sprintf("%s:%d", r.Path, r.Line)
		}
		where = append(where, at+" ("+r.Rule+")")
	}
	b.man.Notes = append(b.man.Notes, fmt.Sprintf("%d secret(s) shown as [REDACTED:kind]: %s; remove them from the files (tmem doctor lists them)",
		len(rs), strings.Join(where, ", ")))
}
