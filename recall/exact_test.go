package recall

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/layouttest"
	"github.com/tmemhq/tmem/recall/hashembed"
	"golang.org/x/tools/txtar"
)

func TestIdentTokens(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"error code", "Saw ERR_REPLICA_LAG again.", []string{"err_replica_lag"}},
		{"percentage", "Error rate is 0.07%, threshold 0.5%.", []string{"0.07%", "0.5%"}},
		{"region", "Failover in us-east-1; fine", []string{"us-east-1"}},
		{"ticket", "(see DX-8047)", []string{"dx-8047"}},
		{"versions", "from v1.7 to v1.9.", []string{"v1.7", "v1.9"}},
		{"path", "edit deploy/audit-log/values.yaml now", []string{"deploy/audit-log/values.yaml"}},
		{"url", "runbook: <https://runbooks.example.com/audit-log/lag?x=1>", []string{"https://runbooks.example.com/audit-log/lag?x=1"}},
		{"plain words", "Nothing to see here, really.", nil},
		{"lone punctuation", "a - b / c", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := identTokens(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("identTokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// exactWorkspace builds a workspace for beacon from files (paths below
// beacon/memory/).
func exactWorkspace(t *testing.T, files map[string]string) *layout.Workspace {
	t.Helper()
	ar := &txtar.Archive{Files: []txtar.File{{Name: "beacon/SOUL.md", Data: []byte("# Beacon — Engineer\n")}}}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ar.Files = append(ar.Files, txtar.File{Name: "beacon/memory/" + n, Data: []byte(files[n])})
	}
	return layouttest.FromTxtar(t, ar)
}

// TestFindIdentifiersAsWritten asks for identifiers as written; another
// daily holds the same words split up or a near miss (v1.9 for v1.7), and
// must rank below.
func TestFindIdentifiersAsWritten(t *testing.T) {
	tests := []struct {
		query, want, other string
	}{
		{"ERR_REPLICA_LAG", "Alert ERR_REPLICA_LAG fired twice on the audit replica during the nightly backfill.", "Err: replica lag. Replica lag err."},
		{"0.07%", "Error rate on the audit-log service was 0.07% overnight, well under the threshold.", "0.07 s, 0.07 s: 5%."},
		{"us-east-1", "The failover drill in us-east-1 passed after the second attempt this morning.", "1 us, 1 east: us east."},
		{"DX-8047", "DX-8047 tracks the audit backfill that the storage team asked for last week.", "DX 8047: dx 8047."},
		{"v1.7", "Pinned bleve at v1.7 for the search index until the merge bug is fixed.", "Pinned v1 at 1.7: v1, 1.7."},
		{"deploy/audit-log/values.yaml", "Raised the memory limit in deploy/audit-log/values.yaml today for the backfill.", "Deploy audit log values.yaml: audit log deploy."},
		{"https://runbooks.example.com/audit-log/lag", "The lag runbook at https://runbooks.example.com/audit-log/lag covers the replica alert.", "https runbooks example com audit log lag: lag."},
	}
	files := map[string]string{}
	day := func(i int) string { return fmt.Sprintf("2026-03-%02d.md", i+1) }
	for i, tt := range tests {
		files[day(2*i)] = fmt.Sprintf("# %s\n\n## Notes\n\n%s\n", day(2 * i)[:10], tt.want)
		files[day(2*i+1)] = fmt.Sprintf("# %s\n\n## Notes\n\n%s\n", day(2*i + 1)[:10], tt.other)
	}
	ix, _ := openIndex(t, exactWorkspace(t, files), Options{})
	for i, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			hits := runSearch(t, ix, Query{Text: tt.query, Mode: ModeBM25, RecencyDepth: -1})
			want := "beacon/memory/" + day(2*i)
			if len(hits) == 0 || hits[0].Path != want {
				t.Errorf("%q: hits %v, want %s first", tt.query, paths(hits), want)
			}
		})
	}
}

// TestExactLineBeatsTopicalMemories: ten typed memories about the same
// topic share the question's words in their names, descriptions and text;
// the daily that holds the line asked for must still come first.
func TestExactLineBeatsTopicalMemories(t *testing.T) {
	files := map[string]string{
		"2025-06-12.md": "# 2025-06-12\n\n## Reviewed the retry queue\n\nNothing new; the queue drained by noon.\n\n" +
			"## Wrote an RFC for load testing in audit-log\n\n" +
			"Drafted the plan with the storage team and booked the staging cluster for two days. " +
			"Priya wants the numbers before Friday, so the first run starts tomorrow morning. " +
			"Error rate for ERR_REPLICA_LAG on audit-log is 0.07% in us-east-1; threshold is 0.5%. " +
			"The dashboards for the replica are still missing and need a ticket.\n",
	}
	for i := 0; i < 10; i++ {
		files[fmt.Sprintf("project_audit_log_load_testing_%d.md", i)] = fmt.Sprintf("---\n"+
			"name: Audit log load testing RFC %d\n"+
			"description: RFC for load testing in audit-log; error rate and threshold\n"+
			"type: project\n---\n"+
			"Load testing audit-log: error rate under threshold in us-east-1 (%d).\n", i, i)
	}
	ix, _ := openIndex(t, exactWorkspace(t, files), Options{Embedder: hashembed.Embedder{}})
	q := "Wrote an RFC for load testing in audit-log: Error rate for ERR_REPLICA_LAG on audit-log is 0.07% in us-east-1"
	for _, mode := range []string{ModeBM25, ModeHybrid} {
		t.Run(mode, func(t *testing.T) {
			hits := runSearch(t, ix, Query{Text: q, Mode: mode, RecencyDepth: -1})
			if len(hits) == 0 || hits[0].Path != "beacon/memory/2025-06-12.md" {
				t.Errorf("hits %v, want the daily first", paths(hits))
			}
			if len(hits) < 10 {
				t.Errorf("%d hits, want the typed memories too", len(hits))
			}
		})
	}
}
