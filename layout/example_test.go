package layout_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tmemhq/tmem/layout"
)

func Example() {
	dir, _ := os.MkdirTemp("", "tmem-example")
	defer os.RemoveAll(dir)

	res, _ := layout.Init(dir, []layout.TeammateSpec{{Name: "beacon", Role: "Search engineer"}})
	ws, _ := layout.Open(res.Root)
	day := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	rel, _ := ws.AppendDaily(context.Background(), "beacon", day, "Refactored auth middleware", "- Decision: keep cookies")

	src, _ := os.ReadFile(ws.Abs(rel))
	doc, _ := layout.Parse(rel, src)
	for _, e := range doc.Entries {
		fmt.Printf("%s:%d-%d %s\n", rel, e.Start, e.End, e.Heading)
	}
	mates, _ := ws.Teammates()
	fmt.Println(mates[0].Name, "—", mates[0].Role)
	// Output:
	// beacon/memory/2026-03-14.md:3-5 Refactored auth middleware
	// beacon — Search engineer
}
