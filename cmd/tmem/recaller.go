package main

import (
	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm"
)

// openRecaller opens the recall index that tmem context queries with the
// task, starts embedding the task for teammate's search (the model loads
// while the stack's files are read), and returns a function that closes
// the index. The process embeds the task and at most a sync's few chunks,
// so the model is opened to start fast.
func openRecaller(f *factory, ws *layout.Workspace, task, teammate string) (memctx.Recaller, func(), error) {
	ix, err := f.openIndex(ws, f.model, minilm.WorkloadQueries, nil)
	if err != nil {
		return nil, nil, err
	}
	var mates []string
	if teammate != "" {
		mates = []string{teammate}
	}
	ix.PrepareQuery(task, mates)
	return ix, func() { ix.Close() }, nil
}
