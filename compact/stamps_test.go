package compact

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// deployMemories are typed memories as `tmem remember` writes them, in
// order; the first is remembered twice (--mode append), so with stamps it
// holds two. The first three say the same thing; the last only shares
// their name and description.
var deployMemories = []struct {
	m    layout.Memory
	mode layout.Mode
}{
	{layout.Memory{Type: "feedback", Topic: "friday deploys", Name: "Deploy policy", Description: "How we deploy to production",
		Body: "Never deploy on Fridays.\n\n**Why:** the weekend on-call is thin.\n\n**How to apply:** merge by Thursday noon."}, layout.ModeCreate},
	{layout.Memory{Type: "feedback", Topic: "friday deploys", Name: "Deploy policy", Description: "How we deploy to production",
		Body: "Holidays count as Fridays."}, layout.ModeAppend},
	{layout.Memory{Type: "feedback", Topic: "no friday deploys", Name: "No deploys on Fridays", Description: "Production deploys wait until Monday",
		Body: "Never deploy to production on Fridays.\n\n**Why:** a Friday outage ran all weekend."}, layout.ModeCreate},
	{layout.Memory{Type: "feedback", Topic: "smoke tests", Name: "Deploy smoke tests", Description: "How we deploy to production safely",
		Body: "Run the smoke suite after every production deploy.\n\n**Why:** a broken config once went unnoticed for a day.\n\n**How to apply:** the deploy script calls make smoke."}, layout.ModeCreate},
}

// rememberDeploys writes deployMemories a day apart, stamped or not, and
// dates every file well before now.
func rememberDeploys(t *testing.T, stamped bool) *layout.Workspace {
	t.Helper()
	ws := fromTxtar(t, "-- beacon/SOUL.md --\n"+soul)
	var opts []layout.WriteOption
	if stamped {
		opts = append(opts, layout.Stamped)
	}
	at := time.Date(2026, 10, 1, 10, 0, 0, 0, time.UTC)
	for i, dm := range deployMemories {
		dm.m.At = at.AddDate(0, 0, i)
		if _, err := ws.WriteMemory(context.Background(), "beacon", dm.m, dm.mode, opts...); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range mustFiles(t, ws, "beacon") {
		if err := os.Chtimes(ws.Abs(f.Path), at, at); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestSemanticReadsPastStamps checks that the stamps `tmem remember`
// writes are neither compared nor taken for a memory's rule: stamped
// memories distil to the WISDOM.md entry the same memories make without
// stamps, and one that only shares a name and description with them is
// left alone.
func TestSemanticReadsPastStamps(t *testing.T) {
	wisdom := map[bool]string{}
	for _, stamped := range []bool{false, true} {
		ws := rememberDeploys(t, stamped)
		sl := &sourceLog{}
		o := Options{Semantic: true, Now: fixed("2027-01-01"), Summarizer: sl}
		if _, err := Run(context.Background(), ws, o); err != nil {
			t.Fatal(err)
		}
		if src := strings.Join(sl.texts, "\n---\n"); strings.Contains(src, "tmem:at") || !strings.Contains(src, "Holidays count as Fridays.") {
			t.Errorf("stamped %v: the summarizer was given stamps or not the whole memory:\n%s", stamped, src)
		}
		b, err := os.ReadFile(ws.Abs("beacon/WISDOM.md"))
		if err != nil {
			t.Fatal(err)
		}
		wisdom[stamped] = string(b)
		if got := paths(t, ws, "beacon", layout.KindTyped); len(got) != 1 || got[0] != "feedback_smoke_tests.md" {
			t.Errorf("stamped %v: typed memories left %q, want only feedback_smoke_tests.md", stamped, got)
		}
	}
	w := wisdom[true]
	if !strings.Contains(w, "\n\nNever deploy on Fridays. Why: the weekend on-call is thin. How to apply: merge by Thursday noon.\n") {
		t.Errorf("WISDOM.md does not state the stamped memories' rule:\n%s", w)
	}
	if strings.Contains(w, "tmem:at") || strings.Contains(w, "smoke") {
		t.Errorf("WISDOM.md holds a stamp or the unrelated memory:\n%s", w)
	}
	hash := regexp.MustCompile(`sha256:[0-9a-f]{12}`)
	if a, b := hash.ReplaceAllString(wisdom[false], "sha256:*"), hash.ReplaceAllString(w, "sha256:*"); a != b {
		t.Errorf("stamps change WISDOM.md:\n%s", diffLines(a, b))
	}
}

// sourceLog is the extractive summarizer, noting the text of every source
// it is given.
type sourceLog struct{ texts []string }

func (sl *sourceLog) Summarize(ctx context.Context, req Request) (string, error) {
	for _, src := range req.Sources {
		sl.texts = append(sl.texts, src.Text)
	}
	return Extractive{}.Summarize(ctx, req)
}
