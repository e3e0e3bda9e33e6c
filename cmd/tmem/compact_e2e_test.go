package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// buildTmem builds the tmem binary once per test run.
func buildTmem(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("go tool not found")
		}
		t.Skip("go tool not found: cannot build tmem for the end-to-end test")
	}
	bin := filepath.Join(t.TempDir(), "tmem")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestCompactWhileLogging runs `tmem compact` processes while other
// processes `tmem log` entries into the very days being compacted, two
// compactions at a time so that one finds the lock taken (exit 4), then
// checks that every entry is in a summary or a daily.
func TestCompactWhileLogging(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tmem binary; skipped under -short")
	}
	bin := buildTmem(t)
	dir := compactWorkspace(t)
	tmem := func(args ...string) *exec.Cmd {
		return exec.Command(bin, append([]string{"--dir", dir}, args...)...)
	}
	const writers, entries = 3, 15
	var wg sync.WaitGroup
	errs := make(chan string, writers*entries+100)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < entries; i++ {
				day := fmt.Sprintf("2026-11-%02d", 2+(i+w)%14)
				out, err := tmem("log", "--now", day, "--teammate", "beacon", "--heading", "Concurrent", fmt.Sprintf("Decision: entry w%d-%d survives", w, i)).CombinedOutput()
				if err != nil {
					errs <- fmt.Sprintf("tmem log: %v: %s", err, out)
				}
			}
		}(w)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	locked := 0
	for loop := true; loop; {
		select {
		case <-done:
			loop = false
		default:
		}
		var cmds []*exec.Cmd
		for k := 0; k < 2; k++ {
			c := tmem("compact", "--now", "2026-11-18")
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, c)
		}
		for _, c := range cmds {
			if err := c.Wait(); err != nil {
				if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == exitLocked {
					locked++
					continue
				}
				t.Fatalf("tmem compact: %v", err)
			}
		}
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if out, err := tmem("compact", "--now", "2026-11-18").CombinedOutput(); err != nil {
		t.Fatalf("final compaction: %v\n%s", err, out)
	}
	var all strings.Builder
	filepath.Walk(filepath.Join(dir, ".teammates", "beacon"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			all.Write(b)
		}
		return nil
	})
	for w := 0; w < writers; w++ {
		for i := 0; i < entries; i++ {
			if e := fmt.Sprintf("Decision: entry w%d-%d survives", w, i); !strings.Contains(all.String(), e) {
				t.Errorf("lost: %q", e)
			}
		}
	}
	t.Logf("%d compactions found the lock taken and exited %d", locked, exitLocked)
}
