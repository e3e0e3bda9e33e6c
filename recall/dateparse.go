package recall

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tmemhq/tmem/internal/lazyregexp"
	"github.com/tmemhq/tmem/layout"
)

// dateReader finds the dates a text names and hands them to a sink as
// days, weeks, months, years or months of no year in particular. Phrases
// that leave something out are completed from ref, the day the text speaks
// from: a query's today, or the date of the entry a line was written in.
// A date that names no year takes the year that puts it on or before ref
// (past, for questions about what happened) or nearest to ref (a log line
// can speak of next week as well as of last week). "Yesterday", "last
// Friday" or "two weeks ago" need ref and are skipped without it.
type dateReader struct {
	ref  time.Time // midnight UTC of the day; zero when unknown
	past bool
	sink *dateSink
}

// dateRule is one phrasing: a pattern, the anchor words it needs, and
// what its match means. Rules run in order, each over what the earlier
// ones left: a matched phrase is blanked out, so "May 3–7, 2023" is one
// range, not also "7, 2023".
type dateRule struct {
	need  anchor
	re    func() *regexp.Regexp // compiled on first use: a query names few dates
	apply func(r *dateReader, m []string) bool
}

// anchor is a kind of word every date phrase holds at least one of; text
// far from all of them is never matched against the patterns, which is
// what keeps indexing fast.
type anchor uint16

const (
	aYear    anchor = 1 << iota // 1900–2099
	aMonth                      // a month's name or abbreviation
	aWeekday                    // monday … sunday
	aSeason                     // spring … winter
	aDay                        // yesterday, today, tonight, tomorrow
	aPeriod                     // week, weekend, month, year
	aAgo                        // ago, earlier
	// Not anchors of their own, but needed beside one by some rules.
	aDigit // any digit
	aRel   // last, this, next, coming, past
)

var anchorWords = map[string]anchor{
	"yesterday": aDay, "today": aDay, "tonight": aDay, "tomorrow": aDay,
	"week": aPeriod, "weekend": aPeriod, "month": aPeriod, "year": aPeriod,
	"ago": aAgo, "earlier": aAgo,
	"spring": aSeason, "summer": aSeason, "fall": aSeason, "autumn": aSeason, "winter": aSeason,
}

func init() {
	for wd := time.Sunday; wd <= time.Saturday; wd++ {
		anchorWords[strings.ToLower(wd.String())] = aWeekday
	}
	for m := time.January; m <= time.December; m++ {
		anchorWords[strings.ToLower(m.String())] = aMonth
		anchorWords[strings.ToLower(m.String())[:3]] = aMonth
	}
	anchorWords["sept"] = aMonth
}

var relWords = map[string]bool{"last": true, "this": true, "next": true, "coming": true, "past": true}

// window is a stretch of text around anchors, and which kinds they are.
type window struct {
	from, to int
	has      anchor
}

// windowReach is how far a date phrase reaches from its anchor: "between
// the 11th and 15th of August" starts 28 bytes before "august".
const windowReach = 48

// maxWindow bounds a stretch of merged windows, so that text dense with
// anchors ("may may may …") is read in pieces the patterns run over
// quickly; a phrase cut at a piece's edge is read whole in the next.
const maxWindow = 512

// anchorWindows finds the anchors of lower-cased text and returns the
// stretches around them, merged where they overlap, each starting and
// ending at white space so no word is cut.
func anchorWindows(b []byte) []window {
	var out []window
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && isAlnum(b[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		if a := anchorOf(b[i:j]); a != 0 {
			from, to := max(0, i-windowReach), min(len(b), j+windowReach)
			for from > 0 && b[from-1] != ' ' && b[from-1] != '\n' && b[from-1] != '\t' {
				from--
			}
			for to < len(b) && b[to] != ' ' && b[to] != '\n' && b[to] != '\t' {
				to++
			}
			if n := len(out); n > 0 && from <= out[n-1].to && to-out[n-1].from <= maxWindow {
				out[n-1].to, out[n-1].has = max(out[n-1].to, to), out[n-1].has|a
			} else {
				out = append(out, window{from, to, a})
			}
		}
		i = j
	}
	for i := range out {
		out[i].has |= nearby(b[out[i].from:out[i].to])
	}
	return out
}

// nearby says whether a window holds a digit or one of relWords.
func nearby(b []byte) anchor {
	var has anchor
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && isAlnum(b[j]) {
			if b[j] <= '9' {
				has |= aDigit
			}
			j++
		}
		if j > i && relWords[string(b[i:j])] {
			has |= aRel
		}
		i = j + 1
	}
	return has
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func anchorOf(w []byte) anchor {
	if len(w) == 4 && (w[0] == '1' && w[1] == '9' || w[0] == '2' && w[1] == '0') && isDigits(w) {
		return aYear
	}
	return anchorWords[string(w)]
}

func isDigits(w []byte) bool {
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxDateScan bounds the bytes the patterns read in one text: a chunk
// holds far fewer around its anchors, a text made of anchors ("may may
// may …", 4 µs a byte) is read no further.
const maxDateScan = 2048

// read finds the dates in s.
func (r *dateReader) read(s string) {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	scanned := 0
	for _, w := range anchorWindows(b) {
		if r.sink.full() || scanned > maxDateScan {
			return
		}
		r.readWindow(b[w.from:w.to], w.has)
		scanned += w.to - w.from
	}
}

// readWindow runs the rules whose anchors w has over it.
func (r *dateReader) readWindow(b []byte, has anchor) {
	for _, rule := range dateRules {
		if rule.need&has != rule.need {
			continue
		}
		for _, ix := range rule.re().FindAllSubmatchIndex(b, -1) {
			m := make([]string, len(ix)/2)
			for i := range m {
				if ix[2*i] >= 0 {
					m[i] = string(b[ix[2*i]:ix[2*i+1]])
				}
			}
			if rule.apply(r, m) {
				for i := ix[0]; i < ix[1]; i++ {
					b[i] = ' '
				}
			}
		}
	}
}

// Pieces of the patterns.
const (
	monthAlt = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	fullMon  = `(?:january|february|march|april|may|june|july|august|september|sept|october|november|december)`
	dayNum   = `(\d{1,2})(?:st|nd|rd|th)?`
	yearNum  = `((?:19|20)\d{2})`
	rangeTo  = `\s*(-|–|—|to|until|till|through|thru|and)\s*`
	weekPre  = `(\bweek\s+(?:before|after|of)\s+(?:the\s+)?)?`
	season   = `(spring|summer|fall|autumn|winter)`
	weekday  = `(monday|tuesday|wednesday|thursday|friday|saturday|sunday)`
	countNum = `(\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+couple\s+of|couple\s+of)`
)

// re compiles a pattern on its first use; the text it runs on is
// lower-cased first.
func re(p string) func() *regexp.Regexp { return lazyregexp.New(p) }

// dateRules are tried in this order: ranges before the days they are made
// of, a week or part of a month before its month, relative phrases before
// bare month and season names.
var dateRules = []dateRule{
	{aYear, re(`\b(between\s+|from\s+)?(\d{4})-(\d{2})-(\d{2})` + rangeTo + `(\d{4})-(\d{2})-(\d{2})\b`), isoRange},
	{aYear, re(weekPre + `\b(\d{4})-(\d{2})-(\d{2})\b`), isoDay},
	{aYear, re(`\b(\d{4})-w(\d{1,2})\b`), func(r *dateReader, m []string) bool { return r.isoWeek(m[1], m[2]) }},
	{aYear | aPeriod, re(`\bweek\s+(\d{1,2})(?:,|\s+of|\s+in)?\s+(\d{4})\b`), func(r *dateReader, m []string) bool { return r.isoWeek(m[2], m[1]) }},
	{aYear, re(`(\bweek\s+(?:before|after)\s+)?\b(christmas|new\s+year'?s?(?:\s+day|\s+eve)?)(?:\s+day)?\s+(\d{4})\b`), holiday},
	{aMonth | aDigit, re(`\b(between\s+|from\s+)?(` + monthAlt + `)\.?\s+` + dayNum + `(?:,?\s+` + yearNum + `)?` + rangeTo + `(?:(` + monthAlt + `)\.?\s+)?` + dayNum + `\b(?:,?\s+` + yearNum + `\b)?`), monthDayRange},
	{aMonth | aDigit, re(`\b(between\s+|from\s+)?` + dayNum + `(?:\s+(?:of\s+)?(` + monthAlt + `)\.?(?:,?\s+` + yearNum + `)?)?` + rangeTo + dayNum + `\s+(?:of\s+)?(` + monthAlt + `)\b\.?(?:,?\s+` + yearNum + `\b)?`), dayMonthRange},
	{aMonth | aDigit, re(weekPre + `\b(` + monthAlt + `)\.?\s+` + dayNum + `\b(?:,?\s+` + yearNum + `\b)?`), func(r *dateReader, m []string) bool { return r.oneDay(m[1], m[4], m[2], m[3]) }},
	{aMonth | aDigit, re(weekPre + `\b` + dayNum + `\s+(?:of\s+)?(` + monthAlt + `)\b\.?(?:,?\s+` + yearNum + `\b)?`), func(r *dateReader, m []string) bool { return r.oneDay(m[1], m[4], m[3], m[2]) }},
	{aMonth | aPeriod, re(`\b(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)(?:\s+full)?\s+week\s+(?:of|in)\s+(` + monthAlt + `)\b\.?(?:,?\s+` + yearNum + `\b)?`), weekOfMonth},
	{aYear | aPeriod, re(`\b(first|last)(?:\s+full)?\s+week\s+(?:of|in)\s+(?:the\s+year\s+)?` + yearNum + `\b`), weekOfYear},
	{aMonth | aYear, re(`(\b(?:early|mid|late)[-\s]*|\b(?:the\s+)?(?:end|start|beginning|middle)\s+of\s+)?\b(` + monthAlt + `)\.?,?\s+(?:of\s+)?` + yearNum + `\b`), monthYear},
	{aSeason | aYear, re(`(\b(?:early|mid|late)[-\s]*)?\b` + season + `(?:\s+(?:of\s+)?` + yearNum + `)\b`), seasonYear},
	{aDay, re(`\b(?:the\s+)?day\s+before\s+yesterday\b`), relDays(-2)},
	{aDay, re(`\byesterday\b`), relDays(-1)},
	{aDay, re(`\b(?:today|tonight)\b`), relDays(0)},
	{aDay, re(`\btomorrow\b`), relDays(1)},
	{aAgo, re(`\b` + countNum + `\s+(day|week|month|year)s?\s+(?:ago|earlier)\b`), ago},
	{aPeriod | aRel, re(`\b(last|this|next|past|coming)\s+(week|weekend|month|year)\b`), relPeriod},
	{aWeekday | aRel, re(`\b(last|this|next|coming)\s+` + weekday + `\b`), relWeekday},
	{aSeason | aRel, re(`\b(last|this|next|coming)\s+` + season + `\b`), relSeason},
	{aMonth | aRel, re(`\b(last|this|next|coming)\s+(` + fullMon + `)\b`), relMonth},
	{aSeason, re(`\b(?:(early|mid|late)[-\s]*|(?:in|during|since|until|till|by|throughout|before|after|over|the|of)\s+(?:the\s+)?)` + season + `\b`), seasonAlone},
	{aMonth, re(`\b(?:(early|mid|late)[-\s]*|(?:in|during|since|until|till|by|throughout|before|after|over|of)\s+(?:the\s+month\s+of\s+)?)(` + fullMon + `)\b`), monthAlone},
	{aYear, re(`(^|[^-./:#\w])` + yearNum + `\b`), func(r *dateReader, m []string) bool { return r.year(m[2]) }},
}

var months = map[string]time.Month{}

func init() {
	for m := time.January; m <= time.December; m++ {
		full := strings.ToLower(m.String())
		months[full] = m
		months[full[:3]] = m
	}
	months["sept"] = time.September
}

func monthOf(s string) time.Month { return months[strings.TrimSuffix(s, ".")] }

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

func utcDay(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// validDay returns the day, or false when there is no such day (31 April).
func validDay(y int, m time.Month, d int) (time.Time, bool) {
	t := utcDay(y, m, d)
	return t, d >= 1 && t.Month() == m && t.Day() == d
}

// yearFor picks the year of a month and day that named none: from the
// reader's ref, or 0 when there is no ref.
func (r *dateReader) yearFor(m time.Month, d int) int {
	if r.ref.IsZero() {
		return 0
	}
	y := r.ref.Year()
	if d == 0 {
		d = 1
	}
	if r.past {
		if utcDay(y, m, d).After(r.ref) {
			y--
		}
		return y
	}
	best, bestGap := y, time.Duration(1<<62)
	for _, c := range []int{y - 1, y, y + 1} {
		gap := utcDay(c, m, d).Sub(r.ref)
		if gap < 0 {
			gap = -gap
		}
		if gap < bestGap {
			best, bestGap = c, gap
		}
	}
	return best
}

// dayOrWeek hands the sink the day t, or the week of, before or after it
// that the prefix names.
func (r *dateReader) dayOrWeek(prefix string, t time.Time) {
	switch p := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(prefix), "the")); {
	case strings.HasSuffix(p, "before"):
		r.sink.week(t.AddDate(0, 0, -7))
	case strings.HasSuffix(p, "after"):
		r.sink.week(t.AddDate(0, 0, 7))
	case strings.HasSuffix(p, "of"):
		r.sink.week(t)
	default:
		r.sink.days(t, t)
	}
}

func isoRange(r *dateReader, m []string) bool {
	from, ok1 := validDay(atoi(m[2]), time.Month(atoi(m[3])), atoi(m[4]))
	to, ok2 := validDay(atoi(m[6]), time.Month(atoi(m[7])), atoi(m[8]))
	if !ok1 || !ok2 {
		return false
	}
	r.rangeOrTwo(m[1], m[5], from, to)
	return true
}

// rangeOrTwo hands the sink a range, or two days when "and" joins them
// without a "between" before: "May 3 and May 7" are two days.
func (r *dateReader) rangeOrTwo(between, conn string, from, to time.Time) {
	if conn == "and" && strings.TrimSpace(between) != "between" || to.Before(from) {
		r.sink.days(from, from)
		r.sink.days(to, to)
		return
	}
	r.sink.days(from, to)
}

func isoDay(r *dateReader, m []string) bool {
	t, ok := validDay(atoi(m[2]), time.Month(atoi(m[3])), atoi(m[4]))
	if ok {
		r.dayOrWeek(m[1], t)
	}
	return ok
}

func (r *dateReader) isoWeek(y, n string) bool {
	yy, nn := atoi(y), atoi(n)
	if yy == 0 || nn < 1 || nn > layout.WeeksInYear(yy) {
		return false
	}
	r.sink.week(layout.Week{Year: yy, Num: nn}.Start())
	return true
}

func holiday(r *dateReader, m []string) bool {
	y := atoi(m[3])
	t := utcDay(y, time.December, 25)
	switch name := m[2]; {
	case strings.Contains(name, "eve"):
		t = utcDay(y, time.December, 31)
	case strings.HasPrefix(name, "new"):
		t = utcDay(y, time.January, 1)
	}
	r.dayOrWeek(m[1], t)
	return true
}

// dayRange resolves a range of days whose parts may leave out the month
// or year of one end: each end takes what the other names.
func (r *dateReader) dayRange(between, conn string, m1, m2 time.Month, d1, d2, y1, y2 int) bool {
	if m1 == 0 {
		m1 = m2
	}
	if m2 == 0 {
		m2 = m1
	}
	if y1 == 0 {
		y1 = y2
		if y2 != 0 && m1 > m2 {
			y1 = y2 - 1 // "December 28 to January 3, 2024"
		}
	}
	if y2 == 0 {
		y2 = y1
		if y1 != 0 && m1 > m2 {
			y2 = y1 + 1
		}
	}
	if y1 == 0 {
		if y1 = r.yearFor(m1, d1); y1 == 0 {
			r.sink.monthsOfYear(m1, m2)
			return true
		}
		y2 = y1
		if m1 > m2 {
			y2++
		}
	}
	from, ok1 := validDay(y1, m1, d1)
	to, ok2 := validDay(y2, m2, d2)
	if !ok1 || !ok2 {
		return false
	}
	r.rangeOrTwo(between, conn, from, to)
	return true
}

func monthDayRange(r *dateReader, m []string) bool {
	return r.dayRange(m[1], m[5], monthOf(m[2]), monthOf(m[6]), atoi(m[3]), atoi(m[7]), atoi(m[4]), atoi(m[8]))
}

func dayMonthRange(r *dateReader, m []string) bool {
	return r.dayRange(m[1], m[5], monthOf(m[3]), monthOf(m[7]), atoi(m[2]), atoi(m[6]), atoi(m[4]), atoi(m[8]))
}

// oneDay is a month, day and maybe year, with maybe a "week of" before.
func (r *dateReader) oneDay(prefix, year, month, day string) bool {
	mon, d, y := monthOf(month), atoi(day), atoi(year)
	if y == 0 {
		if y = r.yearFor(mon, d); y == 0 {
			r.sink.monthsOfYear(mon, mon)
			return true
		}
	}
	t, ok := validDay(y, mon, d)
	if ok {
		r.dayOrWeek(prefix, t)
	}
	return ok
}

var ordinals = map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5, "last": -1}

// weekOfMonth is "the second week of November": the ISO week that starts
// on the month's second Monday; the last week starts on its last Monday.
func weekOfMonth(r *dateReader, m []string) bool {
	mon, y := monthOf(m[2]), atoi(m[3])
	if y == 0 {
		if y = r.yearFor(mon, 1); y == 0 {
			r.sink.monthsOfYear(mon, mon)
			return true
		}
	}
	first := utcDay(y, mon, 1)
	last := first.AddDate(0, 1, -1)
	n := ordinals[m[1]]
	if n < 0 {
		for last.Weekday() != time.Monday {
			last = last.AddDate(0, 0, -1)
		}
		r.sink.week(last)
		return true
	}
	monday := first
	for monday.Weekday() != time.Monday {
		monday = monday.AddDate(0, 0, 1)
	}
	monday = monday.AddDate(0, 0, 7*(n-1))
	if monday.Month() != mon {
		return false
	}
	r.sink.week(monday)
	return true
}

// weekOfYear is the first or last ISO week of a year.
func weekOfYear(r *dateReader, m []string) bool {
	y := atoi(m[2])
	n := 1
	if m[1] == "last" {
		n = layout.WeeksInYear(y)
	}
	r.sink.week(layout.Week{Year: y, Num: n}.Start())
	return true
}

// monthYear is "March 2026", or part of it: early (days 1–10), mid
// (11–20), late (21 to the end).
func monthYear(r *dateReader, m []string) bool {
	mon, y := monthOf(m[2]), atoi(m[3])
	r.sink.month(y, mon)
	r.partOfMonth(m[1], y, mon)
	return true
}

func (r *dateReader) partOfMonth(part string, y int, mon time.Month) {
	first := utcDay(y, mon, 1)
	last := first.AddDate(0, 1, -1)
	switch p := strings.Trim(part, " -\t\n"); {
	case p == "early" || strings.HasSuffix(p, "start of") || strings.HasSuffix(p, "beginning of"):
		r.sink.days(first, first.AddDate(0, 0, 9))
	case p == "mid" || strings.HasSuffix(p, "middle of"):
		r.sink.days(first.AddDate(0, 0, 10), first.AddDate(0, 0, 19))
	case p == "late" || strings.HasSuffix(p, "end of"):
		r.sink.days(first.AddDate(0, 0, 20), last)
	}
}

// seasonMonths are a season's months as the northern hemisphere counts
// them, which part of it a prefix picks.
func seasonMonths(name, part string) (from, to time.Month) {
	var start time.Month
	switch name {
	case "spring":
		start = time.March
	case "summer":
		start = time.June
	case "fall", "autumn":
		start = time.September
	default:
		start = time.December
	}
	from, to = start, start+2
	switch strings.Trim(part, " -\t\n") {
	case "early":
		to = from
	case "mid":
		from, to = from+1, from+1
	case "late":
		from = to
	}
	return wrapMonth(from), wrapMonth(to)
}

func wrapMonth(m time.Month) time.Month { return (m-1)%12 + 1 }

// seasonYear is "summer 2023". Winter 2023 is the winter months of that
// calendar year: January, February and December.
func seasonYear(r *dateReader, m []string) bool {
	from, to := seasonMonths(m[2], m[1])
	y := atoi(m[3])
	r.seasonIn(y, from, to)
	return true
}

// seasonIn hands the sink the months from..to of year y, wrapping within
// the year (winter: December, January, February of y).
func (r *dateReader) seasonIn(y int, from, to time.Month) {
	for mon := from; ; mon = wrapMonth(mon + 1) {
		r.sink.month(y, mon)
		if mon == to {
			return
		}
	}
}

// seasonAlone is a season named with no year: its months in no year, and
// the occurrence ref picks.
func seasonAlone(r *dateReader, m []string) bool {
	from, to := seasonMonths(m[2], m[1])
	r.sink.monthsOfYear(from, to)
	if y := r.yearFor(from, 1); y != 0 {
		r.seasonRun(y, from, to)
	}
	return true
}

// seasonRun hands the sink the months from..to starting in year y,
// crossing into the next year when they wrap (winter).
func (r *dateReader) seasonRun(y int, from, to time.Month) {
	t := utcDay(y, from, 1)
	for {
		r.sink.month(t.Year(), t.Month())
		if t.Month() == to {
			return
		}
		t = t.AddDate(0, 1, 0)
	}
}

// monthAlone is a month named with no year: "in June", "early July".
func monthAlone(r *dateReader, m []string) bool {
	mon := monthOf(m[2])
	r.sink.monthsOfYear(mon, mon)
	if y := r.yearFor(mon, 1); y != 0 {
		r.sink.month(y, mon)
		r.partOfMonth(m[1], y, mon)
	}
	return true
}

// year is a year on its own: "in 2023".
func (r *dateReader) year(s string) bool {
	r.sink.year(atoi(s))
	return true
}

// The relative phrases: nothing without ref.

func relDays(n int) func(r *dateReader, m []string) bool {
	return func(r *dateReader, m []string) bool {
		if r.ref.IsZero() {
			return false
		}
		t := r.ref.AddDate(0, 0, n)
		r.sink.days(t, t)
		return true
	}
}

var counts = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}

func countOf(s string) int {
	if strings.Contains(s, "couple") {
		return 2
	}
	if n, ok := counts[s]; ok {
		return n
	}
	return atoi(s)
}

// ago is "two weeks ago": the day, week, month or year that far back.
func ago(r *dateReader, m []string) bool {
	n := countOf(m[1])
	if r.ref.IsZero() || n == 0 {
		return false
	}
	switch m[2] {
	case "day":
		t := r.ref.AddDate(0, 0, -n)
		r.sink.days(t, t)
	case "week":
		r.sink.week(r.ref.AddDate(0, 0, -7*n))
	case "month":
		t := utcDay(r.ref.Year(), r.ref.Month(), 1).AddDate(0, -n, 0)
		r.sink.month(t.Year(), t.Month())
	default:
		r.sink.year(r.ref.Year() - n)
	}
	return true
}

// step is -1 for last, +1 for next and 0 for this.
func step(word string) int {
	switch word {
	case "last", "past":
		return -1
	case "next", "coming":
		return 1
	}
	return 0
}

// relPeriod is "last week", "this month", "next year", "last weekend",
// "the past week" (the seven days before ref).
func relPeriod(r *dateReader, m []string) bool {
	if r.ref.IsZero() {
		return false
	}
	n := step(m[1])
	switch m[2] {
	case "week":
		if m[1] == "past" {
			r.sink.days(r.ref.AddDate(0, 0, -7), r.ref.AddDate(0, 0, -1))
		} else {
			r.sink.week(r.ref.AddDate(0, 0, 7*n))
		}
	case "weekend":
		sat := layout.WeekOf(r.ref).Start().AddDate(0, 0, 5+7*n)
		if n < 0 && r.ref.Weekday() == time.Sunday {
			sat = sat.AddDate(0, 0, 7) // on a Sunday, last weekend is the one just gone
		}
		r.sink.days(sat, sat.AddDate(0, 0, 1))
	case "month":
		t := utcDay(r.ref.Year(), r.ref.Month(), 1).AddDate(0, n, 0)
		r.sink.month(t.Year(), t.Month())
	default:
		r.sink.year(r.ref.Year() + n)
	}
	return true
}

var weekdays = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

// relWeekday is "last Friday" (the latest Friday before ref), "next
// Friday" (the first after it) and "this Friday" (the one in ref's week).
func relWeekday(r *dateReader, m []string) bool {
	if r.ref.IsZero() {
		return false
	}
	wd := weekdays[m[2]]
	var t time.Time
	switch step(m[1]) {
	case -1:
		t = r.ref.AddDate(0, 0, -1)
		for t.Weekday() != wd {
			t = t.AddDate(0, 0, -1)
		}
	case 1:
		t = r.ref.AddDate(0, 0, 1)
		for t.Weekday() != wd {
			t = t.AddDate(0, 0, 1)
		}
	default:
		t = layout.WeekOf(r.ref).Start().AddDate(0, 0, (int(wd)+6)%7)
	}
	r.sink.days(t, t)
	return true
}

// relSeason is "last summer": the latest summer over before ref's month,
// "this summer" the one of ref's year (the winter ref is in), "next
// summer" the first to start after ref's month.
func relSeason(r *dateReader, m []string) bool {
	if r.ref.IsZero() {
		return false
	}
	from, to := seasonMonths(m[2], "")
	y := r.ref.Year()
	if from > to && r.ref.Month() <= to {
		y-- // in January, this winter began last December
	}
	start := utcDay(y, from, 1)
	end := start.AddDate(0, 3, -1)
	cur := utcDay(r.ref.Year(), r.ref.Month(), 1)
	switch step(m[1]) {
	case -1:
		for !end.Before(cur) {
			start, end = start.AddDate(-1, 0, 0), end.AddDate(-1, 0, 0)
		}
	case 1:
		for !start.After(cur) {
			start = start.AddDate(1, 0, 0)
		}
	}
	r.seasonRun(start.Year(), from, to)
	return true
}

// relMonth is "last May" (the latest May before ref's month), "next May"
// and "this May" (May of ref's year).
func relMonth(r *dateReader, m []string) bool {
	if r.ref.IsZero() {
		return false
	}
	mon := monthOf(m[2])
	y := r.ref.Year()
	switch step(m[1]) {
	case -1:
		if mon >= r.ref.Month() {
			y--
		}
	case 1:
		if mon <= r.ref.Month() {
			y++
		}
	}
	r.sink.month(y, mon)
	return true
}
