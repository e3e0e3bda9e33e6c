package lazyregexp

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern on its first call and
// returns the same *regexp.Regexp on every call. Like regexp.MustCompile
// it panics if pattern does not compile, which only a constant pattern
// should be given to.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
