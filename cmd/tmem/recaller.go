package main

import (
	"context"

	memctx "github.com/tmemhq/tmem/context"
	"github.com/tmemhq/tmem/layout"
	"github.com/tmemhq/tmem/recall"
)

// openRecaller opens the recall index that tmem context queries with the
// task, and returns a function that closes it. Until the index is wired
// in, it returns a recaller that finds nothing and has no vectors.
func openRecaller(f *factory, ws *layout.Workspace) (memctx.Recaller, func(), error) {
	return noRecall{}, func() {}, nil
}

// noRecall is a recall index with nothing in it.
type noRecall struct{}

func (noRecall) Search(context.Context, recall.Query) ([]recall.Hit, error) { return nil, nil }

func (noRecall) HasVectors() bool { return false }
