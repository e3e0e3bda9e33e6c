// Package recall keeps a rebuildable hybrid index (bleve BM25 plus embedding
// vectors) over a workspace's memory files and answers ranked queries.
//
// Data enters from the files through layout: each sync lists a teammate's
// typed memories, weekly and monthly summaries, WISDOM.md and the dailies
// but today's (plus CROSS-TEAM.md for the shared scope), stats them, and re-reads only files whose size, mtime, ctime or
// inode moved. Changed files are split into chunks along their `##`
// entries (ChunkFile), indexed in bleve and, when an Embedder is set,
// embedded, with vectors cached by the hash of the chunk text. A sync
// bounded by Options.SyncEmbed embeds a small change at once and leaves a
// big one to a backlog that EmbedBacklog embeds beside searches; until
// then those chunks are found by BM25 alone, and their hits say so
// (Hit.NoVector).
//
// Data leaves as []Hit from Index.Search: BM25 and vector results fused,
// BM25 being BM25F computed here over bleve's postings (words, identifiers
// kept whole and neighbouring word pairs; score.go),
// boosted by kind, chosen as passages (several per file, neighbouring
// chunks of an entry merged, shown as whole lines with a line of context;
// passage.go, around.go), and the most recent weekly summaries always
// included. Secrets in a hit's text, name and heading are replaced
// by "[REDACTED:kind]" and their rules listed in Hit.Redacted. SOUL.md and
// GOALS.md are never indexed; the context builder injects them whole.
//
// Every index lives in a scope folder (<teammate>/.index/, and .index/ for
// the shared scope) that can be deleted at any time: it is rebuilt from
// the files. The manifest records the size, stat data and checksum of
// every file bleve reads and of the vectors, and nothing opens them before
// they match that record; a damaged index is rebuilt with a notice,
// keeping the vectors that are still whole as the embedding cache. See README.md for the on-disk layout, the ranking defaults
// and how they were measured.
package recall
