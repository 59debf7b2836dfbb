package facts

import (
	"bytes"
	"io/fs"
	"syscall"
)

// Host files are read with open, read and close only. os.ReadFile also
// stats the file, sets it non-blocking and registers it with the poller (a
// failed epoll_ctl for regular and sysfs files): six system calls where three
// do, and on a 240-CPU tree (about 11,000 small files) those calls are most
// of the cost of a collection.

// readRaw reads a host file into buf[:0] (grown as needed) and returns it.
//
// With wholeFile false a read that does not fill the buffer is taken as the
// end, which saves the final read that would return 0: right for sysfs
// attributes (one record of at most a page, all of it in the first read),
// /proc/sys values, /proc/PID/comm and regular files of a captured tree.
// seq_file /proc files of many records (/proc/vmstat, /proc/interrupts,
// /proc/PID/status) may return short reads before their end: read those with
// wholeFile true, which reads until a read returns 0.
//
// At most limit bytes are read when limit > 0 (a /proc/PID/numa_maps of a
// huge process). Errors are *fs.PathError with the host path, as os.ReadFile's.
func (r Root) readRaw(p string, buf []byte, wholeFile bool, limit int) ([]byte, error) {
	fd, err := openRetry(func() (int, error) {
		return syscall.Open(r.Path(p), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	return readFD(fd, p, buf, wholeFile, limit)
}

// openRetry calls open until it is not interrupted.
func openRetry(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readFD reads an open file as readRaw describes; p names it in errors.
func readFD(fd int, p string, buf []byte, wholeFile bool, limit int) ([]byte, error) {
	if cap(buf) == 0 {
		buf = make([]byte, 0, 512)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if limit > 0 && len(buf) >= limit {
				break
			}
			buf = append(buf, 0)[:len(buf)] // grow
		}
		end := cap(buf)
		if limit > 0 && end > limit {
			end = limit
		}
		n, err := syscall.Read(fd, buf[len(buf):end])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		if n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
		if !wholeFile && len(buf) < end {
			break
		}
	}
	return buf, nil
}

// ReadAttr reads a small attribute file (sysfs, /proc/sys, /proc/irq/N/*,
// one value) and trims surrounding whitespace. See readRaw for which files
// qualify; multi-record /proc files must use ReadFile.
func (r Root) ReadAttr(p string) (string, error) {
	var stack [256]byte
	b, err := r.readRaw(p, stack[:0], false, 0)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimSpace(b)), nil
}

// sysReader reads many attribute files with one reusable buffer. Between
// enter(dir) and leave() it opens the files under dir relative to an open
// descriptor of dir, which spares the kernel walking the whole path for each
// of them (cpuN/cpuidle/stateM/latency is nine components deep).
type sysReader struct {
	root    Root
	buf     []byte
	dirPath string // host path of the entered directory, "" when none
	dirFD   int
}

func newSysReader(root Root) *sysReader {
	return &sysReader{root: root, buf: make([]byte, 0, 4096), dirFD: -1}
}

// enter makes dir the base for relative opens until leave. When dir cannot
// be opened, reads simply use full paths (and report their own errors).
func (r *sysReader) enter(dir string) {
	r.leave()
	fd, err := openRetry(func() (int, error) {
		return syscall.Open(r.root.Path(dir), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	})
	if err == nil {
		r.dirPath, r.dirFD = dir, fd
	}
}

// leave closes the entered directory.
func (r *sysReader) leave() {
	if r.dirFD >= 0 {
		syscall.Close(r.dirFD)
	}
	r.dirPath, r.dirFD = "", -1
}

// read returns an attribute file's content, trimmed.
func (r *sysReader) read(p string) (string, error) {
	var b []byte
	var err error
	if rel, ok := r.relative(p); ok {
		var fd int
		fd, err = openRetry(func() (int, error) {
			return syscall.Openat(r.dirFD, rel, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		})
		if err != nil {
			return "", &fs.PathError{Op: "open", Path: p, Err: err}
		}
		b, err = readFD(fd, p, r.buf, false, 0)
		syscall.Close(fd)
	} else {
		b, err = r.root.readRaw(p, r.buf, false, 0)
	}
	if err != nil {
		return "", err
	}
	r.buf = b[:0]
	return string(bytes.TrimSpace(b)), nil
}

// relative returns p relative to the entered directory, when it is under it.
func (r *sysReader) relative(p string) (string, bool) {
	n := len(r.dirPath)
	if r.dirFD < 0 || len(p) <= n+1 || p[n] != '/' || p[:n] != r.dirPath {
		return "", false
	}
	return p[n+1:], true
}
