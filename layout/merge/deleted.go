package merge

import (
	"fmt"
	"strings"
)

// Deleted settles a daily log that one side deleted (compaction folded it
// into a summary and the archive) while the other side, kept, appended to
// it: the result holds the title and only the entries kept added since
// base, for the next compaction to fold in. n is how many; with none the
// deletion stands (data is nil).
func Deleted(path string, base, kept []byte) (data []byte, n int, err error) {
	b, okb := splitDoc(path, base)
	k, okk := splitDoc(path, kept)
	if !okb || !okk {
		return nil, 0, fmt.Errorf("merge %s: a version does not parse as a daily log, settle it by hand", path)
	}
	old := map[string]bool{}
	for _, u := range b.units {
		old[u.id] = true
	}
	parts := []string{}
	if k.preamble != "" {
		parts = append(parts, k.preamble)
	}
	for _, u := range k.units {
		if !old[u.id] {
			parts = append(parts, u.text)
			n++
		}
	}
	if n == 0 {
		return nil, 0, nil
	}
	return []byte(strings.Join(parts, "\n\n") + "\n"), n, nil
}
