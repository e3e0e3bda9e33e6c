package context_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
)

// Build the stack of one teammate for one task and look at the manifest.
func ExampleBuild() {
	dir, err := os.MkdirTemp("", "tmem-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for rel, body := range map[string]string{
		"beacon/SOUL.md":              "# Beacon — Search engineer\n",
		"beacon/memory/2026-11-20.md": "# 2026-11-20\n\n## DLQ replay\n\nReplayed 11,200 rows.\n",
	} {
		p := filepath.Join(dir, ".teammates", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			panic(err)
		}
	}
	ws, err := layout.Open(dir)
	if err != nil {
		panic(err)
	}
	tok, err := memctx.NewTokenizer(memctx.O200k)
	if err != nil {
		panic(err)
	}
	res, err := memctx.Build(context.Background(), ws, memctx.Options{
		Teammate:  "beacon",
		Task:      "Is the replay done?",
		Tokenizer: tok,
		Now:       func() time.Time { return time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC) },
	})
	if err != nil {
		panic(err)
	}
	m := res.Manifest
	fmt.Println("budget:", m.Budget.Total, "daily share:", m.Budget.DailyShare)
	for _, s := range m.Sections {
		fmt.Printf("%-12s in budget: %-5v %s\n", s.Name, s.InBudget, s.Sources)
	}
	fmt.Println("recall:", m.Recall.Mode)
	// Output:
	// budget: 32000 daily share: 24000
	// soul         in budget: false [beacon/SOUL.md]
	// goals        in budget: false []
	// wisdom       in budget: false []
	// recall       in budget: true  []
	// dailies      in budget: true  [beacon/memory/2026-11-20.md]
	// session      in budget: false [.tmp/sessions/beacon.md]
	// roster       in budget: false [beacon/SOUL.md]
	// instructions in budget: false [template:memory-instructions.md]
	// protocol     in budget: false [template:output-protocol.md]
	// now          in budget: false []
	// task         in budget: false []
	// recall: off
}
