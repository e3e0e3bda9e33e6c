// Package merge merges memory files three ways, the way git needs when two
// machines wrote to the same teammate: entry by entry instead of line by
// line, so appends on both sides never conflict and never repeat.
//
// Files enter as three versions (base, ours, theirs) and a path that says
// what kind of file they are (Merge); the merged bytes leave with the
// number of conflicts left in them and notes on what was kept. Driver runs
// Merge over the files git hands a merge driver; Register and Registered
// set up and check the driver in a repository's local git config;
// ResolveDeleted settles the conflicts git leaves when compaction deleted
// a daily log (or its stub) on one side and the other side appended to it.
//
// A file is split into units: frontmatter fields (merged key by key), `##`
// sections and stamped appends (see layout.Stamp) of the body, and the
// sections of an archive file (identified by source and hash). Units added
// on both sides at the same place are all kept, once, in the time order of
// their stamps; a unit changed on both sides differently is a conflict,
// with markers around that unit only.
//
// Three kinds of file get more than that. A daily log that compaction
// replaced by its stub (layout.DailyStub) on one side becomes the stub
// with every entry either side added since base, for the next compaction
// to fold in. Two weekly or monthly summaries of one period become one
// that holds the lines of both, with the sources of both. An archive
// month file is the union of its sections, each entry once (see
// keepEntriesOnce). Each result depends on the versions' content, not on
// which side is ours, so machines that merge in different orders end
// with the same files.
package merge
