//go:build !linux

package bench

import "os"

// IsTerminal is false where dbhost does not ask the terminal driver: no
// progress bar.
func IsTerminal(f *os.File) bool { return false }
