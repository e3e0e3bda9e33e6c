package compact

import (
	"context"
	"strings"
	"testing"
)

// TestFailuresSayTheirFileOnce checks the words of a run's failures: a
// file's failure names the file once, with its line, in the plan and in
// the run's error, and the error says which of several it quotes. Before,
// each named the file twice ("compact x.md: x.md:4: …") and the error
// quoted the first of several as if it were the only one.
func TestFailuresSayTheirFileOnce(t *testing.T) {
	const bad = "# 2026-11-05\n\n## bad\n\xff\xfe\n"
	for _, n := range []int{1, 2} {
		ws := genWorkspace(t, day("2026-11-02"), day("2026-11-04"), 2, nil)
		writeFile(t, ws, "beacon/memory/2026-11-05.md", bad, day("2026-11-05"))
		if n == 2 {
			writeFile(t, ws, "beacon/memory/2026-11-06.md", strings.ReplaceAll(bad, "05", "06"), day("2026-11-06"))
		}
		res, err := Run(context.Background(), ws, Options{DryRun: true, Now: fixed("2026-11-18")})
		want := map[int]string{
			1: "compact: 1 unit or file failed, its sources are kept: beacon/memory/2026-11-05.md:4: invalid UTF-8",
			2: "compact: 2 units or files failed, their sources are kept; the first: beacon/memory/2026-11-05.md:4: invalid UTF-8",
		}[n]
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("%d failed: err = %v\nwant %s…", n, err, want)
		}
		var b strings.Builder
		if err := res.Plan.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); !strings.Contains(got, "\nfail beacon/memory/2026-11-05.md:4: invalid UTF-8") || strings.Contains(got, ".md: beacon/") {
			t.Errorf("%d failed: the plan says:\n%s", n, got)
		}
	}
}
