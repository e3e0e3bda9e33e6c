package recall

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// wed is a Wednesday: the day the relative phrases below count from.
var wed = time.Date(2023, time.May, 10, 15, 4, 0, 0, time.FixedZone("CEST", 2*3600))

func TestQueryWhen(t *testing.T) {
	tests := []struct {
		name  string
		query string
		now   time.Time
		want  []string // tokens that must be present
		not   []string // tokens, or token prefixes, that must not be
	}{
		{"iso day", "what happened on 2026-06-03?", time.Time{}, []string{"d20260603"}, []string{"w2026w23"}},
		{"week of a day", "the week of 2026-08-17", time.Time{}, []string{"w2026w34", "d20260823"}, nil},
		{"iso week", "notes from 2026-W10", time.Time{}, []string{"w2026w10"}, nil},
		{"week 53 of a long year", "notes from 2020-W53", time.Time{}, []string{"w2020w53", "d20201231"}, nil},
		{"the last week of a short year", "what did I do in week 52 of 2023", time.Time{}, []string{"w2023w52"}, nil},
		{"numbered week", "what did I do in week 38 of 2026", time.Time{}, []string{"w2026w38"}, nil},
		{"month", "frontend work in November 2025", time.Time{}, []string{"m202511"}, []string{"d20251101", "y"}},
		{"first week of a month starts on its first Monday", "the first week of March 2026", time.Time{}, []string{"w2026w10"}, []string{"w2026w09"}},
		{"first full week", "first full week of January 2026", time.Time{}, []string{"w2026w02"}, nil},
		{"mid month", "outage in mid April 2026", time.Time{}, []string{"d20260415", "m202604"}, []string{"d20260405"}},
		{"week before christmas", "the week before Christmas 2025", time.Time{}, []string{"w2025w51"}, []string{"w2025w52"}},
		{"no dates", "search alias cutover", wed, nil, []string{"m", "d", "w", "y"}},

		{"month day year", "what painting did she show on October 13, 2023?", time.Time{}, []string{"d20231013"}, []string{"m202310", "y2023"}},
		{"day month year", "the session at 1:56 pm on 8 May, 2023", time.Time{}, []string{"d20230508"}, []string{"y2023", "d20230501"}},
		{"ordinal day of month", "on the 8th of May 2023", time.Time{}, []string{"d20230508"}, nil},
		{"day without a year takes the last one before now", "what did we do on June 8", wed, []string{"d20220608"}, []string{"d20230608"}},
		{"day without a year on that very day is today", "what did we do on May 10", wed, []string{"d20230510"}, []string{"d20220510"}},
		{"day without a year or now is its month of any year", "what did we do on June 8", time.Time{}, []string{"mo06"}, []string{"d"}},

		{"range between month days", "between August 11 and August 15 2023", time.Time{}, []string{"d20230811", "d20230813", "d20230815"}, []string{"d20230810", "d20230816"}},
		{"range of days with a dash", "August 11-15, 2023", time.Time{}, []string{"d20230811", "d20230815"}, []string{"d20230816"}},
		{"range with an en dash and no year", "what happened May 3–7", wed, []string{"d20230503", "d20230505", "d20230507"}, []string{"d20230508", "d20230502"}},
		{"range from day to day of a month", "from 3 to 7 May", wed, []string{"d20230503", "d20230507"}, []string{"d20230508"}},
		{"range day month year", "between 3 and 7 May 2022", time.Time{}, []string{"d20220503", "d20220507"}, []string{"d20220508"}},
		{"range across a year end", "December 28 to January 3, 2024", time.Time{}, []string{"d20231228", "d20231231", "d20240103"}, []string{"d20240104"}},
		{"range of iso days", "between 2023-08-11 and 2023-08-15", time.Time{}, []string{"d20230811", "d20230814", "d20230815"}, []string{"d20230816"}},
		{"range with no year or now", "from 3 to 7 May", time.Time{}, []string{"mo05"}, []string{"d"}},
		{"two days joined by and", "May 3 and May 7 2023", time.Time{}, []string{"d20230503", "d20230507"}, []string{"d20230505"}},
		{"long range by months", "between 2023-01-15 and 2023-06-15", time.Time{}, []string{"m202301", "m202306"}, []string{"d", "m202307"}},
		{"a range of years by years", "between 2001-03-01 and 2023-06-15", time.Time{}, []string{"y2001", "y2012", "y2023"}, []string{"d", "m", "y2000", "y2024"}},
		{"a range of 62 days is still days", "between 2023-01-01 and 2023-03-04", time.Time{}, []string{"d20230101", "d20230201", "d20230304"}, []string{"m", "d20230305"}},
		{"a range written backwards is its two days", "from 2023-08-15 to 2023-08-11", time.Time{}, []string{"d20230811", "d20230815"}, []string{"d20230812", "d20230814"}},

		{"second week of a month", "the second week of November 2023", time.Time{}, []string{"w2023w46", "d20231113", "d20231119"}, []string{"w2023w45", "w2023w47"}},
		{"ordinal week without a year", "the 2nd week of November", wed, []string{"w2022w46"}, nil},
		{"last week of a month", "last week of March 2026", time.Time{}, []string{"w2026w14"}, []string{"w2026w13"}},
		{"last week of a year", "the last week of 2023", time.Time{}, []string{"w2023w52", "d20231231"}, []string{"w2024w01", "y2023"}},
		{"first week of a year", "first week of 2024", time.Time{}, []string{"w2024w01"}, []string{"y2024"}},

		{"season of a year", "camping in summer 2023", time.Time{}, []string{"m202306", "m202307", "m202308"}, []string{"m202305", "m202309", "y"}},
		{"winter of a year", "winter 2023", time.Time{}, []string{"m202301", "m202302", "m202312"}, []string{"m202303"}},
		{"early season without a year", "what did we plant in early spring", time.Time{}, []string{"mo03"}, []string{"mo04", "m2"}},
		{"season without a year takes the last one before now", "what did she do during the summer", wed, []string{"mo06", "mo08", "m202206", "m202208"}, []string{"m202306"}},
		{"last summer", "where did we go last summer", wed, []string{"m202206", "m202207", "m202208"}, []string{"m202306"}},
		{"last winter spans a year end", "last winter", wed, []string{"m202212", "m202301", "m202302"}, []string{"m202312"}},
		{"next summer", "plans for next summer", wed, []string{"m202306", "m202308"}, []string{"m202406"}},

		{"yesterday", "what did I fix yesterday", wed, []string{"d20230509"}, []string{"d20230510"}},
		{"day before yesterday", "the day before yesterday", wed, []string{"d20230508"}, []string{"d20230509"}},
		{"today", "what is on today", wed, []string{"d20230510"}, nil},
		{"days ago", "3 days ago", wed, []string{"d20230507"}, []string{"d20230506"}},
		{"weeks ago", "two weeks ago", wed, []string{"w2023w17", "d20230424", "d20230430"}, []string{"w2023w18"}},
		{"months ago", "a couple of months ago", wed, []string{"m202303"}, nil},
		{"years ago", "where did she move from 4 years ago", wed, []string{"y2019"}, nil},
		{"last week", "what broke last week", wed, []string{"w2023w18", "d20230501"}, []string{"w2023w19"}},
		{"this week", "this week", wed, []string{"w2023w19"}, nil},
		{"the past week is the seven days before", "in the past week", wed, []string{"d20230503", "d20230509"}, []string{"d20230502", "d20230510", "w"}},
		{"last weekend", "last weekend", wed, []string{"d20230506", "d20230507"}, []string{"d20230513"}},
		{"last weekend on a Sunday is the one just gone", "last weekend", time.Date(2023, time.May, 14, 20, 0, 0, 0, time.UTC), []string{"d20230513", "d20230514"}, []string{"d20230506", "d20230507"}},
		{"last month", "last month", wed, []string{"m202304"}, nil},
		{"last year", "last year", wed, []string{"y2022"}, nil},
		{"last weekday", "what did we ship last Friday", wed, []string{"d20230505"}, []string{"d20230512"}},
		{"next weekday", "what is due next Monday", wed, []string{"d20230515"}, nil},
		{"this weekday", "this Friday", wed, []string{"d20230512"}, nil},
		{"last month name", "last December", wed, []string{"m202212"}, nil},
		{"last month name in that month", "last May", wed, []string{"m202205"}, []string{"m202305"}},
		{"this winter in February began in December", "this winter", time.Date(2023, time.February, 15, 9, 0, 0, 0, time.UTC), []string{"m202212", "m202301", "m202302"}, []string{"m202312", "m202402"}},
		{"relative phrases need now", "what did I fix yesterday or last Friday", time.Time{}, nil, []string{"d", "w", "m", "y"}},

		{"year alone", "how many times did she go to the beach in 2022?", time.Time{}, []string{"y2022"}, []string{"m", "d"}},
		{"month alone takes the last one before now", "when did she go camping in June?", wed, []string{"mo06", "m202206"}, []string{"m202306"}},
		{"month alone in its own month", "in May", wed, []string{"m202305"}, nil},
		{"early month without a year", "early July", wed, []string{"m202207", "d20220701", "d20220710"}, []string{"d20220711"}},
		{"may the verb is no month", "what may happen if the disk fills", wed, nil, []string{"m", "d"}},
		{"fall the verb is no season", "why did the build fall over", wed, nil, []string{"m"}},
		{"identifiers are no years", "DX-2023 and v1.7 in us-east-1 at 0.07%", time.Time{}, nil, []string{"y", "d", "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := queryWhen(tt.query, tt.now)
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

// TestQueryWhenIsBounded: a short query that names a range of millennia,
// or many ranges, asks for a bounded number of date tokens.
func TestQueryWhenIsBounded(t *testing.T) {
	var many strings.Builder
	for y := 1901; y <= 1999; y++ {
		fmt.Fprintf(&many, "between %d-01-01 and %d-03-03, ", y, y)
	}
	for _, q := range []string{"1999 between 0001-01-01 and 9999-12-31", many.String()} {
		if got := queryWhen(q, wed); len(got) > maxQueryDates {
			t.Errorf("queryWhen(%.40q…) = %d tokens, over %d", q, len(got), maxQueryDates)
		}
	}
}

func TestMentionTokens(t *testing.T) {
	tests := []struct {
		name, kind, date, text string
		want                   []string
		not                    []string
	}{
		{"last weekday counts from the entry", "daily", "2023-05-10", "- [D1:3] Caroline: I went to a support group last Friday.", []string{"d20230505"}, []string{"d20230512"}},
		{"yesterday", "daily", "2023-05-08", "I went to a LGBTQ support group yesterday", []string{"d20230507"}, nil},
		{"weeks ago is the week alone", "daily", "2023-05-10", "we moved two weeks ago", []string{"w2023w17"}, []string{"d20230424"}},
		{"next month", "daily", "2023-05-10", "the race is next month", []string{"m202306"}, nil},
		{"a day without a year is the one nearest the entry", "daily", "2023-05-10", "the launch on May 20", []string{"d20230520"}, []string{"d20220520"}},
		{"a month without a year is the one nearest the entry", "typed", "2023-05-10", "we went camping in December", []string{"m202212", "mo12"}, []string{"m202312"}},
		{"an archived daily counts from its own day", "archive", "2023-05-10", "shipped it yesterday", []string{"d20230509"}, nil},
		{"a summary's relative phrases are skipped", "weekly", "2023-05-08", "fixed the bug yesterday", nil, []string{"d"}},
		{"absolute dates in a summary", "weekly", "2023-05-08", "Postgres filled on Wednesday 2023-05-10", []string{"d20230510"}, nil},
		{"undated text keeps absolute dates only", "typed", "", "rotated on 2026-03-01, and again last Friday", []string{"d20260301"}, []string{"d2026022", "w"}},
		{"no dates", "daily", "2023-05-10", "the search alias cutover went fine", nil, []string{"d", "w", "m", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mentionTokens(tt.kind, tt.date, tt.text)
			joined := " " + strings.Join(got, " ") + " "
			for _, w := range tt.want {
				if !strings.Contains(joined, " "+w+" ") {
					t.Errorf("mentionTokens = %v, want %s", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(joined, " "+n) {
					t.Errorf("mentionTokens = %v, must not hold %s", got, n)
				}
			}
		})
	}
	t.Run("text made of anchors is read only so far", func(t *testing.T) {
		text := strings.Repeat("may ", 2*maxDateScan) + "on 2023-05-07"
		if got := mentionTokens("typed", "", text); len(got) != 0 {
			t.Errorf("mentionTokens read %v past %d bytes of anchors", got, maxDateScan)
		}
		if got := mentionTokens("typed", "", strings.Repeat("may ", 8)+"on 2023-05-07"); len(got) == 0 {
			t.Error("mentionTokens missed a date after a few anchors")
		}
	})
	t.Run("many dates stop at the limit", func(t *testing.T) {
		var b strings.Builder
		for d := 1; d <= 28; d++ {
			b.WriteString(time.Date(2023, time.March, d, 0, 0, 0, 0, time.UTC).Format("2006-01-02 "))
		}
		if got := mentionTokens("typed", "", b.String()); len(got) != maxMentions {
			t.Errorf("%d tokens from 28 dates, want %d", len(got), maxMentions)
		}
	})
}

func TestWhenTokens(t *testing.T) {
	tests := []struct {
		name, kind, date, want string
	}{
		{"daily", "daily", "2026-10-28", "d20261028 w2026w44 m202610 mo10 y2026"},
		{"monthly", "monthly", "2025-10-01", "m202510 mo10 y2025"},
		{"weekly spans two months", "weekly", "2026-06-29", "w2026w27 d20260629 m202606 d20260630 d20260701 m202607 d20260702 d20260703 d20260704 d20260705 mo06 y2026 mo07"},
		{"weekly spans two years", "weekly", "2025-12-29", "w2026w01 d20251229 m202512 d20251230 d20251231 d20260101 m202601 d20260102 d20260103 d20260104 mo12 y2025 mo01 y2026"},
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

// datedWorkspace is beacon's dailies: filler entries over three years
// and the given files.
func datedWorkspace(t *testing.T, files map[string]string) *layout.Workspace {
	t.Helper()
	all := map[string]string{}
	filler := []string{"Reviewed the ingest dashboards and answered questions.", "Paired on the retry queue; wrote notes.", "Cleaned up flags in the config service."}
	for y := 2021; y <= 2023; y++ {
		for i, m := range []time.Month{time.February, time.April, time.September, time.November} {
			d := time.Date(y, m, 3+i, 0, 0, 0, 0, time.UTC).Format(layout.DateLayout)
			all[d+".md"] = "# " + d + "\n\n## Work\n\n" + filler[(y+i)%len(filler)] + "\n"
		}
	}
	for n, s := range files {
		all[n] = s
	}
	return exactWorkspace(t, all)
}

// bm25Paths returns the paths of a BM25-only search, recency pass off.
func bm25Paths(t *testing.T, ix *Index, query string) []string {
	t.Helper()
	return paths(runSearch(t, ix, Query{Text: query, Mode: ModeBM25, RecencyDepth: -1}))
}

func daily(date, heading, text string) string {
	return "# " + date + "\n\n## " + heading + "\n\n" + text + "\n"
}

// TestHeadingYearDoesNotSwamp asks for a year: chunks of that year gain,
// but the year is one date, not words of every heading that holds it, so
// a chunk of another year that matches the words is not cut to half.
func TestHeadingYearDoesNotSwamp(t *testing.T) {
	ws := datedWorkspace(t, map[string]string{
		"2022-07-02.md": daily("2022-07-02", "Weekend", "Went to the beach with the kids."),
		"2023-07-01.md": daily("2023-07-01", "Weekend", "Went to the beach with the kids again."),
	})
	ix, _ := openIndex(t, ws, Options{})
	hits := runSearch(t, ix, Query{Text: "beach with the kids in 2022", Mode: ModeBM25, RecencyDepth: -1})
	got := paths(hits)
	if len(hits) < 2 || got[0] != "beacon/memory/2022-07-02.md" || got[1] != "beacon/memory/2023-07-01.md" {
		t.Fatalf("hits %v, want the 2022 beach day, then the 2023 one", got)
	}
	if extra := hits[0].BM25 - hits[1].BM25; extra > hits[1].BM25/2 {
		t.Errorf("the year adds %.2f to the words' %.2f; it swamps them", extra, hits[1].BM25)
	}
}

// TestDatePhrasingsFindTheirDays asks for days by what a person would
// say: the daily that covers the day, or whose entry names it, comes
// first, though no word of the question is in it.
func TestDatePhrasingsFindTheirDays(t *testing.T) {
	ws := datedWorkspace(t, map[string]string{
		"2023-08-14.md": daily("2023-08-14", "Release", "Shipped the export feature."),
		"2023-11-15.md": daily("2023-11-15", "Planning", "Sketched the roadmap with Ana."),
		"2022-07-02.md": daily("2022-07-02", "Weekend", "Went to the beach with the kids."),
		"2023-04-26.md": daily("2023-04-26", "Move", "Moved the team to the new office."),
		"2023-06-12.md": daily("2023-06-12", "Caroline", "The support group met last Friday, and it helped."),
		"2022-08-12.md": daily("2022-08-12", "Home", "Fixed the boiler."),
	})
	now := time.Date(2023, time.May, 10, 9, 0, 0, 0, time.UTC)
	ix, _ := openIndex(t, ws, Options{Now: func() time.Time { return now }})
	tests := []struct{ name, query, want string }{
		{"range", "what happened between August 11 and August 15 2023?", "2023-08-14.md"},
		{"range without a year", "what did I do from 11 to 15 August?", "2022-08-12.md"},
		{"ordinal week", "notes from the second week of November 2023", "2023-11-15.md"},
		{"season", "what did I do in summer 2022", "2022-07-02.md"},
		{"weeks ago", "what happened two weeks ago", "2023-04-26.md"},
		{"a relative day in a log line", "what happened on 9 June 2023", "2023-06-12.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bm25Paths(t, ix, tt.query)
			if len(got) == 0 || got[0] != "beacon/memory/"+tt.want {
				t.Errorf("hits %v, want %s first", got, tt.want)
			}
		})
	}
}
