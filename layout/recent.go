package layout

import "time"

// RecentDays is how many days of daily logs the context builder injects
// directly: today and the six days before it. Recall indexes only dailies
// older than that, so every daily is reachable one way or the other.
const RecentDays = 7

// Day returns t's calendar date (in t's zone) as UTC midnight, the form
// File.Date uses.
func Day(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// InRecentWindow reports whether a daily log for day falls within the days
// most recent days ending at now (day and now are compared as dates).
// Days are counted on the calendar, so no number of days overflows.
func InRecentWindow(day, now time.Time, days int) bool {
	today, d := Day(now), Day(day)
	switch {
	case days <= 0 || d.After(today):
		return false
	case days > maxWindowDays:
		return true
	}
	return d.After(today.AddDate(0, 0, -days))
}

// maxWindowDays is a window longer than any calendar date tmem reads.
const maxWindowDays = 1 << 22
