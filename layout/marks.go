package layout

import (
	"bytes"

	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/lazyregexp"
)

// Two kinds of lines in a memory file are not memory text: the stamp tmem
// writes under an entry it appends, and the conflict markers a merge can
// leave behind. Parse reads past both, so recall and the prompt stack never
// show them; Doc.Bytes keeps them, byte for byte.
//
//	## Fixed flaky sync test
//	<!-- tmem:at 2026-03-09T14:02:11Z -->
//
// A stamp gives the time the entry was written (RFC 3339, UTC, seconds), so
// that a merge of two machines' appends can order their entries in time.

// StampTime is the layout of the time in an entry stamp.
const StampTime = "2006-01-02T15:04:05Z"

var (
	stampLine    = lazyregexp.New(`^<!-- tmem:at (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) -->$`)
	conflictOpen = lazyregexp.New(`^<{7}(?: |$)`)
	conflictMid  = lazyregexp.New(`^(?:={7}|\|{7}(?: .*)?)$`)
	conflictEnd  = lazyregexp.New(`^>{7}(?: |$)`)
)

// Stamp returns the stamp line (without its newline) for an entry written
// at t.
func Stamp(t time.Time) string {
	return "<!-- tmem:at " + t.UTC().Format(StampTime) + " -->"
}

// StampOf returns the time of a stamp line as written ("" when line is not
// a stamp).
func StampOf(line string) string {
	m := stampLine().FindStringSubmatch(strings.TrimRight(line, " \t\r"))
	if m == nil {
		return ""
	}
	return m[1]
}

// ConflictMarkers returns the 1-based lines of src that are merge conflict
// markers ("<<<<<<< ", "||||||| ", "=======", ">>>>>>> "). A line of seven
// "=" counts only inside an opened conflict, since it is also a Markdown
// heading underline.
func ConflictMarkers(src []byte) []int {
	var out []int
	open := false
	for i, l := range strings.Split(string(src), "\n") {
		l = strings.TrimRight(l, "\r")
		switch {
		case conflictOpen().MatchString(l):
			open = true
		case open && conflictMid().MatchString(l):
		case open && conflictEnd().MatchString(l):
			open = false
		default:
			continue
		}
		out = append(out, i+1)
	}
	return out
}

// readable returns the lines of body without the CR of CRLF endings and
// with stamps and conflict markers blanked, the stamps by 0-based line,
// and whether any line was changed. A body with none of these (most
// files) costs one scan for a CR and one for each marker's opening
// characters.
func readable(body []byte) (lines []string, stamps map[int]string, changed bool) {
	lines = strings.Split(string(body), "\n")
	if bytes.IndexByte(body, '\r') >= 0 {
		for i, l := range lines {
			if t, ok := strings.CutSuffix(l, "\r"); ok {
				lines[i], changed = t, true
			}
		}
	}
	if !bytes.Contains(body, []byte("<!-- tmem:at ")) && !bytes.Contains(body, []byte("<<<<<<<")) {
		return lines, nil, changed
	}
	for _, ln := range ConflictMarkers(body) {
		lines[ln-1], changed = "", true
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "<!-- tmem:at ") {
			continue
		}
		if at := StampOf(l); at != "" {
			if stamps == nil {
				stamps = map[int]string{}
			}
			stamps[i], lines[i], changed = at, "", true
		}
	}
	return lines, stamps, changed
}

// LastStamp returns the time of the newest stamp in d's body; zero when it
// has none.
func (d *Doc) LastStamp() time.Time {
	_, stamps, _ := readable(d.Body)
	var last time.Time
	for _, at := range stamps {
		if t, err := time.Parse(StampTime, at); err == nil && t.After(last) {
			last = t
		}
	}
	return last
}

// ReadableBody returns the body with LF line endings and stamp lines and
// conflict markers blanked, line for line, for callers that show the body
// whole: d.Body itself when there is nothing to change, so it must not be
// modified.
func (d *Doc) ReadableBody() []byte {
	lines, _, changed := readable(d.Body)
	if !changed {
		return d.Body
	}
	return []byte(strings.Join(lines, "\n"))
}
