package recall

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// storeFixture writes a scope folder with two bleve files and vectors.bin
// and records it.
func storeFixture(t *testing.T) (dir string, recs []storeFile) {
	t.Helper()
	dir = t.TempDir()
	for rel, data := range map[string]string{
		"bleve/index_meta.json":  `{"storage":"scorch"}`,
		"bleve/store/000001.zap": strings.Repeat("segment bytes ", 100),
		"bleve/notes.md":         "under bleve/, so recorded",
		vectorsFile:              "vector rows",
		manifestFile:             "not recorded",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := recordStore(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, recs
}

func TestRecordStore(t *testing.T) {
	_, recs := storeFixture(t)
	var got []string
	for _, r := range recs {
		got = append(got, r.Path)
	}
	want := "bleve/index_meta.json bleve/notes.md bleve/store/000001.zap vectors.bin"
	if strings.Join(got, " ") != want {
		t.Errorf("recorded %v, want %s", got, want)
	}
}

func TestVerifyStore(t *testing.T) {
	const seg = "bleve/store/000001.zap"
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		// damage changes the folder or the records; racy says whether
		// the records count as taken within the racy window.
		damage      func(t *testing.T, dir string, recs []storeFile)
		racy        bool
		wantErr     string // "" for none
		wantRewrite bool
	}{
		{name: "untouched", damage: func(*testing.T, string, []storeFile) {}},
		{name: "untouched, recorded in the racy window", damage: func(*testing.T, string, []storeFile) {}, racy: true, wantRewrite: true},
		{
			// Matching stat data outside the racy window is trusted
			// without reading the file: here a wrong checksum goes unseen.
			name:   "stat data matches, content not read",
			damage: func(t *testing.T, dir string, recs []storeFile) { recs[2].CRC++ },
		},
		{
			name:    "same stat data in the racy window, other content",
			damage:  func(t *testing.T, dir string, recs []storeFile) { recs[2].CRC++ },
			racy:    true,
			wantErr: seg + " does not match its checksum",
		},
		{
			name: "touched, same content",
			damage: func(t *testing.T, dir string, recs []storeFile) {
				touch(t, filepath.Join(dir, seg), old)
			},
			wantRewrite: true,
		},
		{
			name: "same size, other content",
			damage: func(t *testing.T, dir string, recs []storeFile) {
				rewrite(t, filepath.Join(dir, seg), func(b []byte) []byte { b[7] ^= 0x20; return b })
			},
			wantErr: seg + " does not match its checksum",
		},
		{
			name: "same size, other content, old mtime",
			damage: func(t *testing.T, dir string, recs []storeFile) {
				rewrite(t, filepath.Join(dir, seg), func(b []byte) []byte { b[7] ^= 0x20; return b })
				touch(t, filepath.Join(dir, seg), time.Unix(0, recs[2].MTime))
			},
			wantErr: seg + " does not match its checksum",
		},
		{
			name: "cut short",
			damage: func(t *testing.T, dir string, recs []storeFile) {
				rewrite(t, filepath.Join(dir, seg), func(b []byte) []byte { return b[:10] })
			},
			wantErr: seg + " has 10 bytes, 1400 recorded",
		},
		{
			name: "vectors damaged",
			damage: func(t *testing.T, dir string, recs []storeFile) {
				rewrite(t, filepath.Join(dir, vectorsFile), func(b []byte) []byte { b[0] = 'V'; return b })
			},
			wantErr: "vectors.bin does not match its checksum",
		},
		{
			name:    "missing",
			damage:  func(t *testing.T, dir string, recs []storeFile) { os.Remove(filepath.Join(dir, seg)) },
			wantErr: seg + " is missing",
		},
		{
			name: "a link in its place",
			damage: func(t *testing.T, dir string, recs []storeFile) {
				p := filepath.Join(dir, seg)
				os.Rename(p, p+".real")
				if err := os.Symlink(p+".real", p); err != nil {
					t.Skip("no symlinks here:", err)
				}
			},
			wantErr: seg + " is not a regular file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, recs := storeFixture(t)
			if recs[2].Path != seg {
				t.Fatalf("record 2 is %s, want %s", recs[2].Path, seg)
			}
			tt.damage(t, dir, recs)
			racyAfter := int64(math.MaxInt64)
			if tt.racy {
				racyAfter = math.MinInt64
			}
			rewrite, err := verifyStore(dir, recs, racyAfter, &verifiedFiles{})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("verify: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, errCorrupt)):
				t.Fatalf("verify: %v, want a corruption error containing %q", err, tt.wantErr)
			case err == nil && rewrite != tt.wantRewrite:
				t.Errorf("rewrite = %v, want %v", rewrite, tt.wantRewrite)
			}
			if err == nil {
				if again, err := verifyStore(dir, recs, math.MaxInt64, nil); err != nil || again {
					t.Errorf("verifying the updated records: rewrite %v, %v; want false, nil", again, err)
				}
			}
		})
	}
	t.Run("empty record list", func(t *testing.T) {
		if _, err := verifyStore(t.TempDir(), nil, math.MaxInt64, nil); !errors.Is(err, errCorrupt) {
			t.Errorf("verify with no records: %v, want a corruption error", err)
		}
	})
}

// TestVerifiedFilesFollowStatData checks that what a long-lived Index
// remembers of files it read is tied to their stat data: a file checked
// once is remembered, and a change to it is still caught.
func TestVerifiedFilesFollowStatData(t *testing.T) {
	const seg = "bleve/store/000001.zap"
	dir, recs := storeFixture(t)
	seen := &verifiedFiles{}
	if _, err := verifyStore(dir, recs, math.MinInt64, seen); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(seg))
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if sum, ok := seen.crc(p, stampOf(fi)); !ok || sum != recs[2].CRC {
		t.Errorf("remembered %08x, %v; want %08x, true", sum, ok, recs[2].CRC)
	}
	rewrite(t, p, func(b []byte) []byte { b[3] ^= 1; return b })
	if _, err := verifyStore(dir, recs, math.MinInt64, seen); !errors.Is(err, errCorrupt) {
		t.Errorf("a changed file passed as verified before: %v", err)
	}
}

func touch(t *testing.T, p string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

// rewrite replaces a file's content in place with edit's result.
func rewrite(t *testing.T, p string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRebuildKeepsEmbeddingCache damages an index in ways that force a
// rebuild and checks that no chunk is embedded again when vectors.bin is
// whole, and that a damaged vectors.bin is not used as a cache.
func TestRebuildKeepsEmbeddingCache(t *testing.T) {
	ctx := context.Background()
	zap := func(t *testing.T, dir string) string {
		t.Helper()
		m, _ := filepath.Glob(filepath.Join(dir, bleveDir, "store", "*.zap"))
		if len(m) == 0 {
			t.Fatal("no segment file")
		}
		return m[0]
	}
	flip := func(b []byte) []byte { b[len(b)/2] ^= 0x55; return b }
	tests := []struct {
		name string
		// damage breaks the index of beacon and runs what repairs it.
		damage       func(t *testing.T, ix *Index, dir string) (SyncStats, error)
		wantEmbedded bool
	}{
		{
			name: "segment damaged, then synced",
			damage: func(t *testing.T, ix *Index, dir string) (SyncStats, error) {
				rewrite(t, zap(t, dir), flip)
				return ix.Sync(ctx, []string{"beacon"})
			},
		},
		{
			name: "manifest damaged, then synced",
			damage: func(t *testing.T, ix *Index, dir string) (SyncStats, error) {
				rewrite(t, filepath.Join(dir, manifestFile), flip)
				return ix.Sync(ctx, []string{"beacon"})
			},
		},
		{
			name: "bleve folder deleted, then synced",
			damage: func(t *testing.T, ix *Index, dir string) (SyncStats, error) {
				os.RemoveAll(filepath.Join(dir, bleveDir))
				return ix.Sync(ctx, []string{"beacon"})
			},
		},
		{
			name: "rebuilt on request",
			damage: func(t *testing.T, ix *Index, dir string) (SyncStats, error) {
				return ix.Rebuild(ctx, []string{"beacon"})
			},
		},
		{
			name: "rebuilt without a model, then synced with one",
			damage: func(t *testing.T, ix *Index, dir string) (SyncStats, error) {
				bm25, _ := openIndex(t, ix.ws, Options{})
				first, err := bm25.Rebuild(ctx, []string{"beacon"})
				if err != nil {
					return first, err
				}
				st, err := ix.Sync(ctx, []string{"beacon"})
				st.Rebuilt = first.Rebuilt
				return st, err
			},
		},
		{
			name: "vectors damaged, then synced",
			damage: func(t *testing.T, ix *Index, dir string) (SyncStats, error) {
				rewrite(t, filepath.Join(dir, vectorsFile), flip)
				return ix.Sync(ctx, []string{"beacon"})
			},
			wantEmbedded: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, "ws")
			emb := &countingEmbedder{}
			ix, _ := openIndex(t, ws, Options{Embedder: emb})
			q := Query{Text: "bulk container lookup", Teammates: []string{"beacon"}}
			before := mustJSON(t, runSearch(t, ix, q))
			emb.reset()
			st, err := tt.damage(t, ix, ws.IndexDir("beacon"))
			if err != nil {
				t.Fatal(err)
			}
			if !contains(st.Rebuilt, "beacon") {
				t.Fatalf("sync %+v did not rebuild beacon", st)
			}
			if n := emb.reset(); (n > 0) != tt.wantEmbedded || (st.Cached > 0) == tt.wantEmbedded {
				t.Errorf("rebuild embedded %d texts, took %d from the cache; want embedding %v", n, st.Cached, tt.wantEmbedded)
			}
			if after := mustJSON(t, runSearch(t, ix, q)); after != before {
				t.Errorf("after the rebuild:\n%s\nwant\n%s", after, before)
			}
		})
	}
}
