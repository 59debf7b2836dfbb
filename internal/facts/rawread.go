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
	full := r.Path(p)
	var fd int
	var err error
	for {
		fd, err = syscall.Open(full, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
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

// sysReader reads many attribute files with one reusable buffer.
type sysReader struct {
	root Root
	buf  []byte
}

func newSysReader(root Root) *sysReader { return &sysReader{root: root, buf: make([]byte, 0, 4096)} }

// read returns an attribute file's content, trimmed.
func (r *sysReader) read(p string) (string, error) {
	b, err := r.root.readRaw(p, r.buf, false, 0)
	if err != nil {
		return "", err
	}
	r.buf = b[:0]
	return string(bytes.TrimSpace(b)), nil
}
