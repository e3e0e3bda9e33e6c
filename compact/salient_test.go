package compact

import (
	"context"
	"strings"
	"testing"

	"github.com/tmemhq/tmem/layout"
)

// meetingNotes is a long entry: a lead, then sentences that keep coming
// back to the search cutover, a few about other things once each, and
// small talk.
var meetingNotes = []string{
	"Weekly sync with atlas and quill about the search cutover.",
	"Good morning, everyone!",
	"The search cutover moves shipment search from Postgres trigram matching to the dedicated search index.",
	"Readers query the shipments-read alias, and the backfill writes into a dated search index.",
	"Thanks, that helps.",
	"The lunch order goes to the usual place on Friday afternoon.",
	"The cutover itself is a single alias swap once the backfill of the search index has caught up.",
	"Sounds good to me.",
	"Quill asked whether the legacy trigram path stays behind a flag after the cutover.",
	"It stays behind the search.legacy flag until the end of the month, then the trigram code goes.",
	"Parking near the office is closed on Tuesday for repairs to the garage roof.",
	"Atlas wants latency numbers for the search index at forty requests a second before the swap.",
	"Okay!",
}

// TestSalientSentences checks what a long entry keeps besides its lead:
// one sentence for every four after it, the ones that say what the rest
// keeps saying, never small talk or one-off remarks, in the entry's order
// and word for word; a short entry keeps its lead alone.
func TestSalientSentences(t *testing.T) {
	picked := salientSentences([]string{strings.Join(meetingNotes, " ")}, meetingNotes[0])
	if want := (len(meetingNotes) - 1) / extraEvery; len(picked) != want {
		t.Fatalf("kept %d sentences besides the lead, want %d: %q", len(picked), want, inOrder(picked, len(picked)))
	}
	got := inOrder(picked, len(picked))
	last := 0
	for _, s := range got {
		i := indexOf(meetingNotes, s)
		if i < 1 {
			t.Fatalf("%q is not one of the entry's sentences after its lead", s)
		}
		if i < last {
			t.Errorf("kept out of order: %q", got)
		}
		last = i
		if !strings.Contains(strings.ToLower(s), "search") && !strings.Contains(s, "cutover") {
			t.Errorf("kept %q, which is not about what the entry keeps coming back to", s)
		}
	}
	if short := salientSentences(meetingNotes[:extraEvery], meetingNotes[0]); len(short) != 0 {
		t.Errorf("an entry of %d sentences kept more than its lead: %q", extraEvery, inOrder(short, len(short)))
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestLongEntryWeekly checks a weekly made from a long entry whose log is
// not kept (compact.archive false): its bullet is the heading, the lead
// and the kept sentences, an ellipsis where text is left out, marked text
// still follows word for word, and the summary is valid. Over budget, the
// least salient kept sentences go first. A log kept in the archive is
// summed up by its leads alone.
func TestLongEntryWeekly(t *testing.T) {
	daily := "# 2026-03-09\n\n## Search sync\n\n" + strings.Join(meetingNotes, " ") +
		"\n\n- Decision: the alias swap happens on a Tuesday morning. #decision\n"
	req := Request{Kind: KindWeekly, Teammate: "beacon", Unit: "2026-W11", Period: "2026-03-09 to 2026-03-15", Budget: 100000,
		Sources: []Source{{Path: "beacon/memory/2026-03-09.md", Label: "2026-03-09", Text: daily}}}
	full := summarize(t, req)
	kept := extrasIn(t, full)
	if len(kept) != (len(meetingNotes)-1)/extraEvery {
		t.Fatalf("bullet keeps %d sentences besides the lead:\n%s", len(kept), full)
	}
	if !strings.Contains(full, "- Search sync — "+meetingNotes[0]+" … ") {
		t.Errorf("bullet does not start with the heading and the lead:\n%s", full)
	}
	if !strings.Contains(full, "\n  - Decision: the alias swap happens on a Tuesday morning. #decision\n") {
		t.Errorf("marked text lost:\n%s", full)
	}
	archived := req
	archived.Sources = []Source{req.Sources[0]}
	archived.Sources[0].Where = "2026-03-09.md in archive/2026-03.md"
	if kept := extrasIn(t, summarize(t, archived)); len(kept) != 0 {
		t.Errorf("a log kept in the archive is summed up by more than its leads: %q", kept)
	}
	req.Budget = Tokens(full) - 1
	less := summarize(t, req)
	fewer := extrasIn(t, less)
	if len(fewer) == 0 || len(fewer) >= len(kept) {
		t.Fatalf("one token over budget kept %d of %d sentences:\n%s", len(fewer), len(kept), less)
	}
	top := inOrder(salientSentences([]string{strings.Join(meetingNotes, " ")}, meetingNotes[0]), len(fewer))
	if strings.Join(fewer, "|") != strings.Join(top, "|") {
		t.Errorf("over budget kept %q, want the most salient %q", fewer, top)
	}
}

func summarize(t *testing.T, req Request) string {
	t.Helper()
	out, err := Extractive{}.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(req, out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := layout.Parse("weekly.md", []byte(out)); err != nil {
		t.Fatalf("summary does not parse: %v\n%s", err, out)
	}
	return out
}

// extrasIn is the sentences the summary's first bullet keeps after its
// lead.
func extrasIn(t *testing.T, summary string) []string {
	t.Helper()
	for _, l := range strings.Split(summary, "\n") {
		if strings.HasPrefix(l, "- ") {
			parts := strings.Split(l, " … ")
			return parts[1:]
		}
	}
	t.Fatalf("no bullet in:\n%s", summary)
	return nil
}

// TestLongLeadLeftOut checks a long entry whose first sentence is too
// long to quote: the summary still keeps its salient sentences, after an
// ellipsis, and none of them is the lead.
func TestLongLeadLeftOut(t *testing.T) {
	lead := "Weekly sync with atlas and quill about the search cutover, " + strings.Repeat("and more on the agenda, ", 15) + "as planned."
	notes := append([]string{lead}, meetingNotes[1:]...)
	daily := "# 2026-03-09\n\n## Search sync\n\n" + strings.Join(notes, " ") + "\n"
	req := Request{Kind: KindWeekly, Teammate: "beacon", Unit: "2026-W11", Period: "2026-03-09 to 2026-03-15", Budget: 100000,
		Sources: []Source{{Path: "beacon/memory/2026-03-09.md", Label: "2026-03-09", Text: daily}}}
	out := summarize(t, req)
	if !strings.Contains(out, "- Search sync — … ") {
		t.Fatalf("the bullet does not go from the heading to the kept sentences:\n%s", out)
	}
	if kept := extrasIn(t, out); len(kept) != (len(notes)-1)/extraEvery || strings.Contains(out, "as planned.") {
		t.Errorf("kept %q, want %d sentences and not the lead", kept, (len(notes)-1)/extraEvery)
	}
}
