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
// a daily log on one side and the other side appended to it.
//
// A file is split into units: frontmatter fields (merged key by key), `##`
// sections and stamped appends (see layout.Stamp) of the body, and the
// sections of an archive file (identified by source and hash). Units added
// on both sides at the same place are all kept, once, in the time order of
// their stamps; a unit changed on both sides differently is a conflict,
// with markers around that unit only.
package merge
