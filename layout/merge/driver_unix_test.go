//go:build unix

package merge_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/layout/merge"
)

// TestDriverRefusesNonRegular: git always hands the driver temporary
// files, but one run by hand on a named pipe must say so, not wait for a
// writer, and leave OURS as it was.
func TestDriverRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "ours.md")
	const ours = "# 2026-03-09\n\n## Ours\n\nKept.\n"
	if err := os.WriteFile(file, []byte(ours), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name               string
		base, ours, theirs string
	}{
		{"base is a named pipe", fifo, file, file},
		{"theirs is a named pipe", file, file, fifo},
		{"base is a folder", dir, file, file},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := merge.Driver(tt.base, tt.ours, tt.theirs, dailyRel)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, layout.ErrNotRegular) {
					t.Errorf("Driver error = %v, want one wrapping layout.ErrNotRegular", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Driver is still waiting on a named pipe after 20 s")
			}
			if b, err := os.ReadFile(file); err != nil || string(b) != ours {
				t.Errorf("OURS changed to %q (%v)", b, err)
			}
		})
	}
}
