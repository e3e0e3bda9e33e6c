package layout

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameLen bounds teammate names and topics.
const MaxNameLen = 64

// reserved holds names that cannot be files on some systems or that the
// layout itself uses.
var reserved = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true,
	"com6": true, "com7": true, "com8": true, "com9": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true,
	"lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
	"memory": true, "templates": true, "weekly": true, "monthly": true,
}

// ValidateName checks a teammate name: lowercase letters, digits, '-' and
// '_', starting with a letter or digit. It never rewrites the name, so that
// a caller cannot end up writing to another teammate than the one it named.
func ValidateName(name string) error {
	if err := checkUnsafe("teammate name", name); err != nil {
		return err
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || (i > 0 && (r == '-' || r == '_'))
		if !ok {
			return fmt.Errorf("teammate name %q: only lowercase letters, digits, '-' and '_' are allowed (starting with a letter or digit)", name)
		}
	}
	return nil
}

// ValidateRole checks a role for a new teammate: one line of valid UTF-8,
// as it goes into SOUL.md's frontmatter and title and the roster.
func ValidateRole(role string) error {
	if !utf8.ValidString(role) {
		return fmt.Errorf("role %q is not valid UTF-8", role)
	}
	for _, r := range role {
		if unicode.IsControl(r) {
			return fmt.Errorf("role %q contains a control character: a role is one line of text", role)
		}
	}
	return nil
}

// Slug turns a free-text topic into the snake_case form used in typed
// memory file names ("Deploy pipeline" → "deploy_pipeline"). It refuses,
// rather than rewrites, anything that looks like a path. Accented letters
// are composed first (NFC), so a topic typed decomposed, as macOS may
// give it, names the same file as one typed composed.
func Slug(topic string) (string, error) {
	if err := checkUnsafe("topic", topic); err != nil {
		return "", err
	}
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(norm.NFC.String(topic)) {
		switch {
		case unicode.Is(unicode.Mn, r) && b.Len() > 0 && !sep:
			b.WriteRune(r) // a mark with no composed form, on its letter
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '_' || r == '.' || r == '\t':
			sep = true
		default:
			return "", fmt.Errorf("topic %q: character %q is not allowed (use letters, digits, spaces, '-' or '_')", topic, r)
		}
	}
	s := b.String()
	if s == "" {
		return "", fmt.Errorf("topic %q: nothing left after removing separators", topic)
	}
	if reserved[s] {
		return "", fmt.Errorf("topic %q: %q is a reserved name", topic, s)
	}
	return s, nil
}

func checkUnsafe(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%s is empty", what)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s %q is not valid UTF-8", what, s)
	case strings.ContainsRune(s, 0):
		return fmt.Errorf("%s %q contains a NUL byte", what, s)
	case strings.Contains(s, ".."):
		return fmt.Errorf("%s %q contains '..': names cannot point outside their folder", what, s)
	case strings.ContainsAny(s, `/\`):
		return fmt.Errorf("%s %q contains a path separator", what, s)
	case strings.HasPrefix(s, "."):
		return fmt.Errorf("%s %q starts with '.': hidden names are reserved", what, s)
	case len(s) > MaxNameLen:
		return fmt.Errorf("%s %q is longer than %d bytes", what, s, MaxNameLen)
	case reserved[strings.ToLower(s)]:
		return fmt.Errorf("%s %q is a reserved name", what, s)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("%s %q contains a control character", what, s)
		}
	}
	return nil
}
