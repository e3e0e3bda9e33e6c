package recall

import (
	"context"
	"strings"
	"testing"
)

// TestLenientFrontmatterIsNamed: a memory whose frontmatter is not valid
// YAML is indexed with its fields read as "key: value" lines, and the sync
// that indexes it says so once, naming the line; a valid one, or the same
// file synced again unchanged, says nothing.
func TestLenientFrontmatterIsNamed(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		query    string
		wantWarn string // "" means no notice
	}{
		{
			name:     "colon in the first value",
			src:      "---\nname: Ingest: carrier events\ndescription: dedupe stage\ntype: project\n---\n\nCarrier events are deduplicated by container.\n",
			query:    "deduplicated container",
			wantWarn: "tmem: recall: beacon/memory/project_ingest.md:2: bad frontmatter: mapping values are not allowed in this context; its frontmatter was read as key: value lines\n",
		},
		{
			name:  "valid frontmatter",
			src:   "---\nname: \"Ingest: carrier events\"\ndescription: dedupe stage\ntype: project\n---\n\nCarrier events are deduplicated by container.\n",
			query: "deduplicated container",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			writeFile(t, ws, "beacon/memory/project_ingest.md", tt.src)
			ix, warn := openIndex(t, ws, Options{})
			if _, err := ix.Sync(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, l := range strings.SplitAfter(warn.String(), "\n") {
				if strings.Contains(l, "project_ingest.md") {
					got += l
				}
			}
			if got != tt.wantWarn {
				t.Errorf("notices about the file:\n%q\nwant\n%q", got, tt.wantWarn)
			}
			hits := runSearch(t, ix, Query{Text: tt.query})
			if len(hits) == 0 || hits[0].Path != "beacon/memory/project_ingest.md" || hits[0].Name != "Ingest: carrier events" {
				t.Errorf("hits = %+v, want project_ingest.md named %q first", hits, "Ingest: carrier events")
			}
			if n := strings.Count(warn.String(), "project_ingest.md"); n != strings.Count(got, "project_ingest.md") {
				t.Errorf("the search's sync named the unchanged file again:\n%s", warn.String())
			}
		})
	}
}
