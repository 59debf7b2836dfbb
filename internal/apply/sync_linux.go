package apply

import (
	"os"
	"syscall"
)

// datasync flushes a file's data (and its size, when it changed), not its
// times: the journal's head file, rewritten in place, needs no more.
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
