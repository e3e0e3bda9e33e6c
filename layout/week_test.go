package layout

import (
	"fmt"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestWeeks(t *testing.T) {
	tests := []struct {
		name       string
		date       string
		week       string
		start, end string
		thursday   string
	}{
		{"ordinary week", "2026-03-14", "2026-W11", "2026-03-09", "2026-03-15", "2026-03-12"},
		{"January days in the previous year's week 53", "2021-01-03", "2020-W53", "2020-12-28", "2021-01-03", "2020-12-31"},
		{"December days in next year's week 1", "2024-12-31", "2025-W01", "2024-12-30", "2025-01-05", "2025-01-02"},
		{"week split across months", "2026-04-01", "2026-W14", "2026-03-30", "2026-04-05", "2026-04-02"},
		{"2026 has a week 53", "2026-12-31", "2026-W53", "2026-12-28", "2027-01-03", "2026-12-31"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := WeekOf(day(tt.date))
			if w.String() != tt.week {
				t.Fatalf("WeekOf(%s) = %s, want %s", tt.date, w, tt.week)
			}
			p, err := ParseWeek(tt.week)
			if err != nil || p != w {
				t.Fatalf("ParseWeek(%s) = %v, %v", tt.week, p, err)
			}
			if got := w.Start().Format(DateLayout); got != tt.start {
				t.Errorf("Start = %s, want %s", got, tt.start)
			}
			if got := w.End().Format(DateLayout); got != tt.end {
				t.Errorf("End = %s, want %s", got, tt.end)
			}
			if got := w.Thursday().Format(DateLayout); got != tt.thursday {
				t.Errorf("Thursday = %s, want %s", got, tt.thursday)
			}
			if n := w.Next(); !w.Before(n) || n.Start().Sub(w.Start()) != 7*24*time.Hour {
				t.Errorf("Next = %s", n)
			}
		})
	}
}

func TestParseWeekRefusesWeeksThatDoNotExist(t *testing.T) {
	for _, s := range []string{"2025-W53", "2026-W00", "2026-W54", "2026-11", "26-W01", "2026-w01"} {
		t.Run(s, func(t *testing.T) {
			if _, err := ParseWeek(s); err == nil {
				t.Errorf("ParseWeek(%q) accepted it", s)
			}
		})
	}
}

func TestInRecentWindow(t *testing.T) {
	now := time.Date(2026, 11, 20, 23, 30, 0, 0, time.UTC)
	tests := []struct {
		date string
		days int
		want bool
	}{
		{"2026-11-20", RecentDays, true}, {"2026-11-14", RecentDays, true}, {"2026-11-13", RecentDays, false},
		// A day ahead: written in a zone ahead of now's; two are not.
		{"2026-11-21", RecentDays, true}, {"2026-11-22", RecentDays, false}, {"2026-11-21", 1, true},
		{"2026-11-20", 0, false}, {"2026-11-20", -1, false},
		{"2025-11-21", 365, true}, {"2025-11-20", 365, false},
		// Days whose nanoseconds overflow a time.Duration.
		{"2000-01-01", 106_752, true}, {"2000-01-01", 200_000, true}, {"1500-01-01", 200_000, true},
		{"1500-01-01", int(^uint(0) >> 1), true}, {"2026-11-22", int(^uint(0) >> 1), false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s within %d days", tt.date, tt.days), func(t *testing.T) {
			if got := InRecentWindow(day(tt.date), now, tt.days); got != tt.want {
				t.Errorf("InRecentWindow(%s, %d) = %v, want %v", tt.date, tt.days, got, tt.want)
			}
		})
	}
}

func TestPeriod(t *testing.T) {
	from, to, err := ParsePeriod("2026-03-09 to 2026-03-15")
	if err != nil || Period(from, to) != "2026-03-09 to 2026-03-15" {
		t.Fatalf("round trip: %v %v %v", from, to, err)
	}
	for _, bad := range []string{"2026-03-15 to 2026-03-09", "2026-03-09", "2026-03-09 to tomorrow"} {
		if _, _, err := ParsePeriod(bad); err == nil {
			t.Errorf("ParsePeriod(%q) accepted it", bad)
		}
	}
}
