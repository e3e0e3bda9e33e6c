package main

import (
	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall/minilm"
)

// openRecaller opens the recall index that tmem context queries with the
// task, and returns a function that closes it. The process embeds the task
// and at most a sync's few chunks, so the model is opened to start fast,
// and beside the rest of the work: the task's vector is on its way while
// the index is synced and the files before the recalled memories are read.
func openRecaller(f *factory, ws *layout.Workspace, task string) (memctx.Recaller, func(), error) {
	ix, err := f.openIndex(ws, f.model, minilm.WorkloadQueries, nil)
	if err != nil {
		return nil, nil, err
	}
	ix.PrefetchQuery(task)
	return ix, func() { ix.Close() }, nil
}
