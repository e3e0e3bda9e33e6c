// Package layout owns tmem's on-disk model: a .teammates workspace, its
// teammates and their Markdown memory files.
//
// Files enter through Open or Find (a Workspace), Files (a stat-only listing
// that classifies every memory file by Kind) and Parse (a Doc: frontmatter,
// title and `##` entries with line ranges). They leave through WriteFile,
// AppendDaily and WriteMemory, which write atomically (temp file, fsync,
// rename, fsync of the folder), take the teammate's advisory lock and refuse
// any path that would leave the workspace. AppendDaily and WriteMemory also
// refuse text that looks like it holds a secret (CheckSecrets, a
// *SecretError) unless told AllowSecrets; Check reports secrets already in
// the files.
//
// Parse reads past entry stamps (Stamp, written with the Stamped option)
// and merge conflict markers (ConflictMarkers), so readers never index or
// show them; Check reports the markers with their lines.
//
// A daily log that compaction summarised and archived is left as a stub
// (DailyStub; HasStub, IsBareStub recognise it) for a while, so that a git
// merge with another machine's late entries to it runs the merge driver.
//
// Library code here never reads the clock: callers pass the time in.
package layout
