package layout

import (
	"fmt"
	"time"
)

// Week is an ISO 8601 week: weeks start on Monday and belong to the year
// that holds their Thursday.
type Week struct {
	Year int
	Num  int
}

// WeekOf returns the ISO week that holds t.
func WeekOf(t time.Time) Week {
	y, w := t.ISOWeek()
	return Week{y, w}
}

// ParseWeek parses "2026-W07" and checks the week exists in that year.
func ParseWeek(s string) (Week, error) {
	var w Week
	if len(s) != 8 || s[4] != '-' || s[5] != 'W' {
		return w, fmt.Errorf("week %q: want YYYY-Wnn", s)
	}
	if _, err := fmt.Sscanf(s, "%04d-W%02d", &w.Year, &w.Num); err != nil {
		return w, fmt.Errorf("week %q: want YYYY-Wnn", s)
	}
	if w.Year < 1 {
		return w, fmt.Errorf("week %q: there is no year 0", s)
	}
	if w.Num < 1 || w.Num > WeeksInYear(w.Year) {
		return w, fmt.Errorf("week %q does not exist: %d has %d ISO weeks", s, w.Year, WeeksInYear(w.Year))
	}
	return w, nil
}

// WeeksInYear returns 52 or 53: the ISO week of 28 December.
func WeeksInYear(year int) int {
	_, w := time.Date(year, 12, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

func (w Week) String() string { return fmt.Sprintf("%04d-W%02d", w.Year, w.Num) }

// Start returns the Monday of the week (UTC midnight).
func (w Week) Start() time.Time {
	jan4 := time.Date(w.Year, 1, 4, 0, 0, 0, 0, time.UTC)
	mon := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
	return mon.AddDate(0, 0, 7*(w.Num-1))
}

// End returns the Sunday of the week.
func (w Week) End() time.Time { return w.Start().AddDate(0, 0, 6) }

// Thursday returns the week's Thursday, which decides its year and month.
func (w Week) Thursday() time.Time { return w.Start().AddDate(0, 0, 3) }

// Next returns the following week.
func (w Week) Next() Week { return WeekOf(w.Start().AddDate(0, 0, 7)) }

// Before reports whether w comes before o.
func (w Week) Before(o Week) bool {
	return w.Year < o.Year || w.Year == o.Year && w.Num < o.Num
}

// DateLayout is the layout of dates in file names and titles.
const DateLayout = "2006-01-02"

// Period formats the "YYYY-MM-DD to YYYY-MM-DD" frontmatter value.
func Period(from, to time.Time) string {
	return from.Format(DateLayout) + " to " + to.Format(DateLayout)
}

// ParsePeriod parses a Period value.
func ParsePeriod(s string) (from, to time.Time, err error) {
	var a, b string
	if _, err = fmt.Sscanf(s, "%s to %s", &a, &b); err != nil {
		return from, to, fmt.Errorf("period %q: want YYYY-MM-DD to YYYY-MM-DD", s)
	}
	if from, err = time.Parse(DateLayout, a); err != nil {
		return from, to, fmt.Errorf("period %q: %w", s, err)
	}
	if to, err = time.Parse(DateLayout, b); err != nil {
		return from, to, fmt.Errorf("period %q: %w", s, err)
	}
	if to.Before(from) {
		return from, to, fmt.Errorf("period %q ends before it starts", s)
	}
	return from, to, nil
}
