package context

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/recall"
)

// TestZoneDailyReachable builds in a time zone whose date is not the
// clock's own, with a real recall index opened on the clock: a daily at
// an edge of the builder's recent window (east: a day older than it, which
// recall must find; west: the clock's today, a day after the zone's, which
// the daily logs show) is in the stack once.
func TestZoneDailyReachable(t *testing.T) {
	cases := []struct {
		name  string
		clock time.Time
		zone  *time.Location
		day   string
	}{
		{"east of the clock", time.Date(2026, 11, 20, 23, 30, 0, 0, time.UTC), time.FixedZone("+14", 14*3600), "2026-11-14"},
		{"west of the clock", time.Date(2026, 11, 20, 5, 0, 0, 0, time.UTC), time.FixedZone("-12", -12*3600), "2026-11-20"},
		{"same zone", time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), time.UTC, "2026-11-13"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := writeFiles(t, map[string]string{
				"beacon/SOUL.md": "# Beacon\n\nSearch engineer.\n",
				"beacon/memory/" + tc.day + ".md": "# " + tc.day +
					"\n\n## Failover drill\n\nRan the zebraquokka failover drill on the replica.\n",
			})
			ix, err := recall.Open(ws, recall.Options{Now: fixedClock(tc.clock)})
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			r, err := Build(context.Background(), ws, Options{Teammate: "beacon", Task: "zebraquokka failover drill",
				Now: fixedClock(tc.clock), Location: tc.zone, Recaller: ix})
			if err != nil {
				t.Fatal(err)
			}
			shown := sectionText(t, r, SectionDailies) + sectionText(t, r, SectionRecall)
			if n := strings.Count(shown, "zebraquokka"); n != 1 {
				t.Errorf("the %s daily is shown %d times in the daily logs and recalled memories, want 1:\n%s", tc.day, n, shown)
			}
		})
	}
}
