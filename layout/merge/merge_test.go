package merge_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

func TestMergeFiles(t *testing.T) {
	fm := func(desc, tags, body string) string {
		return "---\nname: auth\ndescription: " + desc + "\ntype: project\n" + tags + "---\n\n" + body + "\n"
	}
	section := func(src string, on time.Time) string {
		return strings.TrimSuffix(string(layout.AppendArchive(nil, "2026-03", layout.NewArchiveSection(src, []byte("# "+src+"\n"), on))), "\n")
	}
	arch := func(secs ...string) string {
		out := secs[0]
		for _, s := range secs[1:] {
			i := strings.Index(s, "<!-- tmem:archive")
			out += "\n\n" + s[i:]
		}
		return out + "\n"
	}
	d1, d2 := time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, path, base, ours, theirs string
		want                           string
		conflicts                      int
	}{
		{
			name: "frontmatter fields changed on each side merge",
			path: "beacon/memory/project_auth.md",
			base: fm("old", "", "body"), ours: fm("new", "", "body"), theirs: fm("old", "tags: [a]\n", "body"),
			want: fm("new", "tags: [a]\n", "body"),
		},
		{
			name: "the same field changed differently is a conflict on that field",
			path: "beacon/memory/project_auth.md",
			base: fm("old", "", "body"), ours: fm("mine", "", "body"), theirs: fm("yours", "", "body"),
			want:      "---\nname: auth\n<<<<<<< ours\ndescription: mine\n=======\ndescription: yours\n>>>>>>> theirs\ntype: project\n---\n\nbody\n",
			conflicts: 1,
		},
		{
			name: "wisdom sections added on both sides are kept once",
			path: "beacon/WISDOM.md",
			base: "# Wisdom\n\n## A\n\na\n", ours: "# Wisdom\n\n## A\n\na\n\n## B\n\nb\n\n## C\n\nc\n", theirs: "# Wisdom\n\n## A\n\na\n\n## C\n\nc\n",
			want: "# Wisdom\n\n## A\n\na\n\n## B\n\nb\n\n## C\n\nc\n",
		},
		{
			name: "a section deleted on one side and kept on the other goes",
			path: "beacon/WISDOM.md",
			base: "# W\n\n## A\n\na\n\n## B\n\nb\n", ours: "# W\n\n## B\n\nb\n", theirs: "# W\n\n## A\n\na\n\n## B\n\nb\n\n## C\n\nc\n",
			want: "# W\n\n## B\n\nb\n\n## C\n\nc\n",
		},
		{
			name: "archive sections are a union by source and hash",
			path: "beacon/memory/archive/2026-03.md",
			base: arch(section("2026-03-02.md", d1)), ours: arch(section("2026-03-02.md", d1), section("2026-03-04.md", d2)),
			theirs: arch(section("2026-03-02.md", d1), section("2026-03-03.md", d2), section("2026-03-04.md", d2)),
			want:   arch(section("2026-03-02.md", d1), section("2026-03-03.md", d2), section("2026-03-04.md", d2)),
		},
		{
			name: "a section archived again on another day: the change on theirs is kept",
			path: "beacon/memory/archive/2026-03.md",
			base: arch(section("2026-03-02.md", d2)), ours: arch(section("2026-03-02.md", d2), section("2026-03-04.md", d2)),
			theirs: arch(section("2026-03-02.md", d1)),
			want:   arch(section("2026-03-02.md", d1), section("2026-03-04.md", d2)),
		},
		{
			name: "a section archived on different days on each side: the earlier is kept",
			path: "beacon/memory/archive/2026-03.md",
			base: arch(section("2026-03-02.md", d2), section("2026-03-04.md", d2)), ours: arch(section("2026-03-02.md", d2.AddDate(0, 0, 1)), section("2026-03-04.md", d2)),
			theirs: arch(section("2026-03-02.md", d1), section("2026-03-04.md", d2)),
			want:   arch(section("2026-03-02.md", d1), section("2026-03-04.md", d2)),
		},
		{
			name:      "an archive section edited by hand on both sides is a conflict",
			path:      "beacon/memory/archive/2026-03.md",
			base:      arch(section("2026-03-02.md", d1)),
			ours:      strings.Replace(arch(section("2026-03-02.md", d1)), "# 2026-03-02.md\n", "# 2026-03-02.md (typo)\n", 1),
			theirs:    strings.Replace(arch(section("2026-03-02.md", d1)), "# 2026-03-02.md\n", "# 2026-03-02.md\n\ntoken removed\n", 1),
			want:      sectionConflict(strings.Replace(section("2026-03-02.md", d1), "# 2026-03-02.md", "# 2026-03-02.md (typo)", 1), strings.Replace(section("2026-03-02.md", d1), "# 2026-03-02.md", "# 2026-03-02.md\n\ntoken removed", 1)),
			conflicts: 1,
		},
		{
			name: "an entry written again word for word is kept",
			path: "beacon/memory/2026-03-14.md",
			base: "# 2026-03-14\n\n## Standup\n- no blockers\n", ours: "# 2026-03-14\n\n## Standup\n- no blockers\n\n## Lunch\n- pizza\n",
			theirs: "# 2026-03-14\n\n## Standup\n- no blockers\n\n## Review\n- ok\n\n## Standup\n- no blockers\n",
			want:   "# 2026-03-14\n\n## Standup\n- no blockers\n\n## Lunch\n- pizza\n\n## Review\n- ok\n\n## Standup\n- no blockers\n",
		},
		{
			name:   "a stamp in a code block starts no entry",
			path:   "beacon/memory/2026-03-14.md",
			base:   "# 2026-03-14\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\n```\n<!-- tmem:at 2026-03-14T07:00:00Z -->\n```\nalpha\n",
			ours:   "# 2026-03-14\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\n```\n<!-- tmem:at 2026-03-14T07:00:00Z -->\n```\nalpha\n\n## C\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
			theirs: "# 2026-03-14\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\n```\n<!-- tmem:at 2026-03-14T07:00:00Z -->\n```\nalpha\n\n## D\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n",
			want:   "# 2026-03-14\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\n```\n<!-- tmem:at 2026-03-14T07:00:00Z -->\n```\nalpha\n\n## D\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## C\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
		},
		{
			name:   "entries with a blank line between heading and stamp, added on both sides",
			path:   "beacon/memory/2026-03-14.md",
			base:   "# 2026-03-14\n\n## A\n\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\nalpha.\n",
			ours:   "# 2026-03-14\n\n## A\n\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\nalpha.\n\n## C\n\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n\ngamma.\n",
			theirs: "# 2026-03-14\n\n## A\n\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\nalpha.\n\n## D\n\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\ndelta.\n",
			want:   "# 2026-03-14\n\n## A\n\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\nalpha.\n\n## D\n\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\ndelta.\n\n## C\n\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n\ngamma.\n",
		},
		{
			name:   "appends on both sides under a heading with no text merge",
			path:   "beacon/memory/project_x.md",
			base:   "# P\n\n## Notes\n",
			ours:   "# P\n\n## Notes\n\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\nfirst note\n",
			theirs: "# P\n\n## Notes\n\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n\nsecond note\n",
			want:   "# P\n\n## Notes\n\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\nfirst note\n\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n\nsecond note\n",
		},
		{
			name: "edits to two entries next to each other merge",
			path: "beacon/memory/2026-03-14.md",
			base: "# d\n\n## A\n- a\n\n## B\n- b\n\n## C\n- c\n", ours: "# d\n\n## A\n- a, edited\n\n## B\n- b\n\n## C\n- c\n",
			theirs: "# d\n\n## A\n- a\n\n## B\n- b, edited\n\n## New\n- n\n\n## C\n- c\n",
			want:   "# d\n\n## A\n- a, edited\n\n## B\n- b, edited\n\n## New\n- n\n\n## C\n- c\n",
		},
		{
			name:   "CRLF line ends stay CRLF, blank lines between entries included",
			path:   "beacon/memory/2026-03-14.md",
			base:   "# d\r\n\r\n## A\r\n- a\r\n",
			ours:   "# d\r\n\r\n## A\r\n- a\r\n\r\n## B\r\n<!-- tmem:at 2026-03-14T11:00:00Z -->\r\n",
			theirs: "# d\r\n\r\n## A\r\n- a\r\n\r\n## C\r\n<!-- tmem:at 2026-03-14T10:00:00Z -->\r\n",
			want:   "# d\r\n\r\n## A\r\n- a\r\n\r\n## C\r\n<!-- tmem:at 2026-03-14T10:00:00Z -->\r\n\r\n## B\r\n<!-- tmem:at 2026-03-14T11:00:00Z -->\r\n",
		},
		{
			name:   "entries a person put out of time order stay so; new ones go by time",
			path:   "beacon/memory/2026-03-14.md",
			base:   "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n",
			ours:   "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\n## C\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
			theirs: "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\n## D\n<!-- tmem:at 2026-03-14T10:30:00Z -->\n",
			want:   "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\n\n## D\n<!-- tmem:at 2026-03-14T10:30:00Z -->\n\n## C\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
		},
		{
			name:   "an entry edited on one side keeps the place a person gave it",
			path:   "beacon/memory/2026-03-14.md",
			base:   "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\na\n",
			ours:   "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\na, corrected\n",
			theirs: "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\na\n\n## C\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
			want:   "# d\n\n## B\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## A\n<!-- tmem:at 2026-03-14T09:00:00Z -->\na, corrected\n\n## C\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
		},
		{
			name:   "CRLF lines of theirs in an LF file become LF",
			path:   "beacon/memory/2026-03-14.md",
			base:   "# d\n\n## A\n- a\n",
			ours:   "# d\n\n## A\n- a\n\n## B\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
			theirs: "# d\r\n\r\n## A\r\n- a\r\n\r\n## C\r\n<!-- tmem:at 2026-03-14T10:00:00Z -->\r\n",
			want:   "# d\n\n## A\n- a\n\n## C\n<!-- tmem:at 2026-03-14T10:00:00Z -->\n\n## B\n<!-- tmem:at 2026-03-14T11:00:00Z -->\n",
		},
		{
			name:   "spacing as written: a byte-order mark, no blank line after the frontmatter, two between entries, no final line break",
			path:   "beacon/memory/project_auth.md",
			base:   "\ufeff---\nname: auth\n---\n# Auth\n\n\n## A\na",
			ours:   "\ufeff---\nname: auth\n---\n# Auth\n\n\n## A\na, edited",
			theirs: "\ufeff---\nname: auth\ntags: [x]\n---\n# Auth\n\n\n## A\na",
			want:   "\ufeff---\nname: auth\ntags: [x]\n---\n# Auth\n\n\n## A\na, edited",
		},
		{
			name: "a file that does not parse merges by line",
			path: "beacon/memory/project_auth.md",
			base: "---\nname: [\n---\nx\n", ours: "---\nname: [\n---\nx\ny\n", theirs: "---\nname: [\n---\nx\nz\n",
			want:      "---\nname: [\n---\nx\n<<<<<<< ours\ny\n=======\nz\n>>>>>>> theirs\n",
			conflicts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := merge.Merge(tt.path, []byte(tt.base), []byte(tt.ours), []byte(tt.theirs))
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Data) != tt.want || res.Conflicts != tt.conflicts {
				t.Errorf("got %d conflicts:\n%s\nwant %d:\n%s", res.Conflicts, res.Data, tt.conflicts, tt.want)
			}
		})
	}
}

// sectionConflict is an archive file of one section, o and t archive
// files of that section as ours and theirs.
func sectionConflict(o, t string) string {
	i := strings.Index(o, "<!-- tmem:archive")
	j := strings.Index(t, "<!-- tmem:archive")
	return o[:i] + "<<<<<<< ours\n" + o[i:] + "\n=======\n" + t[j:] + "\n>>>>>>> theirs\n"
}

// TestNoteUnderTitleOutlivesCompaction: text written under a daily's
// title before its first entry is kept when the other side compacted the
// daily (stubbed or deleted it), as entries appended since are.
func TestNoteUnderTitleOutlivesCompaction(t *testing.T) {
	const path = "beacon/memory/2026-03-03.md"
	day := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)
	base := "# 2026-03-03\n\n## Day 03 work\n<!-- tmem:at 2026-03-03T09:00:00Z -->\nshipped\n"
	noted := strings.Replace(base, "# 2026-03-03\n", "# 2026-03-03\n\nOn call today; pager was noisy.\n", 1)
	stub := string(layout.DailyStub(day, true))
	want := stub + "\nOn call today; pager was noisy.\n"
	res, err := merge.Merge(path, []byte(base), []byte(noted), []byte(stub))
	if err != nil || string(res.Data) != want {
		t.Errorf("merge with the stub: %v\n%s\nwant\n%s", err, res.Data, want)
	}
	data, n, err := merge.Deleted(path, []byte(base), []byte(noted), true)
	if err != nil || n != 1 || string(data) != want {
		t.Errorf("deleted on one side: %d unit(s), %v\n%s\nwant\n%s", n, err, data, want)
	}
}

func ExampleMerge() {
	base := "# 2026-03-09\n\n## Seed\n<!-- tmem:at 2026-03-09T09:00:00Z -->\n"
	ours := base + "\n## From laptop\n<!-- tmem:at 2026-03-09T11:00:00Z -->\n"
	theirs := base + "\n## From CI\n<!-- tmem:at 2026-03-09T10:00:00Z -->\n"
	res, _ := merge.Merge("beacon/memory/2026-03-09.md", []byte(base), []byte(ours), []byte(theirs))
	fmt.Print(string(res.Data))
	fmt.Println("conflicts:", res.Conflicts)
	// Output:
	// # 2026-03-09
	//
	// ## Seed
	// <!-- tmem:at 2026-03-09T09:00:00Z -->
	//
	// ## From CI
	// <!-- tmem:at 2026-03-09T10:00:00Z -->
	//
	// ## From laptop
	// <!-- tmem:at 2026-03-09T11:00:00Z -->
	// conflicts: 0
}

// TestArchiveKeepsSourceBytes: an archive section of a daily with mixed
// line ends still restores it exactly after a merge into an LF archive.
func TestArchiveKeepsSourceBytes(t *testing.T) {
	on := time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC)
	sec := func(src, text string) layout.ArchiveSection { return layout.NewArchiveSection(src, []byte(text), on) }
	base := layout.AppendArchive(nil, "2026-03", sec("2026-03-02.md", "# 2026-03-02\n"))
	ours := layout.AppendArchive(base, "2026-03", sec("2026-03-03.md", "# 2026-03-03\n"))
	mixed := "# 2026-03-04\r\n\r\n## A\nalpha\r\n"
	theirs := layout.AppendArchive(base, "2026-03", sec("2026-03-04.md", mixed))
	for _, swap := range []bool{false, true} {
		o, th := ours, theirs
		if swap {
			o, th = theirs, ours
		}
		res, err := merge.Merge("beacon/memory/archive/2026-03.md", base, o, th)
		if err != nil {
			t.Fatal(err)
		}
		secs, err := layout.ParseArchive("beacon/memory/archive/2026-03.md", res.Data)
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, s := range secs {
			ok = ok || s.Source == "2026-03-04.md" && s.Verify() && string(s.Original()) == mixed
		}
		if !ok {
			t.Errorf("swapped %v: the merged archive no longer restores the daily of mixed line ends:\n%q", swap, res.Data)
		}
	}
}

// TestArchivePartKeepsRepeatedHeading: a later copy of a daily kept as a
// part holds its new entry whole, heading included, when the entry's
// heading repeats an earlier one's and a blank line parts it from its
// stamp.
func TestArchivePartKeepsRepeatedHeading(t *testing.T) {
	d1, d2 := time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC)
	first := "# 2026-03-10\n\n## Standup\n\n<!-- tmem:at 2026-03-10T09:00:00Z -->\n\nx\n"
	later := first + "\n## Standup\n\n<!-- tmem:at 2026-03-10T17:00:00Z -->\n\ny\n"
	base := layout.AppendArchive(nil, "2026-03", layout.NewArchiveSection("2026-03-02.md", []byte("# 2026-03-02\n"), d1))
	ours := layout.AppendArchive(base, "2026-03", layout.NewArchiveSection("2026-03-10.md", []byte(first), d1))
	theirs := layout.AppendArchive(base, "2026-03", layout.NewArchiveSection("2026-03-10.md", []byte(later), d2))
	res, err := merge.Merge("beacon/memory/archive/2026-03.md", base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "## Standup\n\n<!-- tmem:at 2026-03-10T17:00:00Z -->\n\ny\n"; strings.Count(string(res.Data), "## Standup\n") != 2 || !strings.Contains(string(res.Data), want) {
		t.Errorf("the later copy's part lacks its entry's heading:\n%s", res.Data)
	}
}
