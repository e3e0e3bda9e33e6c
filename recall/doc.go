// Package recall keeps a rebuildable hybrid index (bleve BM25 plus embedding
// vectors) over a workspace's memory files and answers ranked queries.
package recall
