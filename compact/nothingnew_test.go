package compact

import (
	"context"
	"os"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// TestSummaryWithNothingNewLeftAsWritten checks that a weekly or monthly
// a person wrote, with nothing new to fold in, is left byte for byte as
// written, and a week with nothing else to do plans no unit. Before, it
// was rewritten with only a blank line added after its frontmatter.
func TestSummaryWithNothingNewLeftAsWritten(t *testing.T) {
	const weekly = "beacon/memory/weekly/2026-W43.md"
	const monthly = "beacon/memory/monthly/2025-10.md"
	const stub = "beacon/memory/2025-10-08.md"
	hand := map[string]string{
		weekly:  "---\ntype: weekly\nweek: 2026-W43\nteammate: beacon\nperiod: 2026-10-19 to 2026-10-25\n---\n- Finished the backfill.\n\nSources: 2026-10-19\n",
		monthly: "---\ntype: monthly\nmonth: 2025-10\nteammate: beacon\nperiod: 2025-09-29 to 2025-11-02\n---\n- Shipped the index.\n",
	}
	for _, dry := range []bool{true, false} {
		ws := fromTxtar(t, "-- beacon/SOUL.md --\n"+soul)
		for rel, text := range hand {
			writeFile(t, ws, rel, text, day("2026-10-26"))
		}
		writeFile(t, ws, stub, string(layout.DailyStub(day("2025-10-08"), true)), day("2025-10-09"))
		res, err := Run(context.Background(), ws, Options{Episodic: true, DryRun: dry, Now: fixed("2026-11-20")})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Plan.Units) != 1 || len(res.Plan.Units[0].Writes) != 0 || len(res.Plan.Units[0].Deletes) != 1 {
			t.Fatalf("dry %v: planned %+v, want only the month's stub deleted", dry, res.Plan.Units)
		}
		for rel, text := range hand {
			if got := fileText(t, ws.Abs(rel)); got != text {
				t.Errorf("dry %v: %s was rewritten:\n%s", dry, rel, got)
			}
		}
		if _, err := os.Stat(ws.Abs(stub)); dry == os.IsNotExist(err) {
			t.Errorf("dry %v: the stub: %v", dry, err)
		}
	}
}
