//go:build unix

package layout

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // "" for opened
	}{
		{"regular file", file, ""},
		{"symlink to one", link, ""},
		{"named pipe, not waited on", fifo, "fifo: not a regular file (a named pipe (FIFO))"},
		{"folder", dir, "not a regular file (a folder)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := OpenRegular(tt.path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("OpenRegular: %v", err)
				}
				f.Close()
				return
			}
			if err == nil || !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenRegular: %v, want %q", err, tt.want)
			}
		})
	}
}
