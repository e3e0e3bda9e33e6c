package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, exitOK},
		{"a failure", errors.New("boom"), exitFailure},
		{"a usage error", usageErrorf("bad flag"), exitUsage},
		{"no workspace", fmt.Errorf("open: %w", layout.ErrNoWorkspace), exitNoWorkspace},
		{"compaction locked", fmt.Errorf("compact: %w", errLocked), exitLocked},
		{"a teammate's lock held past the wait", fmt.Errorf("log: %w", layout.ErrLocked), exitLocked},
		{"an index held past the wait", fmt.Errorf("recall: %w", recall.ErrLocked), exitLocked},
		{"stopped by SIGTERM", fmt.Errorf("compact: %w", interruptedError{syscall.SIGTERM}), 143},
		{"stopped by SIGINT", fmt.Errorf("compact: %w", interruptedError{os.Interrupt}), 130},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			f := newFactory(nil, &bytes.Buffer{}, &stderr, func(string) string { return "" })
			if got := f.exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
			if tt.err != nil && !bytes.Contains(stderr.Bytes(), []byte(tt.err.Error())) {
				t.Errorf("the error was not printed: %q", stderr.String())
			}
		})
	}
}
