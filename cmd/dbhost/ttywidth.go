package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// ttyWidth is the column count of the terminal f is, 0 when f is none.
func ttyWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0
	}
	return int(ws.Col)
}
