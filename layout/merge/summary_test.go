package merge_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// Two machines that compacted the same week at different points: the
// merge keeps the fuller summary with the sources of both, whichever side
// is ours, and falls back to a conflict when neither holds the other.
func TestMergeSummaries(t *testing.T) {
	weekly := func(sources []string, bullets ...string) string {
		return "---\ntype: weekly\nweek: 2026-W10\nteammate: beacon\nperiod: 2026-03-02 to 2026-03-08\nsources:\n- " +
			strings.Join(sources, "\n- ") + "\n---\n\n" + strings.Join(bullets, "\n") + "\n"
	}
	early := weekly([]string{"2026-03-03.md sha256:aaaaaaaaaaaa"}, "- Moved the queue.", "- Fixed the alias.")
	late := weekly([]string{"2026-03-03.md sha256:bbbbbbbbbbbb"}, "- Moved the queue.", "- Fixed the alias.", "- Paged on the outage.")
	want := weekly([]string{"2026-03-03.md sha256:bbbbbbbbbbbb", "2026-03-03.md sha256:aaaaaaaaaaaa"}, "- Moved the queue.", "- Fixed the alias.", "- Paged on the outage.")
	path := "beacon/memory/weekly/2026-W10.md"
	for _, sides := range [][2]string{{early, late}, {late, early}} {
		res, err := merge.Merge(path, nil, []byte(sides[0]), []byte(sides[1]))
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Data) != want || res.Conflicts != 0 {
			t.Errorf("got %d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, want)
		}
	}
	other := weekly([]string{"2026-03-04.md sha256:cccccccccccc"}, "- Moved the queue.", "- Wrote the runbook.")
	res, err := merge.Merge(path, nil, []byte(early), []byte(other))
	if err != nil {
		t.Fatal(err)
	}
	if res.Conflicts == 0 {
		t.Errorf("summaries that do not hold each other merged without a conflict:\n%s", res.Data)
	}
}

// Two machines that archived one daily at different points in its life:
// the merged archive holds each entry once: the earlier copy whole, the
// later one as a part with only what the earlier lacks, or not at all.
// Which side is ours does not matter.
func TestMergeArchiveCopies(t *testing.T) {
	d1, d2 := time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC)
	entry := func(n int) string { return "## Entry " + string(rune('A'+n)) + "\n\nText " + string(rune('a'+n)) + "." }
	daily := func(ns ...int) []byte {
		out := "# 2026-03-05\n"
		for _, n := range ns {
			out += "\n" + entry(n) + "\n"
		}
		return []byte(out)
	}
	file := func(secs ...layout.ArchiveSection) []byte {
		first := layout.NewArchiveSection("2026-03-02.md", []byte("# 2026-03-02\n"), d1)
		return layout.AppendArchive(nil, "2026-03", append([]layout.ArchiveSection{first}, secs...)...)
	}
	copyOf := func(on time.Time, ns ...int) layout.ArchiveSection {
		return layout.NewArchiveSection("2026-03-05.md", daily(ns...), on)
	}
	tests := []struct {
		name        string
		early, late layout.ArchiveSection
		want        []byte
	}{
		{"the later copy keeps only the entry the earlier lacks", copyOf(d1, 0, 1), copyOf(d2, 0, 1, 2),
			file(copyOf(d1, 0, 1), copyOf(d2, 0, 1, 2).PartOf(entry(2)))},
		{"copies that each hold an entry the other lacks", copyOf(d1, 0, 1), copyOf(d2, 0, 2),
			file(copyOf(d1, 0, 1), copyOf(d2, 0, 2).PartOf(entry(2)))},
		{"a later copy the earlier holds entirely goes", copyOf(d1, 0, 1, 2), copyOf(d2, 0, 1),
			file(copyOf(d1, 0, 1, 2))},
	}
	path := "beacon/memory/archive/2026-03.md"
	for _, tt := range tests {
		for _, swap := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, swapped %v", tt.name, swap), func(t *testing.T) {
				ours, theirs := file(tt.early), file(tt.late)
				if swap {
					ours, theirs = theirs, ours
				}
				res, err := merge.Merge(path, file(), ours, theirs)
				if err != nil {
					t.Fatal(err)
				}
				if string(res.Data) != string(tt.want) || res.Conflicts != 0 {
					t.Errorf("got %d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, tt.want)
				}
				if len(res.Notes) == 0 {
					t.Error("no note says what the merge did to the copies")
				}
			})
		}
	}
}
