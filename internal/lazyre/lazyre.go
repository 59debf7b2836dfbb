// Package lazyre compiles regular expressions the first time they are used
// instead of at program start: dbhost holds ~50 patterns for artifacts and
// specs that most runs never read, and compiling them all in init cost a few
// milliseconds of every command's start-up.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern once, on its first call, and
// then returns the same *regexp.Regexp. An invalid pattern panics on first
// use, as regexp.MustCompile would at start-up; tests exercise every pattern.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
