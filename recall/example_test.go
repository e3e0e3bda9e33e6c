package recall_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

func ExampleIndex_Search() {
	dir, _ := os.MkdirTemp("", "recall-example-")
	defer os.RemoveAll(dir)
	mem := filepath.Join(dir, ".teammates", "beacon", "memory")
	os.MkdirAll(mem, 0o755)
	os.WriteFile(filepath.Join(dir, ".teammates", "beacon", "SOUL.md"), []byte("# Beacon — Search engineer\n"), 0o644)
	os.WriteFile(filepath.Join(mem, "project_alias.md"), []byte("---\nname: Search alias cutover\ndescription: readers query an alias\ntype: project\n---\nReaders query the shipments-read alias, never a dated index.\n"), 0o644)

	ws, _ := layout.Open(dir)
	ix, err := recall.Open(ws, recall.Options{
		Now: func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		// Embedder: nil searches with BM25 only; Warn: nil stays silent.
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ix.Close()
	hits, err := ix.Search(context.Background(), recall.Query{Text: "which alias do readers use", Teammates: []string{"beacon"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range hits {
		fmt.Printf("%s:%d-%d %s %v\n", h.Path, h.StartLine, h.EndLine, h.Kind, h.Reason)
	}
	// Output:
	// beacon/memory/project_alias.md:6-6 typed [bm25 boost]
}
