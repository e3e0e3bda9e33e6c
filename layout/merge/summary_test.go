package merge_test

import (
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
// the merged archive keeps only the fuller copy, so no entry is in it
// twice; a copy with an entry the other lacks stays.
func TestMergeArchiveCopies(t *testing.T) {
	on := time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC)
	entry := func(n int) string {
		return "## Entry " + string(rune('A'+n)) + "\n\nText " + string(rune('a'+n)) + ".\n"
	}
	daily := func(ns ...int) []byte {
		out := "# 2026-03-05\n"
		for _, n := range ns {
			out += "\n" + entry(n)
		}
		return []byte(out)
	}
	file := func(copies ...[]byte) []byte {
		out := layout.AppendArchive(nil, "2026-03", layout.NewArchiveSection("2026-03-02.md", []byte("# 2026-03-02\n"), on))
		for _, c := range copies {
			out = layout.AppendArchive(out, "2026-03", layout.NewArchiveSection("2026-03-05.md", c, on))
		}
		return out
	}
	path := "beacon/memory/archive/2026-03.md"
	tests := []struct {
		name         string
		ours, theirs []byte
		want         []byte
		wantDropped  bool
	}{
		{"the fuller copy stays", file(daily(0, 1)), file(daily(0, 1, 2)), file(daily(0, 1, 2)), true},
		{"the fuller copy stays, sides swapped", file(daily(0, 1, 2)), file(daily(0, 1)), file(daily(0, 1, 2)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := merge.Merge(path, file(), tt.ours, tt.theirs)
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Data) != string(tt.want) || res.Conflicts != 0 {
				t.Errorf("got %d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, tt.want)
			}
			if got := strings.Contains(strings.Join(res.Notes, "\n"), "dropped the copy"); got != tt.wantDropped {
				t.Errorf("notes %q", res.Notes)
			}
		})
	}
	t.Run("copies that each hold an entry the other lacks both stay", func(t *testing.T) {
		res, err := merge.Merge(path, file(), file(daily(0, 1)), file(daily(0, 2)))
		if err != nil {
			t.Fatal(err)
		}
		secs, err := layout.ParseArchive(path, res.Data)
		if err != nil {
			t.Fatal(err)
		}
		if len(secs) != 3 {
			t.Errorf("got %d sections, want 3:\n%s", len(secs), res.Data)
		}
	})
}
