package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
)

// fullDiskResult is what a full-disk child reports.
type fullDiskResult struct {
	Hits    []string // the search on the full disk
	Warn    string   // its notices
	Marker  bool     // a SYNCING marker was left
	After   []string // the search once space is free again
	Err     string   // the full-disk search's error
	Skipped string   // why the child could not run the case
}

// TestFullDisk: on a full file system a search still answers from the
// index as it is, with a notice, whether its sync only had stat data to
// record or a changed file to index, and leaves no SYNCING marker that
// would throw the index away; once there is space the next search syncs.
// Each case runs in a child process with a mount namespace of its own,
// on a small tmpfs that goes away with the child.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src := newWorkspace(t, "ws").Root
	tests := []struct {
		op      string
		wantErr string // the search on the full disk fails with it
	}{
		{op: "fulldisk-stat"},
		{op: "fulldisk-changed"},
		{op: "fulldisk-noindex", wantErr: "there is no index, and the workspace cannot be written to build it: sync index of "},
	}
	for _, tt := range tests {
		op := tt.op
		t.Run(op, func(t *testing.T) {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "TMEM_RECALL_CHILD_WS="+src, "TMEM_RECALL_CHILD_OP="+op, "TMEM_RECALL_MOUNT="+t.TempDir())
			cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				if errors.Is(err, syscall.EPERM) {
					t.Skipf("no mount namespace: %v", err)
				}
				t.Fatalf("child: %v\n%s", err, errb.String())
			}
			var res fullDiskResult
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("child output %q: %v", out.String(), err)
			}
			if res.Skipped != "" {
				t.Skip(res.Skipped)
			}
			if tt.wantErr != "" {
				if !strings.Contains(res.Err, tt.wantErr) || !strings.Contains(res.Err, "no space left on device") {
					t.Errorf("error on the full disk %q, want %q naming the full disk", res.Err, tt.wantErr)
				}
			} else if res.Err != "" || len(res.Hits) == 0 || res.Hits[0] != "beacon/memory/project_bulk_lookup.md" {
				t.Errorf("hits on the full disk %v (error %q), want the bulk lookup memory first", res.Hits, res.Err)
			}
			if tt.wantErr == "" && !strings.Contains(res.Warn, "no space left on device") || !strings.Contains(res.Warn, "searching the index as it is") {
				t.Errorf("notice %q does not say the disk is full and the index is searched as it is", res.Warn)
			}
			if res.Marker {
				t.Error("a SYNCING marker was left: the next sync would rebuild the index")
			}
			if len(res.After) == 0 || res.After[0] != "beacon/memory/project_bulk_lookup.md" {
				t.Errorf("hits once space is free %v", res.After)
			}
		})
	}
}

// fullDisk is the child of TestFullDisk: it copies the workspace at src
// onto a tmpfs of its own, syncs its index, changes a file (op
// fulldisk-changed) or only its stat data (fulldisk-stat), or builds no
// index at all (fulldisk-noindex), fills the tmpfs and searches; then it
// frees the space and searches again.
func fullDisk(src, op string) int {
	res, err := runFullDisk(src, os.Getenv("TMEM_RECALL_MOUNT"), op)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

func runFullDisk(src, mnt, op string) (fullDiskResult, error) {
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=4m"); err != nil {
		return fullDiskResult{Skipped: "cannot mount a tmpfs: " + err.Error()}, nil
	}
	root := filepath.Join(mnt, filepath.Base(src))
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		return fullDiskResult{}, err
	}
	ws, err := layout.Open(root)
	if err != nil {
		return fullDiskResult{}, err
	}
	ctx := context.Background()
	ix, err := Open(ws, Options{Now: func() time.Time { return fixtureNow }})
	if err != nil {
		return fullDiskResult{}, err
	}
	if op != "fulldisk-noindex" {
		if _, err := ix.Sync(ctx, nil); err != nil {
			return fullDiskResult{}, err
		}
	}
	ix.Close()
	memory := filepath.Join(root, "beacon", "memory", "project_dedupe_ticket.md")
	if op == "fulldisk-changed" {
		f, err := os.OpenFile(memory, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return fullDiskResult{}, err
		}
		fmt.Fprintf(f, "\nThe zebra crossing moved.\n")
		f.Close()
	} else if err := os.Chtimes(memory, time.Time{}, time.Unix(1, 0)); err != nil {
		return fullDiskResult{}, err
	}
	fill := filepath.Join(mnt, "fill")
	if err := fillDisk(fill); err != nil {
		return fullDiskResult{}, err
	}
	search := func() ([]string, string, error) {
		var warn bytes.Buffer
		ix, err := Open(ws, Options{Now: func() time.Time { return fixtureNow }, Warn: &warn})
		if err != nil {
			return nil, "", err
		}
		defer ix.Close()
		hits, err := ix.Search(ctx, Query{Text: "bulk container lookup", Teammates: []string{"beacon"}, RecencyDepth: -1})
		return paths(hits), warn.String(), err
	}
	var res fullDiskResult
	if res.Hits, res.Warn, err = search(); err != nil {
		res.Err = err.Error()
	}
	_, serr := os.Lstat(filepath.Join(ws.IndexDir("beacon"), syncingFile))
	res.Marker = serr == nil
	os.Remove(fill)
	if res.After, _, err = search(); err != nil {
		return res, fmt.Errorf("search with space again: %w", err)
	}
	return res, nil
}

// fillDisk writes zeros to path until the file system is full.
func fillDisk(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}
