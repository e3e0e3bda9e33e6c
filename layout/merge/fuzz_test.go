package merge_test

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// fuzzPaths are the kinds of file FuzzMerge merges its input as.
var fuzzPaths = []string{
	"beacon/memory/2026-03-09.md",
	"beacon/WISDOM.md",
	"beacon/memory/project_auth.md",
	"beacon/memory/weekly/2026-W10.md",
	"beacon/memory/archive/2026-03.md",
}

// FuzzMerge checks, for any three versions of a file, that the merge
// ends, keeps valid UTF-8, counts the conflict markers it writes, and
// writes a file that parses when the versions do and nothing conflicts.
func FuzzMerge(f *testing.F) {
	for _, s := range mergeSeeds() {
		f.Add(s.base, s.ours, s.theirs, s.kind)
	}
	f.Fuzz(func(t *testing.T, base, ours, theirs string, kind uint8) {
		path := fuzzPaths[int(kind)%len(fuzzPaths)]
		res, err := merge.Merge(path, []byte(base), []byte(ours), []byte(theirs))
		if err != nil {
			t.Fatalf("merge: %v", err)
		}
		in := []string{base, ours, theirs}
		if allValid(in) && !utf8.Valid(res.Data) {
			t.Fatalf("merged %q into invalid UTF-8 %q", in, res.Data)
		}
		if !anyMarkers(in) {
			if n := opened(res.Data); n != res.Conflicts {
				t.Fatalf("%d conflicts counted, %d written:\n%s", res.Conflicts, n, res.Data)
			}
		}
		if res.Conflicts == 0 && allParse(in) {
			if _, err := layout.Parse(path, res.Data); err != nil {
				t.Fatalf("merged %q into a file that does not parse: %v\n%q", in, err, res.Data)
			}
		}
	})
}

func allValid(vs []string) bool {
	for _, v := range vs {
		if !utf8.ValidString(v) {
			return false
		}
	}
	return true
}

func anyMarkers(vs []string) bool {
	for _, v := range vs {
		if len(layout.ConflictMarkers([]byte(v))) > 0 || strings.Contains(v, "<<<<<<<") {
			return true
		}
	}
	return false
}

func allParse(vs []string) bool {
	for _, v := range vs {
		if _, err := layout.Parse("f.md", []byte(v)); err != nil {
			return false
		}
	}
	return true
}

// opened counts the conflicts layout.ConflictMarkers finds in data.
func opened(data []byte) int {
	n := 0
	lines := bytes.Split(data, []byte("\n"))
	for _, ln := range layout.ConflictMarkers(data) {
		if bytes.HasPrefix(lines[ln-1], []byte("<<<<<<<")) {
			n++
		}
	}
	return n
}

// mergeSeed is three versions of a file and its kind, an index in
// fuzzPaths.
type mergeSeed struct {
	base, ours, theirs string
	kind               uint8
}

// mergeSeeds are versions from the merge tests: appends on both sides,
// frontmatter edits, summaries and archive sections.
func mergeSeeds() []mergeSeed {
	fm := func(desc, tags, body string) string {
		return "---\nname: auth\ndescription: " + desc + "\ntype: project\n" + tags + "---\n\n" + body + "\n"
	}
	weekly := func(src, body string) string {
		return "---\ntype: weekly\nweek: 2026-W10\nperiod: 2026-03-02 to 2026-03-08\nsources:\n- " + src + "\n---\n\n" + body + "\n"
	}
	sec := func(src string, on int) string {
		s := layout.NewArchiveSection(src, []byte("# "+src+"\n\n## A\n\ntext\n"), time.Date(2026, 3, on, 0, 0, 0, 0, time.UTC))
		return string(layout.AppendArchive(nil, "2026-03", s))
	}
	day := "# 2026-03-09\n\n## A\n\na\n"
	stamp := "<!-- tmem:at 2026-03-09T10:00:00Z -->"
	return []mergeSeed{
		{day, day + "\n## B\n\nb\n", day + "\n## C\n" + stamp + "\n\nc\n", 0},
		{day, string(layout.DailyStub(time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC), true)), day + "\n## C\n\nc\n", 0},
		{"# W\n\n## A\n\na\n\n## B\n\nb\n", "# W\n\n## B\n\nb\n", "# W\n\n## A\n\na\n\n## B\n\nb\n\n## C\n\nc\n", 1},
		{fm("old", "", "body"), fm("mine", "", "body"), fm("yours", "tags: [a]\n", "body"), 2},
		{weekly("2026-03-03.md sha256:aaaaaaaaaaaa", "- Moved."), weekly("2026-03-03.md sha256:bbbbbbbbbbbb", "- Moved.\n- Fixed."), weekly("2026-03-04.md sha256:cccccccccccc", "- Wrote."), 3},
		{sec("2026-03-02.md", 16), sec("2026-03-02.md", 17), sec("2026-03-03.md", 16), 4},
		{"---\nname: [\n---\nx\n", "---\nname: [\n---\nx\ny\n", "---\nname: [\n---\nx\nz\n", 2},
	}
}
