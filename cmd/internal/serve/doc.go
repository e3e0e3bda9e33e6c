// Package serve is tmem's warm memory service: one long-lived process per
// workspace that keeps the recall index and the embedding model open and
// answers agents over the Model Context Protocol, on stdio or streamable
// HTTP.
//
// A Service holds the workspace, the recall index and the session's
// scope. Its tools (memory_context, memory_search, memory_get,
// memory_log, memory_remember, memory_list, memory_compact_plan) take
// typed inputs and return structured output beside a text rendering; bad
// input and refusals are tool errors, and the server keeps serving.
//
// Data enters as tool calls and as file changes made by anyone: a
// watcher marks the index stale when a memory file changes, and searches
// sync only then (with no watcher, every search runs recall's stat sync).
// Files that memory_context parses and the lines of the files hits come
// from are kept between calls under their stat data (memctx.Cache,
// recall.Options.FileClock), so an unchanged file costs one stat a call.
// Data leaves as tool results; writes go through layout, under the
// teammate's lock, atomically.
//
// A Service is safe for concurrent tool calls: the recall index is shared
// (see recall.Index), the workspace is only read or written through
// layout's locked, atomic operations, and the Service's own state is
// guarded by its mutex.
package serve
