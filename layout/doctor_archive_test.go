package layout

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckReportsSecretsInTheArchive: a secret compaction moved into an
// archive month file is reported at the archive's own line, with the
// archived file it belongs to, as an error like any other; so is one
// outside every section, and one in an archive that does not parse.
func TestCheckReportsSecretsInTheArchive(t *testing.T) {
	day := mustDay(t, "2026-03-20")
	a := NewArchiveSection("2026-01-05.md", []byte("# 2026-01-05\n\n## Setup\n\nGITHUB_TOKEN="+testGitHubToken+"\n"), day)
	b := NewArchiveSection("2026-01-06.md", []byte("# 2026-01-06\n\n## Clean\n\nnothing here\n"), day)
	c := NewArchiveSection("2026-01-07.md", []byte("# 2026-01-07\n\n## Keys\n\nid "+testAWSKeyID+"\n"), day)
	file := string(AppendArchive(nil, "2026-01", a, b, c)) + "\nhand note: id " + testAWSKeyID + " again\n"
	const path = "beacon/memory/archive/2026-01.md"
	advice := ": remove it from the file (and from git history if committed) and rotate it"
	gh := "looks like a GitHub token (github-pat)"
	aws := "looks like an AWS access key ID (aws-access-key-id)"
	want := []string{
		fmt.Sprintf("%s:%d: error: %s, in the archived 2026-01-05.md%s", path, lineIn(t, file, testGitHubToken), gh, advice),
		fmt.Sprintf("%s:%d: error: %s, in the archived 2026-01-07.md%s", path, lineIn(t, file, "id "+testAWSKeyID), aws, advice),
		fmt.Sprintf("%s:%d: error: %s%s", path, lineIn(t, file, testAWSKeyID+" again"), aws, advice),
	}
	if got := checkPath(t, path, file); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check reported\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bad := file + "\x00"
	got := checkPath(t, path, bad)
	first := fmt.Sprintf("%s:%d: error: %s%s", path, lineIn(t, file, testGitHubToken), gh, advice)
	if len(got) != 4 || got[0] != first || !strings.Contains(got[3], "error: binary file") {
		t.Errorf("an archive that does not parse: Check reported\n%s\nwant its secrets, then the parse error", strings.Join(got, "\n"))
	}
}

// checkPath writes src to path in a new workspace and returns what Check
// reports about path.
func checkPath(t *testing.T, path, src string) []string {
	t.Helper()
	ws := newWorkspace(t, "beacon")
	if err := ws.WriteFile(path, []byte(src)); err != nil {
		t.Fatal(err)
	}
	fs, err := ws.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		if f.Path == path {
			got = append(got, f.String())
		}
	}
	return got
}

// lineIn is the 1-based line of the first occurrence of sub in text.
func lineIn(t *testing.T, text, sub string) int {
	t.Helper()
	i := strings.Index(text, sub)
	if i < 0 {
		t.Fatalf("%q is not in the text", sub)
	}
	return strings.Count(text[:i], "\n") + 1
}
