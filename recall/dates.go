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
//
// A daily or dated memory gets its day, week and month; a weekly summary
// its week and each of its seven days and their months; a monthly summary
// its month.

func dayToken(t time.Time) string   { return "d" + t.Format("20060102") }
func monthToken(t time.Time) string { return "m" + t.Format("200601") }
func weekToken(t time.Time) string {
	w := layout.WeekOf(t)
	return fmt.Sprintf("w%04dw%02d", w.Year, w.Num)
}

// whenTokens are the date tokens of a chunk.
func whenTokens(kind, date string) string {
	t := dateOf(date)
	if t.IsZero() {
		return ""
	}
	var out []string
	add := func(s string) {
		for _, x := range out {
			if x == s {
				return
			}
		}
		out = append(out, s)
	}
	switch kind {
	case "weekly":
		start := layout.WeekOf(t).Start()
		add(weekToken(start))
		for i := 0; i < 7; i++ {
			d := start.AddDate(0, 0, i)
			add(dayToken(d))
			add(monthToken(d))
		}
	case "monthly":
		add(monthToken(t))
	default:
		add(dayToken(t))
		add(weekToken(t))
		add(monthToken(t))
	}
	return strings.Join(out, " ")
}

var (
	months = map[string]time.Month{}
	isoDay = regexp.MustCompile(`(?i)(\bweek (?:before|after|of) )?\b(\d{4})-(\d{2})-(\d{2})\b`)
	isoWk  = regexp.MustCompile(`(?i)\b(\d{4})-w(\d{1,2})\b`)
	numWk  = regexp.MustCompile(`(?i)\bweek (\d{1,2})(?:,| of| in)? (\d{4})\b`)
	named  = regexp.MustCompile(`(?i)(\bweek (?:before|after) )?\b(christmas|new year'?s?(?: day| eve)?)(?: day)? (\d{4})\b`)
	monthY *regexp.Regexp
)

func init() {
	var alts []string
	for m := time.January; m <= time.December; m++ {
		full := strings.ToLower(m.String())
		months[full] = m
		months[full[:3]] = m
		alts = append(alts, full, full[:3])
	}
	months["sept"] = time.September
	alts = append(alts, "sept")
	monthY = regexp.MustCompile(`(?i)(\b(?:first|1st)(?: full)? week of |\blast week of |\bearly |\bmid[- ]?|\blate |\bend of |\bstart of |\bbeginning of )?\b(` + strings.Join(alts, "|") + `)\.? (\d{4})\b`)
}

// queryWhen finds dates in a query and returns the tokens that match
// files covering them.
func queryWhen(q string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	addWeek := func(t time.Time) {
		add(weekToken(t))
		start := layout.WeekOf(t).Start()
		for i := 0; i < 7; i++ {
			add(dayToken(start.AddDate(0, 0, i)))
		}
	}
	addDay := func(prefix string, t time.Time) {
		switch p := strings.ToLower(strings.TrimSpace(prefix)); {
		case strings.HasSuffix(p, "before"):
			addWeek(t.AddDate(0, 0, -7))
		case strings.HasSuffix(p, "after"):
			addWeek(t.AddDate(0, 0, 7))
		case strings.HasSuffix(p, "of"):
			addWeek(t)
		default:
			add(dayToken(t))
		}
	}
	for _, m := range isoDay.FindAllStringSubmatch(q, -1) {
		if t, err := time.Parse(layout.DateLayout, m[2]+"-"+m[3]+"-"+m[4]); err == nil {
			addDay(m[1], t)
		}
	}
	week := func(y, n string) {
		if yy, err := strconv.Atoi(y); err == nil {
			if nn, err := strconv.Atoi(n); err == nil && nn >= 1 && nn <= layout.WeeksInYear(yy) {
				addWeek(layout.Week{Year: yy, Num: nn}.Start())
			}
		}
	}
	for _, m := range isoWk.FindAllStringSubmatch(q, -1) {
		week(m[1], m[2])
	}
	for _, m := range numWk.FindAllStringSubmatch(q, -1) {
		week(m[2], m[1])
	}
	for _, m := range named.FindAllStringSubmatch(q, -1) {
		y, err := strconv.Atoi(m[3])
		if err != nil {
			continue
		}
		t := time.Date(y, time.December, 25, 0, 0, 0, 0, time.UTC)
		switch name := strings.ToLower(m[2]); {
		case strings.Contains(name, "eve"):
			t = time.Date(y, time.December, 31, 0, 0, 0, 0, time.UTC)
		case strings.HasPrefix(name, "new year"):
			t = time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC)
		}
		addDay(m[1], t)
	}
	for _, m := range monthY.FindAllStringSubmatch(q, -1) {
		mon, ok := months[strings.ToLower(m[2])]
		y, err := strconv.Atoi(m[3])
		if !ok || err != nil {
			continue
		}
		first := time.Date(y, mon, 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1)
		add(monthToken(first))
		days := func(from, to int) {
			for d := from; d <= to && d <= last.Day(); d++ {
				add(dayToken(time.Date(y, mon, d, 0, 0, 0, 0, time.UTC)))
			}
		}
		switch p := strings.ToLower(strings.TrimSpace(m[1])); {
		case strings.Contains(p, "first"):
			monday := first
			for monday.Weekday() != time.Monday {
				monday = monday.AddDate(0, 0, 1)
			}
			addWeek(monday)
		case strings.Contains(p, "last"):
			monday := last
			for monday.Weekday() != time.Monday {
				monday = monday.AddDate(0, 0, -1)
			}
			addWeek(monday)
		case p == "early" || p == "start of" || p == "beginning of":
			days(1, 10)
		case strings.HasPrefix(p, "mid"):
			days(11, 20)
		case p == "late" || p == "end of":
			days(21, 31)
		}
	}
	return out
}
