// Package layout owns tmem's on-disk model: a .teammates workspace, its
// teammates and their Markdown memory files. It finds and classifies files,
// parses daily logs, typed memories and summaries, and writes them back
// atomically, under locks, without ever leaving the workspace.
package layout
