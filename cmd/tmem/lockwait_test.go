package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofrs/flock"
)

// TestLockWaitFlag holds beacon's index and files as another process
// would, and checks that --lock-wait bounds each wait: context builds
// without recall, recall and log give up with exit 4, each naming the
// wait; a wait that is no duration is a usage error.
func TestLockWaitFlag(t *testing.T) {
	dir := copyExample(t)
	if code, _, errs := runTmem(t, "--dir", dir, "-q", "index"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	for _, lock := range []string{"index-beacon.lock", "teammate-beacon.lock"} {
		holder := flock.New(filepath.Join(dir, ".tmp", "locks", lock))
		if err := holder.Lock(); err != nil {
			t.Fatal(err)
		}
		defer holder.Unlock()
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"context builds without recall", []string{"--lock-wait", "200ms", "context", "--teammate", "beacon", "bulk lookup"}, 0, "gave up after 200ms"},
		{"recall gives up", []string{"--lock-wait", "200ms", "recall", "--teammate", "beacon", "bulk lookup"}, exitLocked, "gave up after 200ms"},
		{"log gives up", []string{"--lock-wait", "200ms", "log", "--teammate", "beacon", "a note"}, exitLocked, "gave up after 200ms"},
		{"0 tries once", []string{"--lock-wait", "0", "recall", "--teammate", "beacon", "bulk lookup"}, exitLocked, "gave up without waiting"},
		{"no duration", []string{"--lock-wait", "soon", "recall", "--teammate", "beacon", "bulk"}, exitUsage, `--lock-wait "soon": want a duration`},
		{"negative", []string{"--lock-wait", "-1s", "recall", "--teammate", "beacon", "bulk"}, exitUsage, `--lock-wait "-1s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runTmem(t, append([]string{"--dir", dir, "--now", "2026-11-20"}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(errs, tt.wantErr) {
				t.Errorf("exit %d, stderr %q: want exit %d and %q", code, errs, tt.wantCode, tt.wantErr)
			}
		})
	}
}
