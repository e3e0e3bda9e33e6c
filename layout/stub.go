package layout

import (
	"bytes"
	"time"
)

// A daily log that compaction summarised and archived is not deleted at
// once but left as a stub: its title and one comment line pointing at
// where its text went. Git runs a merge driver only on a file both sides
// still have; a daily deleted on one machine and appended to on another
// is a modify/delete conflict that stops the merge. With the stub in
// place the driver merges the two (layout/merge) and keeps the appended
// entries under the stub, for the next compaction to fold in. The stub
// depends on the day alone, so machines that compacted the same day wrote
// the same bytes. Compaction deletes a stub once it is old enough that no
// machine is likely to append to that day any more.

// stubLine starts the comment line of a stub.
const stubLine = "<!-- tmem:compacted"

// DailyStub returns the stub compaction leaves of the daily log of day;
// archived says whether its text went to the archive.
func DailyStub(day time.Time, archived bool) []byte {
	where := ""
	if archived {
		where = "; its full text is in " + ArchiveDir + "/" + day.Format("2006-01") + ".md"
	}
	return []byte("# " + day.Format(DateLayout) + "\n\n" + stubLine + ": summarised into weekly/ or monthly/" + where + " -->\n")
}

// HasStub reports whether a daily log holds a stub's line: compaction
// summarised it, and any entries it holds were appended since.
func HasStub(src []byte) bool {
	for _, l := range bytes.Split(src, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(l), []byte(stubLine)) {
			return true
		}
	}
	return false
}

// IsBareStub reports whether src is exactly a stub of the daily of day,
// with nothing appended since.
func IsBareStub(day time.Time, src []byte) bool {
	return bytes.Equal(src, DailyStub(day, true)) || bytes.Equal(src, DailyStub(day, false))
}
