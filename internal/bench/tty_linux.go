//go:build linux

package bench

import (
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal: is f a terminal (for the progress bar)?
func IsTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
