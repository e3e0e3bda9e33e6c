package recall

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

func TestSyncSelectsFiles(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	st, err := ix.Sync(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != st.Files || st.Files == 0 {
		t.Errorf("first sync: %+v, want every file added", st)
	}
	s, err := ix.lockScope(context.Background(), "beacon", false, lockWait{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if ok, why := ix.loadManifest(s, false); !ok {
		t.Fatalf("manifest: %s", why)
	}
	tests := []struct {
		name    string
		path    string
		indexed bool
	}{
		{"typed memory", "beacon/memory/project_bulk_lookup.md", true},
		{"wisdom", "beacon/WISDOM.md", true},
		{"weekly summary", "beacon/memory/weekly/2026-W45.md", true},
		{"monthly summary", "beacon/memory/monthly/2026-09.md", true},
		{"old daily not compacted", "beacon/memory/2026-10-27.md", true},
		{"old daily beside its weekly summary", "beacon/memory/2026-10-20.md", true},
		{"recent daily", "beacon/memory/2026-11-18.md", true},
		{"soul", "beacon/SOUL.md", false},
		{"goals", "beacon/GOALS.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := s.man.Files[tt.path]; ok != tt.indexed {
				t.Errorf("%s indexed = %v, want %v", tt.path, ok, tt.indexed)
			}
		})
	}
}

func TestSyncNoChange(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	ctx := context.Background()
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Files written just before a sync are re-hashed until the manifest
	// is clearly newer than them; date it ahead so none count as racy.
	later := time.Now().Add(time.Hour)
	for _, n := range []string{"", "beacon", "quill"} {
		if err := os.Chtimes(filepath.Join(ws.IndexDir(n), manifestFile), later, later); err != nil {
			t.Fatal(err)
		}
	}
	before := statIndex(t, ws)
	st, err := ix.Sync(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added+st.Changed+st.Deleted+st.Chunks != 0 || st.Unchanged != st.Files {
		t.Errorf("second sync did work: %+v", st)
	}
	if after := statIndex(t, ws); after != before {
		t.Errorf("a no-change sync rewrote index files:\nbefore %s\nafter  %s", before, after)
	}
}

// statIndex summarises the manifest files' mtimes.
func statIndex(t *testing.T, ws *layout.Workspace) string {
	t.Helper()
	var b strings.Builder
	for _, n := range []string{"", "beacon", "quill"} {
		fi, err := os.Stat(filepath.Join(ws.IndexDir(n), manifestFile))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(fi.ModTime().String() + ";")
	}
	return b.String()
}

// TestSyncReconciles edits the workspace between two searches and checks
// the second search sees the files as they are.
func TestSyncReconciles(t *testing.T) {
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	const typed = "beacon/memory/project_bulk_lookup.md"
	tests := []struct {
		name   string
		edit   func(t *testing.T, ws *layout.Workspace)
		query  string
		want   string // path expected among hits, "" for none
		absent string // path that must not be among hits
	}{
		{
			name: "add",
			edit: func(t *testing.T, ws *layout.Workspace) {
				writeFile(t, ws, "beacon/memory/user_olga.md", "---\nname: Olga\ndescription: harbour master\ntype: user\n---\nOlga runs the pelican terminal.\n")
			},
			query: "pelican terminal", want: "beacon/memory/user_olga.md",
		},
		{
			name: "edit",
			edit: func(t *testing.T, ws *layout.Workspace) {
				writeFile(t, ws, typed, "---\nname: Bulk lookup\n---\nNow about walrus batches.\n")
			},
			query: "walrus", want: typed,
		},
		{
			name:  "delete",
			edit:  func(t *testing.T, ws *layout.Workspace) { os.Remove(ws.Abs(typed)) },
			query: "bulk lookup container", absent: typed,
		},
		{
			name: "rename",
			edit: func(t *testing.T, ws *layout.Workspace) {
				os.Rename(ws.Abs(typed), ws.Abs("beacon/memory/project_lookup_api.md"))
			},
			query: "bulk lookup container", want: "beacon/memory/project_lookup_api.md", absent: typed,
		},
		{
			name: "rewrite with an old mtime and the same size",
			edit: func(t *testing.T, ws *layout.Workspace) {
				p := ws.Abs(typed)
				src, _ := os.ReadFile(p)
				fi, _ := os.Stat(p)
				// Same length, new words: only ctime (or the hash) can tell.
				out := strings.Replace(string(src), "spreadsheet", "wombatsheet", 1)
				if len(out) != len(src) {
					t.Fatal("edit changed the size")
				}
				os.WriteFile(p, []byte(out), 0o644)
				os.Chtimes(p, fi.ModTime(), fi.ModTime())
			},
			query: "wombatsheet", want: typed,
		},
		{
			name: "git-checkout-style rewrite with an older mtime",
			edit: func(t *testing.T, ws *layout.Workspace) {
				p := ws.Abs(typed)
				os.WriteFile(p, []byte("---\nname: Old lookup\n---\nThe old version talked about octopus ledgers.\n"), 0o644)
				os.Chtimes(p, old, old)
			},
			query: "octopus", want: typed,
		},
		{
			name: "old daily added",
			edit: func(t *testing.T, ws *layout.Workspace) {
				writeFile(t, ws, "beacon/memory/2026-10-29.md", "# 2026-10-29\n\n## Notes\n\nThe flamingo report.\n")
			},
			query: "flamingo", want: "beacon/memory/2026-10-29.md",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			ix, _ := openIndex(t, ws, Options{})
			runSearch(t, ix, Query{Text: "warm up", Teammates: []string{"beacon"}})
			tt.edit(t, ws)
			got := paths(runSearch(t, ix, Query{Text: tt.query, Teammates: []string{"beacon"}, RecencyDepth: -1}))
			if tt.want != "" && !contains(got, tt.want) {
				t.Errorf("query %q: hits %v, want %s among them", tt.query, got, tt.want)
			}
			if tt.absent != "" && contains(got, tt.absent) {
				t.Errorf("query %q: hits %v still hold %s", tt.query, got, tt.absent)
			}
		})
	}
}

// TestSyncRacyRewrite changes a file twice, keeping size, mtime and
// (as on a coarse file-system clock) possibly ctime: the second change
// must still be seen, because the file is newer than the manifest allows
// stat data to be trusted for.
func TestSyncRacyRewrite(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	const rel = "beacon/memory/user_racy.md"
	when := time.Now().Add(-time.Minute).Truncate(time.Second)
	for i, word := range []string{"aardvark", "bluebird"} {
		writeFile(t, ws, rel, "---\nname: Racy\n---\nAbout the "+word+".\n")
		os.Chtimes(ws.Abs(rel), when, when)
		got := paths(runSearch(t, ix, Query{Text: word, Teammates: []string{"beacon"}, RecencyDepth: -1}))
		if !contains(got, rel) {
			t.Errorf("write %d: query %q: hits %v, want %s", i, word, got, rel)
		}
	}
}

// TestShownLinesLeftOut: a daily of the recent window is found like any
// other, unless the searcher shows its lines already (Query.Shown), and
// only those lines are left out.
func TestShownLinesLeftOut(t *testing.T) {
	ws := newWorkspace(t, "ws")
	const daily = "beacon/memory/2026-11-18.md"
	writeFile(t, ws, daily, "# 2026-11-18\n\n## Recent work\n\nThe zebra migration moved.\n\n## Later\n\nThe zebra rollback plan.\n")
	ix, _ := openIndex(t, ws, Options{})
	cases := []struct {
		name  string
		shown []Lines
		want  []int // first lines of the daily's hits
	}{
		{"nothing shown", nil, []int{5, 9}},
		{"first entry shown", []Lines{{Path: daily, From: 3, To: 6}}, []int{9}},
		{"both shown", []Lines{{Path: daily, From: 3, To: 6}, {Path: daily, From: 7, To: 9}}, nil},
		{"another file shown", []Lines{{Path: "beacon/memory/2026-11-17.md", From: 1, To: 99}}, []int{5, 9}},
	}
	for _, tc := range cases {
		hits := runSearch(t, ix, Query{Text: "zebra", Teammates: []string{"beacon"}, RecencyDepth: -1, Shown: tc.shown})
		var got []int
		for _, h := range hits {
			if h.Path == daily {
				got = append(got, h.StartLine)
			}
		}
		sort.Ints(got)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: hits of %s start at lines %v, want %v", tc.name, daily, got, tc.want)
		}
	}
}

// TestSyncRecovers damages the index between two searches; the second
// must rebuild and answer as before.
func TestSyncRecovers(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(t *testing.T, dir string)
		wantWarn string
	}{
		{
			name: "corrupt manifest",
			damage: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, manifestFile), []byte("TMEMMAN2 garbage"), 0o644)
			},
			wantWarn: "manifest header: index is corrupt",
		},
		{
			name: "manifest from an older framing",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, manifestFile)
				b, _ := os.ReadFile(p)
				copy(b, "TMEMMAN1")
				os.WriteFile(p, b, 0o644)
			},
			wantWarn: "written by another tmem version",
		},
		{
			name: "truncated manifest",
			damage: func(t *testing.T, dir string) {
				p := filepath.Join(dir, manifestFile)
				b, _ := os.ReadFile(p)
				os.WriteFile(p, b[:len(b)/2], 0o644)
			},
			wantWarn: "manifest checksum",
		},
		{
			name:     "half-finished sync",
			damage:   func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, syncingFile), nil, 0o644) },
			wantWarn: "did not finish",
		},
		{
			name: "corrupt bleve files",
			damage: func(t *testing.T, dir string) {
				filepath.Walk(filepath.Join(dir, bleveDir), func(p string, fi os.FileInfo, err error) error {
					if err == nil && !fi.IsDir() {
						os.WriteFile(p, []byte("not an index"), 0o644)
					}
					return nil
				})
			},
			wantWarn: "rebuilding the index of beacon",
		},
		{
			name:     "bleve folder missing",
			damage:   func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, bleveDir)) },
			wantWarn: "rebuilding the index of beacon",
		},
		{
			name: "schema change",
			damage: func(t *testing.T, dir string) {
				m, err := readManifest(filepath.Join(dir, manifestFile))
				if err != nil {
					t.Fatal(err)
				}
				m.Schema = SchemaVersion - 1
				b, _ := m.encode()
				os.WriteFile(filepath.Join(dir, manifestFile), b, 0o644)
			},
			wantWarn: fmt.Sprintf("schema %d, want %d", SchemaVersion-1, SchemaVersion),
		},
		{
			name: "chunker settings change",
			damage: func(t *testing.T, dir string) {
				m, _ := readManifest(filepath.Join(dir, manifestFile))
				m.Chunker = "md-entries/target=999/overlap=0"
				b, _ := m.encode()
				os.WriteFile(filepath.Join(dir, manifestFile), b, 0o644)
			},
			wantWarn: "chunker settings changed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			ix, warn := openIndex(t, ws, Options{})
			q := Query{Text: "bulk lookup container", Teammates: []string{"beacon"}, RecencyDepth: -1}
			before := paths(runSearch(t, ix, q))
			tt.damage(t, ws.IndexDir("beacon"))
			warn.Reset()
			after := paths(runSearch(t, ix, q))
			if strings.Join(before, ",") != strings.Join(after, ",") {
				t.Errorf("after damage: hits %v, want %v", after, before)
			}
			if !strings.Contains(warn.String(), tt.wantWarn) {
				t.Errorf("warnings %q, want one containing %q", warn.String(), tt.wantWarn)
			}
			if _, err := os.Stat(filepath.Join(ws.IndexDir("beacon"), syncingFile)); err == nil {
				t.Error("SYNCING marker left behind")
			}
		})
	}
}

func TestNoSyncSearchBuildsMissingIndex(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	got := paths(runSearch(t, ix, Query{Text: "bulk lookup", Teammates: []string{"beacon"}, NoSync: true}))
	if !contains(got, "beacon/memory/project_bulk_lookup.md") {
		t.Errorf("no-sync search on a fresh workspace: %v", got)
	}
	writeFile(t, ws, "beacon/memory/user_zed.md", "---\nname: Zed\n---\nZed likes quokkas.\n")
	if got := paths(runSearch(t, ix, Query{Text: "quokkas", Teammates: []string{"beacon"}, NoSync: true, RecencyDepth: -1})); len(got) != 0 {
		t.Errorf("no-sync search saw a new file: %v", got)
	}
}

func TestRebuild(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	ctx := context.Background()
	first, err := ix.Sync(ctx, []string{"beacon"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Rebuild(ctx, []string{"beacon"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Rebuilt) != 2 || st.Chunks != first.Chunks {
		t.Errorf("rebuild: %+v, want both scopes rebuilt with %d chunks", st, first.Chunks)
	}
}

// TestStatClean: a file is taken as unchanged without reading it only when
// its size, mtime, ctime and inode are those recorded, and both times lie
// before the racy window of the last sync; a new file is always read.
// (A real rewrite within one clock tick cannot be made on demand, so the
// rule is checked on stat data.)
func TestStatClean(t *testing.T) {
	ns := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).UnixNano()
	rec := &fileState{Size: 120, MTime: ns, CTime: ns + 5, Ino: 42}
	// touched has an mtime set after its ctime, as by a touch -d.
	touched := &fileState{Size: 120, MTime: ns + 10, CTime: ns, Ino: 42}
	later := ns + time.Minute.Nanoseconds()
	tests := []struct {
		name      string
		old       *fileState
		change    func(c *candidate)
		racyAfter int64
		want      bool
	}{
		{"all the same, synced long after", rec, func(*candidate) {}, later, true},
		{"a new file", nil, func(*candidate) {}, later, false},
		{"another size", rec, func(c *candidate) { c.file.Size++ }, later, false},
		{"another mtime", rec, func(c *candidate) { c.file.ModTime = c.file.ModTime.Add(time.Nanosecond) }, later, false},
		{"another ctime", rec, func(c *candidate) { c.ctime++ }, later, false},
		{"another inode", rec, func(c *candidate) { c.ino++ }, later, false},
		{"mtime inside the racy window", touched, func(*candidate) {}, ns + 5, false},
		{"ctime inside the racy window", rec, func(*candidate) {}, ns + 3, false},
		{"ctime on the racy window's first nanosecond", rec, func(*candidate) {}, ns + 5, false},
		{"mtime on the racy window's first nanosecond", touched, func(*candidate) {}, ns + 10, false},
		{"both times just before the racy window", touched, func(*candidate) {}, ns + 11, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := tt.old
			if from == nil {
				from = rec
			}
			c := &candidate{file: layout.File{Size: from.Size, ModTime: time.Unix(0, from.MTime)}, ctime: from.CTime, ino: from.Ino}
			tt.change(c)
			if got := tt.old.statClean(c, tt.racyAfter); got != tt.want {
				t.Errorf("statClean = %v, want %v", got, tt.want)
			}
		})
	}
}
