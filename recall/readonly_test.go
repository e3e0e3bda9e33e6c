package recall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// TestUnlockedRead: an index read without its lock (a workspace tmem cannot
// write) is searchable, and a sync that touches it meanwhile is noticed.
func TestUnlockedRead(t *testing.T) {
	lockErr := &os.PathError{Op: "mkdir", Path: ".tmp/locks", Err: syscall.EROFS}
	tests := []struct {
		name    string
		between func(t *testing.T, ix *Index) // runs after the open, before the check
		before  func(t *testing.T, ix *Index) // runs before the open
		wantErr string                        // from openUnlocked
		moved   bool                          // checkUnlocked reports errIndexMoved
	}{
		{name: "an index nobody writes"},
		{
			name: "a sync that changed the index meanwhile",
			between: func(t *testing.T, ix *Index) {
				writeTo(t, ix, "beacon/memory/project_new.md", "---\nname: New\ntype: project\n---\nA new memory.\n")
				syncAll(t, ix)
			},
			moved: true,
		},
		{
			name:    "a sync under way",
			before:  func(t *testing.T, ix *Index) { writeTo(t, ix, "beacon/.index/"+syncingFile, "") },
			wantErr: "a sync is under way or did not finish, and the workspace cannot be written",
		},
		{
			name: "a sync under way when the read ends",
			between: func(t *testing.T, ix *Index) {
				writeTo(t, ix, "beacon/.index/"+syncingFile, "")
			},
			moved: true,
		},
		{
			name:    "no index",
			before:  func(t *testing.T, ix *Index) { os.RemoveAll(ix.ws.IndexDir("beacon")) },
			wantErr: "search beacon: there is no index, and the workspace cannot be written to rebuild it (mkdir .tmp/locks: read-only file system); run 'tmem index' where it can",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			ix, _ := openIndex(t, ws, Options{})
			syncAll(t, ix)
			if tt.before != nil {
				tt.before(t, ix)
			}
			s, err := ix.openUnlocked("beacon", lockErr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			bm := startBM25(context.Background(), []*scope{s}, "bulk lookup", ix.now(), nil, ModeBM25, ix.candidates(5), false)
			hits, err := ix.searchScopes(context.Background(), []*scope{s}, Query{Text: "bulk lookup"}, 5, ModeBM25, nil, bm)
			// bleve holds a shared lock on its files while open: a writer
			// in this process would wait for it.
			s.close()
			if err != nil || len(hits) == 0 || hits[0].Path != "beacon/memory/project_bulk_lookup.md" {
				t.Fatalf("hits %v, err %v", paths(hits), err)
			}
			if tt.between != nil {
				tt.between(t, ix)
			}
			err = checkUnlocked([]*scope{s})
			if errors.Is(err, errIndexMoved) != tt.moved {
				t.Fatalf("checkUnlocked = %v, want moved %v", err, tt.moved)
			}
		})
	}
}

func TestReadOnlyErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"permission", &os.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, true},
		{"read-only file system", &os.PathError{Op: "mkdir", Path: "x", Err: syscall.EROFS}, true},
		{"no space", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}, true},
		{"over quota", &os.PathError{Op: "write", Path: "x", Err: syscall.EDQUOT}, true},
		{"no space, as bleve formats it", fmt.Errorf("segment: x.zap persist err: %v", &os.PathError{Op: "write", Path: "x.zap", Err: syscall.ENOSPC}), true},
		{"not a folder", &os.PathError{Op: "mkdir", Path: "x", Err: syscall.ENOTDIR}, false},
		{"missing", os.ErrNotExist, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unwritable(tt.err); got != tt.want {
				t.Errorf("unwritable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func writeTo(t *testing.T, ix *Index, rel, content string) {
	t.Helper()
	p := filepath.Join(ix.ws.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func syncAll(t *testing.T, ix *Index) {
	t.Helper()
	if _, err := ix.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

// TestManifestHeadFresh: a search that does not sync reads the manifest
// header kept from an earlier search only while the manifest is the same
// file. After a sync rewrites it (new words change BM25's field lengths, a
// new weekly the recency pass), the header read is the new file's, and
// the hits equal those of an index that never kept a header.
func TestManifestHeadFresh(t *testing.T) {
	ws := newWorkspace(t, "ws")
	ix, _ := openIndex(t, ws, Options{})
	ctx := context.Background()
	q := Query{Text: "rollover test release", NoSync: true}
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	runSearch(t, ix, q) // keeps the headers
	writeFile(t, ws, "beacon/memory/project_rollover.md", "---\nname: rollover\ndescription: the ETA rollover\ntype: project\n---\n"+strings.Repeat("The rollover test failed again on release day. ", 40)+"\n")
	writeFile(t, ws, "beacon/memory/weekly/2026-W47.md", "---\ntype: weekly\nperiod: 2026-W47\n---\n# Week 2026-W47\n\n## 2026-11-19\n- the release test passed after the rollover fix\n")
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	dir, err := ix.scopeDir("beacon")
	if err != nil {
		t.Fatal(err)
	}
	s := &scope{name: "beacon", dir: dir}
	got, err := ix.readHead(s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		t.Fatal(err)
	}
	want, weeklies, err := decodeManifest(b, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(s.weeklies, weeklies) {
		t.Errorf("header read after the sync:\n%+v %v\nwant the file's:\n%+v %v", got, s.weeklies, want, weeklies)
	}
	hits := fmt.Sprint(hitLines(runSearch(t, ix, q)))
	fresh, _ := openIndex(t, ws, Options{})
	if want := fmt.Sprint(hitLines(runSearch(t, fresh, q))); hits != want {
		t.Errorf("hits %s, want a fresh index's %s", hits, want)
	}
}

func hitLines(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d-%d %.6f", h.Path, h.StartLine, h.EndLine, h.Score))
	}
	return out
}

// TestKeepOldIndex: after a write that failed for want of space, the
// SYNCING marker goes only when every index file still matches the
// manifest on disk.
func TestKeepOldIndex(t *testing.T) {
	tests := []struct {
		name       string
		damage     func(t *testing.T, dir string)
		wantMarker bool
	}{
		{name: "index files untouched"},
		{
			name: "an index file changed",
			damage: func(t *testing.T, dir string) {
				appendTo(t, filepath.Join(dir, vectorsFile), "x")
			},
			wantMarker: true,
		},
		{
			name: "no manifest",
			damage: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, manifestFile)); err != nil {
					t.Fatal(err)
				}
			},
			wantMarker: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := syncedWorkspace(t, true)
			ix, _ := openIndex(t, ws, Options{})
			s := &scope{name: "beacon", dir: ws.IndexDir("beacon")}
			marker := filepath.Join(s.dir, syncingFile)
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.damage != nil {
				tt.damage(t, s.dir)
			}
			ix.keepOldIndex(s)
			_, err := os.Lstat(marker)
			if got := err == nil; got != tt.wantMarker {
				t.Errorf("marker left = %v, want %v", got, tt.wantMarker)
			}
		})
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
