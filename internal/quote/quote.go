package quote

import (
	"strconv"
	"unicode/utf8"
)

// IfNeeded returns s as it is when it is valid UTF-8 of printable
// characters and plain spaces, and quoted as Go quotes a string otherwise:
// "beacon/SOUL.md" stays as it is, "a\x00b.md" comes back as "\"a\\x00b.md\"".
func IfNeeded(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
