package layout

import (
	"time"

	"github.com/tmemhq/tmem/internal/lazyregexp"
)

// RecentDays is how many days of daily logs the context builder injects
// directly: today and the six days before it. Recall indexes every daily
// but today's, and leaves out of the context builder's query the entries
// its stack shows.
const RecentDays = 7

// Day returns t's calendar date (in t's zone) as UTC midnight, the form
// File.Date uses.
func Day(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// InRecentWindow reports whether a daily log for day falls within the days
// most recent days ending at now (day and now are compared as dates), or
// after them up to LatestDay(now): a log written by a clock in a zone ahead
// (the evening in New York is the next morning in UTC) is as recent as
// today's, and is shown, not dropped as future. Days are counted on the
// calendar, so no number of days overflows.
func InRecentWindow(day, now time.Time, days int) bool {
	today, d := Day(now), Day(day)
	switch {
	case days <= 0 || d.After(LatestDay(now)):
		return false
	case days > maxWindowDays:
		return true
	}
	return d.After(today.AddDate(0, 0, -days))
}

// LatestDay is the date it is at now somewhere on Earth: in the zone
// furthest ahead, UTC+14. A daily dated after it cannot have been written
// by any clock yet; one dated up to it can, in a zone ahead of now's.
func LatestDay(now time.Time) time.Time {
	return Day(now.In(furthestAhead))
}

var furthestAhead = time.FixedZone("UTC+14", 14*3600)

// maxWindowDays is a window longer than any calendar date tmem reads.
const maxWindowDays = 1 << 22

// dayHeading reads a heading that starts with a day: its date first, as
// tmem writes it ("2026-11-02 Monday"), or after a weekday, as a person
// may rewrite it ("Mon 2026-11-02", "Monday, 2026-11-02").
var dayHeading = lazyregexp.New(`^(?:(?i:mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\.?,?\s+)?(\d{4}-\d{2}-\d{2})\b`)

// HeadingDay returns the day (YYYY-MM-DD) a heading or title starts with,
// read as dayHeading does; ok is false when it starts with none.
func HeadingDay(heading string) (day string, ok bool) {
	if m := dayHeading().FindStringSubmatch(heading); m != nil {
		return m[1], true
	}
	return "", false
}

// TitleNamesAnotherDay reports whether a daily log's title starts with a
// day other than day, the log's by its file name: a log copied or linked
// from another day. A title without a day ("Notes") or with the day
// written after a weekday ("Fri 2026-11-06") or followed by more words
// ("2026-11-06 — release day") names no other.
func TitleNamesAnotherDay(title, day string) bool {
	d, ok := HeadingDay(title)
	return ok && d != day
}
