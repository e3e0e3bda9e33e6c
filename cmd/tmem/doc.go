// Command tmem manages a Markdown memory workspace for AI teammates.
//
// It only wires: one constructor per command (newXCmd(f *factory)), flag
// checks, then one call into a library package (layout, recall,
// recall/minilm, context, compact). factory.go maps errors to exit codes.
package main
