// Package layouttest builds workspaces for tests: a whole memory tree from a
// txtar archive, written into a fresh temporary folder.
package layouttest
