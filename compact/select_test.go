package compact

import (
	"context"
	"reflect"
	"testing"
)

// TestWeekMonthSelection checks which weeklies and monthlies a run makes
// and which dailies it keeps, in the style of restic's keep-policy tests:
// a set of daily logs, a fixed now, the expected tree.
func TestWeekMonthSelection(t *testing.T) {
	tests := []struct {
		name      string
		now       string
		days      []string
		dailies   []string // left afterwards
		weeklies  []string
		monthlies []string
	}{
		{
			name:     "current week is never compacted",
			now:      "2026-11-21", // Saturday of 2026-W47
			days:     []string{"2026-11-16", "2026-11-18", "2026-11-21"},
			dailies:  []string{"2026-11-16.md", "2026-11-18.md", "2026-11-21.md"},
			weeklies: []string{},
		},
		{
			name:     "completed week keeps the days context still injects",
			now:      "2026-11-18", // Wednesday: the window is 11-12 .. 11-18
			days:     []string{"2026-11-09", "2026-11-11", "2026-11-12", "2026-11-15"},
			dailies:  []string{"2026-11-12.md", "2026-11-15.md"},
			weeklies: []string{"2026-W46.md"},
		},
		{
			name:     "future dailies are left alone",
			now:      "2026-11-18",
			days:     []string{"2026-11-02", "2026-12-01"},
			dailies:  []string{"2026-12-01.md"},
			weeklies: []string{"2026-W45.md"},
		},
		{
			name:      "week 53 goes to the month of its Thursday",
			now:       "2028-02-10",
			days:      []string{"2026-12-28", "2027-01-03"}, // 2026-W53, Thursday 2026-12-31
			dailies:   []string{},
			weeklies:  []string{},
			monthlies: []string{"2026-12.md"},
		},
		{
			name:      "week across the year boundary belongs to January",
			now:       "2026-03-01",
			days:      []string{"2024-12-30", "2024-12-31", "2025-01-05"}, // 2025-W01, Thursday 2025-01-02
			dailies:   []string{},
			weeklies:  []string{},
			monthlies: []string{"2025-01.md"},
		},
		{
			name:      "week split across months follows its Thursday",
			now:       "2026-12-01",
			days:      []string{"2025-09-29", "2025-10-05", "2025-10-27", "2025-11-01"}, // W40 → Oct, W44 → Oct
			dailies:   []string{},
			weeklies:  []string{},
			monthlies: []string{"2025-10.md"},
		},
		{
			name: "52 weeks stay weekly, the 53rd goes monthly",
			now:  "2026-11-18", // 2026-W47
			// 2025-W47 is 52 weeks back; 2025-W46 is 53.
			days:      []string{"2025-11-10", "2025-11-17"},
			dailies:   []string{},
			weeklies:  []string{"2025-W47.md"},
			monthlies: []string{"2025-11.md"},
		},
		{
			name:      "53-week year: 2020-W53 lands in December, 2021-W01 in January",
			now:       "2022-06-01",
			days:      []string{"2020-12-28", "2021-01-03", "2021-01-04"},
			dailies:   []string{},
			weeklies:  []string{},
			monthlies: []string{"2020-12.md", "2021-01.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := fromTxtar(t, "-- beacon/SOUL.md --\n"+soul)
			for _, d := range tt.days {
				writeFile(t, ws, "beacon/memory/"+d+".md", genDay(day(d), 2), day(d))
			}
			if _, err := Run(context.Background(), ws, Options{Episodic: true, KeepStubDays: -1, Now: fixed(tt.now)}); err != nil {
				t.Fatal(err)
			}
			if tt.dailies == nil {
				tt.dailies = []string{}
			}
			if tt.monthlies == nil {
				tt.monthlies = []string{}
			}
			check := func(what string, got, want []string) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: got %q, want %q", what, got, want)
				}
			}
			check("dailies", paths(t, ws, "beacon", "daily"), tt.dailies)
			check("weeklies", trimDir(paths(t, ws, "beacon", "weekly")), tt.weeklies)
			check("monthlies", trimDir(paths(t, ws, "beacon", "monthly")), tt.monthlies)
		})
	}
}

func trimDir(ps []string) []string {
	out := []string{}
	for _, p := range ps {
		for i := len(p) - 1; i >= 0; i-- {
			if p[i] == '/' {
				p = p[i+1:]
				break
			}
		}
		out = append(out, p)
	}
	return out
}
