package compact_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tmemhq/tmem/compact"
	"github.com/tmemhq/tmem/layout"
)

// A week of logs becomes a weekly summary once the week is over; the
// daily itself moves, word for word, to the archive.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "tmem-example")
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, layout.DirName)
	os.MkdirAll(filepath.Join(root, "beacon", "memory"), 0o755)
	os.WriteFile(filepath.Join(root, "beacon", "SOUL.md"), []byte("# Beacon\n"), 0o644)
	os.WriteFile(filepath.Join(root, "beacon", "memory", "2026-03-10.md"), []byte(
		"# 2026-03-10\n\n## Refactored auth middleware\n\n- Moved session validation into its own module\n- Decision: keep cookie-based auth for now\n"), 0o644)
	ws, _ := layout.Open(root)

	now := time.Date(2026, 3, 30, 9, 0, 0, 0, time.UTC)
	res, err := compact.Run(context.Background(), ws, compact.Options{
		Episodic: true,
		Now:      func() time.Time { return now },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Written, res.Deleted)
	b, _ := os.ReadFile(ws.Abs("beacon/memory/weekly/2026-W11.md"))
	fmt.Print(string(b))
	// Output:
	// [beacon/memory/archive/2026-03.md beacon/memory/weekly/2026-W11.md] [beacon/memory/2026-03-10.md]
	// ---
	// type: weekly
	// week: 2026-W11
	// teammate: beacon
	// period: 2026-03-09 to 2026-03-15
	// sources:
	// - 2026-03-10.md sha256:37ae3a679a73 archive/2026-03.md
	// ---
	//
	// # Week 2026-W11
	//
	// ## 2026-03-10 Tuesday
	//
	// - Refactored auth middleware — Moved session validation into its own module
	//   - Decision: keep cookie-based auth for now
	//
	// Log: 2026-03-10.md in archive/2026-03.md
}
