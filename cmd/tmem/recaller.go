package main

import (
	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
)

// openRecaller opens the recall index that tmem context queries with the
// task, and returns a function that closes it.
func openRecaller(f *factory, ws *layout.Workspace) (memctx.Recaller, func(), error) {
	ix, err := f.openIndex(ws, f.model, nil)
	if err != nil {
		return nil, nil, err
	}
	return ix, func() { ix.Close() }, nil
}
