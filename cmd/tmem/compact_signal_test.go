//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCompactSignal: SIGTERM or SIGINT to `tmem compact` while its
// summarizer program runs stops the program and everything it started,
// and tmem exits 128 plus the signal's number, saying so; the next run
// compacts. Before, tmem died at once and the program it had started in
// a process group of its own ran on. The same signal twice at once (from
// timeout, to tmem and to its group) is one stop, not a second that
// exits at once.
func TestCompactSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and signals processes; skipped under -short")
	}
	tests := []struct {
		name     string
		sig      syscall.Signal
		twice    bool // back to back, as timeout(1) sends it to its child and the child's group
		wantCode int
		wantErr  string
	}{
		{"SIGTERM", syscall.SIGTERM, false, 143, "tmem: compact: stopped by SIGTERM (the next run takes up where it stopped)"},
		{"SIGINT", syscall.SIGINT, false, 130, "tmem: compact: stopped by SIGINT (the next run takes up where it stopped)"},
		{"SIGTERM twice", syscall.SIGTERM, true, 143, "tmem: compact: stopped by SIGTERM (the next run takes up where it stopped)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := exampleWorkspace(t)
			pids := filepath.Join(t.TempDir(), "pids")
			script := filepath.Join(t.TempDir(), "slow-model")
			// The program records its pid and its child's, then waits.
			body := "#!/bin/sh\ncat >/dev/null\nsleep 300 &\necho $$ $! > " + pids + ".tmp\nmv " + pids + ".tmp " + pids + "\nwait\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			yaml := "compact:\n  summarizer: command\n  command: [" + script + "]\n  timeout: 10m\n"
			if err := os.WriteFile(filepath.Join(dir, "tmem.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			env := childEnv(t)
			trust := exec.Command("tmem", "--dir", dir, "trust")
			trust.Env = env
			if out, err := trust.CombinedOutput(); err != nil {
				t.Fatalf("tmem trust: %v\n%s", err, out)
			}
			cmd := exec.Command("tmem", "--dir", dir, "--now", serveNow, "compact", "--all")
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			model := waitForPids(t, pids)
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			if tt.twice {
				if err := cmd.Process.Signal(tt.sig); err != nil {
					t.Fatal(err)
				}
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.wantCode {
				t.Errorf("tmem compact after %v: %v, want exit code %d\n%s", tt.sig, err, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantErr)
			}
			for _, pid := range model {
				waitGone(t, pid)
			}
			runCLI(t, dir, "compact", "--all", "--summarizer", "extractive")
			if _, err := os.Stat(filepath.Join(dir, "beacon", "memory", "weekly", "2026-W46.md")); err != nil {
				t.Errorf("the next run did not compact: %v", err)
			}
		})
	}
}

// waitForPids waits for the slow model to write its pids to path.
func waitForPids(t *testing.T, path string) []int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("pids file %q: %v", b, err)
			}
			pids = append(pids, pid)
		}
		return pids
	}
	t.Fatal("the summarizer program never started")
	return nil
}

// waitGone fails unless process pid is gone (or a zombie nobody reaps)
// within a minute.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("process %d that the summarizer started outlived tmem compact", pid)
}

// zombie reports whether pid has exited and waits for its parent to reap it.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(b), ") ")
	return ok && strings.HasPrefix(rest, "Z")
}
