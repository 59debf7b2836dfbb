//go:build linux

package facts

import (
	"io/fs"
	"syscall"
)

// readAttr reads a small sysfs or procfs attribute file (one value, well
// under 4 KiB: queue/nr_requests, /proc/irq/N/node, ...) and trims it.
//
// It costs three system calls (open, read, close) where os.ReadFile costs six
// (open, a failed epoll registration, fstat, two reads, close); with ~30
// attributes per disk and per NIC that is most of a 64-disk collection.
// sysfs hands a whole attribute to the first read; a read that fills the
// buffer falls back to reading on until EOF.
func readAttr(r Root, p string) (string, error) {
	full := r.Path(p)
	fd, err := syscall.Open(full, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: full, Err: err}
	}
	defer syscall.Close(fd)
	var buf [512]byte
	n, err := readRetry(fd, buf[:])
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: full, Err: err}
	}
	if n < len(buf) {
		return trimSpaceString(buf[:n]), nil
	}
	b, err := r.ReadFile(p) // a large attribute: take the ordinary path
	if err != nil {
		return "", err
	}
	return trimSpaceString(b), nil
}

func readRetry(fd int, b []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}
