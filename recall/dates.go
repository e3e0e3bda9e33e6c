package recall

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// Dates are indexed as tokens in their own field, so "what happened on
// 2026-06-03" or "in the first week of March 2026" finds the daily,
// weekly summary or dated memory that covers that time, whatever words it
// uses:
//
//	d20260603  a day     w2026w23  an ISO week     m202606  a month
//	y2026      a year    mo06      June of any year
//
// A daily or dated memory gets its day, week, month and year; a weekly
// summary its week and each of its seven days and their months; a monthly
// summary its month. Each also gets its months of no year, for "in June"
// asked without one. The dates a chunk's text names are added too
// (mentionTokens), "last Friday" counted from the entry's own day.

func dayToken(t time.Time) string   { return "d" + t.Format("20060102") }
func monthToken(t time.Time) string { return "m" + t.Format("200601") }
func yearToken(y int) string        { return "y" + strconv.Itoa(y) }
func monthOfYearToken(m time.Month) string {
	return fmt.Sprintf("mo%02d", int(m))
}
func weekToken(t time.Time) string {
	w := layout.WeekOf(t)
	return fmt.Sprintf("w%04dw%02d", w.Year, w.Num)
}

// whenTokens are the date tokens of a chunk.
func whenTokens(kind, date string) string {
	t := dateOf(date)
	if t.IsZero() || !inYears(t) {
		return ""
	}
	var s dateSink
	var months []time.Time
	month := func(d time.Time) {
		s.add(monthToken(d))
		months = append(months, d)
	}
	switch kind {
	case "weekly":
		start := layout.WeekOf(t).Start()
		s.add(weekToken(start))
		for i := 0; i < 7; i++ {
			d := start.AddDate(0, 0, i)
			s.add(dayToken(d))
			month(d)
		}
	case "monthly":
		month(t)
	default:
		s.add(dayToken(t))
		s.add(weekToken(t))
		month(t)
	}
	for _, m := range months {
		s.add(monthOfYearToken(m.Month()))
		s.year(m.Year())
	}
	return strings.Join(s.out, " ")
}

// headingDate is a date stamp in a breadcrumb: a daily's or summary's
// title (2026-06-03, 2026-W23, 2026-06) or an entry's heading.
var headingDate = regexp.MustCompile(`\b\d{4}-(?:\d{2}-\d{2}|[wW]\d{2}|\d{2})\b`)

// headingWords is a heading as its words are indexed: without date
// stamps, which the chunk's date tokens stand for. Read as words, the year
// of every heading would count for every chunk of that year, on top of
// its date.
func headingWords(h string) string {
	return headingDate.ReplaceAllString(h, " ")
}

// dateSink collects the date tokens of what a dateReader finds, each
// once. A query's week asks for the week and each of its days (a daily
// holds its day); a chunk's mention of a week is the week alone.
type dateSink struct {
	expandWeeks bool
	max         int // stop adding past this many tokens; 0 means no limit
	seen        map[string]bool
	out         []string
}

func (s *dateSink) full() bool { return s.max > 0 && len(s.out) >= s.max }

func (s *dateSink) add(tok string) {
	if s.seen[tok] || s.full() {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[tok] = true
	s.out = append(s.out, tok)
}

// inYears reports whether t is in the years 1 to 9999, those a daily's
// name can hold: the only dates that get tokens. A relative phrase can
// reach outside them from a date near their ends.
func inYears(t time.Time) bool { return t.Year() >= 1 && t.Year() <= 9999 }

func (s *dateSink) week(t time.Time) {
	if !inYears(t) {
		return
	}
	s.add(weekToken(t))
	if s.expandWeeks {
		start := layout.WeekOf(t).Start()
		for i := 0; i < 7; i++ {
			s.add(dayToken(start.AddDate(0, 0, i)))
		}
	}
}

// maxRangeDays is the longest range asked for day by day; a longer one
// is asked for by its months, and one over maxRangeMonths by its years.
const (
	maxRangeDays   = 62
	maxRangeMonths = 36
)

// days adds the days from..to, or their months or years when there are
// too many.
func (s *dateSink) days(from, to time.Time) {
	switch span := to.Sub(from); {
	case span > maxRangeMonths*31*24*time.Hour:
		for y := from.Year(); y <= to.Year() && !s.full(); y++ {
			s.year(y)
		}
		return
	case span > maxRangeDays*24*time.Hour:
		for t := utcDay(from.Year(), from.Month(), 1); !t.After(to); t = t.AddDate(0, 1, 0) {
			s.month(t.Year(), t.Month())
		}
		return
	}
	for t := from; !t.After(to); t = t.AddDate(0, 0, 1) {
		if inYears(t) {
			s.add(dayToken(t))
		}
	}
}

func (s *dateSink) month(y int, m time.Month) {
	if t := utcDay(y, m, 1); inYears(t) {
		s.add(monthToken(t))
	}
}

func (s *dateSink) year(y int) {
	if y >= 1 && y <= 9999 {
		s.add(yearToken(y))
	}
}

// monthsOfYear adds the months from..to of no year, wrapping at December.
func (s *dateSink) monthsOfYear(from, to time.Month) {
	for m := from; ; m = wrapMonth(m + 1) {
		s.add(monthOfYearToken(m))
		if m == to {
			return
		}
	}
}

// queryWhen finds dates in a query and returns the tokens that match
// chunks covering them; now completes phrases that leave out the year or
// are relative ("last Friday"), and may be zero.
func queryWhen(q string, now time.Time) []string {
	s := &dateSink{expandWeeks: true, max: maxQueryDates}
	r := dateReader{ref: dayOf(now), past: true, sink: s}
	r.read(q)
	return s.out
}

// maxQueryDates bounds the date tokens of a query, whatever ranges it
// names, so that a short query cannot ask for thousands of terms.
const maxQueryDates = 256

// maxMentions bounds the date tokens a chunk's text adds, so a list of
// dates cannot outweigh the chunk's own.
const maxMentions = 16

// mentionTokens are the date tokens of the dates a chunk's text names.
// Relative phrases count from the chunk's date when that is a day (a
// daily's entry, a dated memory), and are skipped in a summary, whose
// date is its period's start.
func mentionTokens(kind, date, text string) []string {
	ref := dateOf(date)
	if kind == "weekly" || kind == "monthly" {
		ref = time.Time{}
	}
	s := &dateSink{max: maxMentions}
	r := dateReader{ref: ref, sink: s}
	r.read(text)
	return s.out
}

// dayOf is t's calendar day, as midnight UTC; zero stays zero.
func dayOf(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return utcDay(t.Year(), t.Month(), t.Day())
}
