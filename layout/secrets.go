package layout

import (
	"bytes"
	"fmt"

	"github.com/tmemhq/tmem/internal/secrets"
)

// WriteOption changes how AppendDaily and WriteMemory write.
type WriteOption int

// AllowSecrets writes text even when it looks like it holds a secret
// (see CheckSecrets).
const AllowSecrets WriteOption = 1

// Stamped writes a stamp line (see Stamp) under the entry AppendDaily
// appends and above the body WriteMemory writes or appends, so that a merge
// of two machines' writes can order them in time.
const Stamped WriteOption = 2

func allowed(opts []WriteOption, o WriteOption) bool {
	for _, x := range opts {
		if x == o {
			return true
		}
	}
	return false
}

// SecretError refuses a write whose text looks like it holds a secret.
type SecretError struct {
	Field string // what was being written: "entry", "heading", "name", …
	Line  int    // line within the field, 1-based; 0 for one-line fields
	Rule  string // the rule that matched, e.g. "github-pat"
	What  string // what it looks like: "looks like a GitHub token (github-pat)"
}

func (e *SecretError) Error() string {
	where := e.Field
	if e.Line > 0 {
		where = fmt.Sprintf("%s line %d", e.Field, e.Line)
	}
	return where + ": " + e.What + ": refusing to write a secret"
}

// CheckSecrets returns a *SecretError for the first secret in text (a
// private key, a cloud or forge token, a JWT, a random value assigned to
// a password- or key-like name), naming field and, when multiline, the
// line. Every writer of memory text calls it, so that secrets do not
// spread into files that are committed and injected into prompts.
func CheckSecrets(field, text string, multiline bool) error {
	fs := secrets.Scan(text)
	if len(fs) == 0 {
		return nil
	}
	e := &SecretError{Field: field, Rule: fs[0].Rule, What: fs[0].Describe()}
	if multiline {
		e.Line = fs[0].Line
	}
	return e
}

// field is one piece of text a write checks.
type field struct {
	name, text string
	multiline  bool
}

// checkSecrets checks each field in turn, unless opts allow secrets.
func checkSecrets(opts []WriteOption, fields ...field) error {
	if allowed(opts, AllowSecrets) {
		return nil
	}
	for _, f := range fields {
		if err := CheckSecrets(f.name, f.text, f.multiline); err != nil {
			return err
		}
	}
	return nil
}

// secretFindings reports the secrets already in a memory file.
func secretFindings(path string, src []byte) []Finding {
	var out []Finding
	for _, s := range secrets.Scan(string(src)) {
		out = append(out, secretFinding(path, s, ""))
	}
	return out
}

// archiveSecretFindings reports the secrets in an archive file at the
// archive's own lines, naming the archived file each lies in; secs are
// its sections, in order. The file is scanned piece by piece (each
// section's text, and the lines between sections: headers, end markers,
// whatever a person added), so that a month of large sections scans in
// time linear in its size.
func archiveSecretFindings(path string, src []byte, secs []ArchiveSection) []Finding {
	var out []Finding
	scan := func(text string, line int, in string) {
		for _, s := range secrets.Scan(text) {
			s.Line += line - 1
			out = append(out, secretFinding(path, s, in))
		}
	}
	lc := lineCursor{src: src, line: 1}
	at, atLine := 0, 1
	for _, s := range secs {
		scan(string(src[at:lc.start(s.Header+1)]), atLine, "")
		scan(s.Text, s.Header+1, "in the archived "+s.Source) // the file's bytes from line Header+1
		at, atLine = lc.start(s.Header+1+s.Lines), s.Header+1+s.Lines
	}
	scan(string(src[at:]), atLine, "")
	return out
}

// lineCursor finds where lines start in src, moving forward only.
type lineCursor struct {
	src       []byte
	line, pos int // pos is where line starts
}

// start returns the offset where line n starts (len(src) past the end);
// n must not be before the last line asked for.
func (c *lineCursor) start(n int) int {
	for c.line < n && c.pos < len(c.src) {
		i := bytes.IndexByte(c.src[c.pos:], '\n')
		if i < 0 {
			c.pos = len(c.src)
			break
		}
		c.pos += i + 1
		c.line++
	}
	return c.pos
}

// secretFinding is the finding for the secret s of the file path; in,
// when set, says where in the file it lies.
func secretFinding(path string, s secrets.Finding, in string) Finding {
	msg := s.Describe()
	if in != "" {
		msg += ", " + in
	}
	msg += ": remove it from the file (and from git history if committed) and rotate it"
	return Finding{Path: path, Line: s.Line, Severity: SevError, Message: msg}
}
