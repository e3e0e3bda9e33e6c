// Package lazyregexp holds regular expressions that are compiled on first
// use instead of when a process starts.
//
// Every tmem command links every package, so a package-level
// regexp.MustCompile runs in every process, including the per-task calls
// that never use it. Data enters as a constant pattern and leaves as the
// compiled *regexp.Regexp, the same one on every call.
package lazyregexp
