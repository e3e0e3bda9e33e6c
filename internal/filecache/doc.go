// Package filecache keeps values derived from workspace files (parsed
// documents, split lines) in a long-lived process, so that a file read on
// one call is not read and parsed again on the next while it is unchanged.
//
// Data enters as a workspace-relative path and a function that derives a
// value from the file's bytes; it leaves as that value, from the cache
// when the file's stat data (size, mtime, inode change time, inode) is
// what it was when the value was derived, else freshly read through
// layout.Workspace.ReadFile. A file changed within the last two seconds
// (RacyWindow) is read on every call: a coarse file-system clock can give
// two writes in quick succession the same times, and only their age tells
// that they are settled. Where the platform has no inode change time,
// nothing is kept. Stamp, the stat data compared, is also what recall
// checks its own index files by.
package filecache
