package recall

import (
	"strings"
	"testing"
)

func TestQueryWhen(t *testing.T) {
	tests := []struct {
		name  string
		query string
		want  []string // tokens that must be present
		not   []string
	}{
		{"iso day", "what happened on 2026-06-03?", []string{"d20260603"}, []string{"w2026w23"}},
		{"week of a day", "the week of 2026-08-17", []string{"w2026w34", "d20260823"}, nil},
		{"iso week", "notes from 2026-W10", []string{"w2026w10"}, nil},
		{"numbered week", "what did I do in week 38 of 2026", []string{"w2026w38"}, nil},
		{"month", "frontend work in November 2025", []string{"m202511"}, []string{"d20251101"}},
		{"first week of a month starts on its first Monday", "the first week of March 2026", []string{"w2026w10", "m202603"}, []string{"w2026w09"}},
		{"first full week", "first full week of January 2026", []string{"w2026w02"}, nil},
		{"mid month", "outage in mid April 2026", []string{"d20260415", "m202604"}, []string{"d20260405"}},
		{"week before christmas", "the week before Christmas 2025", []string{"w2025w51"}, []string{"w2025w52"}},
		{"no dates", "search alias cutover", nil, []string{"m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := queryWhen(tt.query)
			joined := " " + strings.Join(got, " ") + " "
			for _, w := range tt.want {
				if !strings.Contains(joined, " "+w+" ") {
					t.Errorf("queryWhen(%q) = %v, want %s", tt.query, got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(joined, " "+n) {
					t.Errorf("queryWhen(%q) = %v, must not hold %s", tt.query, got, n)
				}
			}
		})
	}
}

func TestWhenTokens(t *testing.T) {
	tests := []struct {
		name, kind, date, want string
	}{
		{"daily", "daily", "2026-10-28", "d20261028 w2026w44 m202610"},
		{"monthly", "monthly", "2025-10-01", "m202510"},
		{"weekly spans two months", "weekly", "2026-06-29", "w2026w27 d20260629 m202606 d20260630 d20260701 m202607 d20260702 d20260703 d20260704 d20260705"},
		{"undated", "typed", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := whenTokens(tt.kind, tt.date); got != tt.want {
				t.Errorf("whenTokens = %q, want %q", got, tt.want)
			}
		})
	}
}
