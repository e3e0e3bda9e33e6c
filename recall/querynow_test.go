package recall

import (
	"testing"
	"time"
)

// TestQueryNowToday: a search syncs with the day of its Query.Now when
// set (the context builder's day, in its zone), else of Options.Now, so a
// daily is indexed exactly when it is not the searcher's today, whatever
// a search before it used.
func TestQueryNowToday(t *testing.T) {
	east := time.Date(2026, 11, 20, 23, 30, 0, 0, time.UTC).In(time.FixedZone("+14", 14*3600))
	const daily = "beacon/memory/2026-11-20.md"
	cases := []struct {
		name  string
		nows  []time.Time // one search each, in order; the last one is checked
		found bool
	}{
		{"the index clock", []time.Time{{}}, false},
		{"a zone a day ahead", []time.Time{east}, true},
		{"back to the index clock", []time.Time{east, {}}, false},
		{"ahead after the index clock", []time.Time{{}, east}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			writeFile(t, ws, daily, "# 2026-11-20\n\n## Failover drill\n\nRan the zebraquokka failover drill.\n")
			ix, _ := openIndex(t, ws, Options{})
			var hits []Hit
			for _, now := range tc.nows {
				hits = runSearch(t, ix, Query{Text: "zebraquokka", Teammates: []string{"beacon"}, Now: now, RecencyDepth: -1})
			}
			if got := contains(paths(hits), daily); got != tc.found {
				t.Errorf("%s found: %v, want %v (hits %v)", daily, got, tc.found, paths(hits))
			}
		})
	}
}
