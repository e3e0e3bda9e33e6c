package layout

import (
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
		msg := s.Describe() + ": remove it from the file (and from git history if committed) and rotate it"
		out = append(out, Finding{Path: path, Line: s.Line, Severity: SevError, Message: msg})
	}
	return out
}
