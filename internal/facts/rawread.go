package facts

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"syscall"

	"github.com/dbhost/dbhost/internal/confine"
)

// MaxFileBytes bounds one host file (a captured tree may hold a file of any
// size; the kernel's own files are far smaller: /proc/interrupts of a
// 240-CPU host is under 1 MiB). A larger file is not read: its facts are
// absent with the limit as the reason. See docs/limits.md.
const MaxFileBytes = 64 << 20

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
// huge process); with limit 0 a file larger than MaxFileBytes is an error.
// Errors are *fs.PathError with the host path, as os.ReadFile's.
func (r Root) readRaw(p string, buf []byte, wholeFile bool, limit int) ([]byte, error) {
	if r.plain() {
		fd, err := openRetry(func() (int, error) {
			return syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		})
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		defer syscall.Close(fd)
		return readFD(fd, p, buf, wholeFile, limit, nil)
	}
	d, done, err := r.tree()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer done()
	return readTreeFile(d, p, p, buf, wholeFile, limit)
}

// readTreeFile reads rel under d (a tree, or a directory in it) as readRaw
// describes; p names it in errors. It is opened non-blocking (a FIFO never
// waits for a writer) and a file that is not regular is refused (a FIFO,
// a device node, which would read the live host's device). Whole-file reads
// check first, with fstat, and size the buffer from the file, which spares
// the final read that returns 0. Attribute reads, most of a collection,
// check only when the first read returns nothing or fills the buffer: a
// regular attribute file of a tree rarely does, a FIFO without a writer, a
// disk, /dev/zero or a file over MaxFileBytes always does (the last refused
// by its size there, before any further read). (A character device that returns a short
// record, such as /dev/kmsg, is read once there: only root can make device
// nodes, and an attribute is one record.)
func readTreeFile(d *confine.Dir, rel, p string, buf []byte, wholeFile bool, limit int) ([]byte, error) {
	fd, err := d.OpenFD(rel, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = p
		}
		return nil, err
	}
	defer syscall.Close(fd)
	check := func() (int64, error) {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return 0, &fs.PathError{Op: "stat", Path: p, Err: err}
		}
		// A directory is let through: reading it fails with EISDIR, as it
		// does on the live host.
		if t := st.Mode & syscall.S_IFMT; t != syscall.S_IFREG && t != syscall.S_IFDIR {
			return 0, &fs.PathError{Op: "open", Path: p, Err: confine.ErrNotRegular}
		}
		return st.Size, nil
	}
	if !wholeFile {
		// The check runs after the first read fills the buffer (at most a
		// page): a regular file over the bound (a sparse 10 GiB file in an
		// attribute's place) is refused from its size there, not read to
		// the bound first.
		return readFD(fd, p, buf, false, limit, func() error {
			size, err := check()
			if err == nil && limit <= 0 && size > MaxFileBytes {
				return &fs.PathError{Op: "read", Path: p, Err: &confine.TooBigError{Limit: MaxFileBytes, Size: size}}
			}
			return err
		})
	}
	size, err := check()
	if err != nil {
		return nil, err
	}
	if limit <= 0 && size > MaxFileBytes {
		return nil, &fs.PathError{Op: "read", Path: p, Err: &confine.TooBigError{Limit: MaxFileBytes, Size: size}}
	}
	if want := int(size) + 1; cap(buf) < want && (limit <= 0 || want <= limit) {
		buf = make([]byte, 0, want)
	}
	// A regular file's short read is its end; a size of 0 may be a
	// pseudo file (a procfs mounted in the tree): read it to the end.
	return readFD(fd, p, buf, size == 0, limit, nil)
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
// check, when not nil, is called once, when the first read returns nothing
// or a read fills the buffer, and its error ends the read.
func readFD(fd int, p string, buf []byte, wholeFile bool, limit int, check func() error) ([]byte, error) {
	bounded := limit <= 0
	if bounded {
		limit = MaxFileBytes + 1
	}
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
			if check != nil && len(buf) == 0 {
				if err := check(); err != nil {
					return nil, err
				}
			}
			break
		}
		buf = buf[:len(buf)+n]
		if !wholeFile && len(buf) < end {
			break
		}
		if check != nil {
			if err := check(); err != nil {
				return nil, err
			}
			check = nil
		}
	}
	if bounded && len(buf) > MaxFileBytes {
		return nil, &fs.PathError{Op: "read", Path: p, Err: &confine.TooBigError{Limit: MaxFileBytes, Size: -1}}
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
	return trimAttr(b), nil
}

// trimAttr trims an attribute's surrounding white space and any NUL bytes
// after its value: some kernels' list files end in "\n\x00" (seen on a 5.15
// arm64 server's sysfs), and a capture may pad a file with NULs. Bytes
// that are not UTF-8 become U+FFFD here, as JSON would write them: a
// snapshot then reads back as it was written.
func trimAttr(b []byte) string {
	return strings.ToValidUTF8(string(bytes.TrimSpace(bytes.TrimRight(b, "\x00 \t\n\r"))), "\uFFFD")
}

// sysReader reads many attribute files with one reusable buffer. Between
// enter(dir) and leave() it opens the files under dir relative to an open
// descriptor of dir, which spares the kernel walking the whole path for each
// of them (cpuN/cpuidle/stateM/latency is nine components deep).
type sysReader struct {
	root    Root
	buf     []byte
	dirPath string       // host path of the entered directory, "" when none
	dirFD   int          // the live host: the entered directory
	sub     *confine.Dir // a tree: the entered directory
}

func newSysReader(root Root) *sysReader {
	return &sysReader{root: root, buf: make([]byte, 0, 4096), dirFD: -1}
}

// enter makes dir the base for relative opens until leave. When dir cannot
// be opened, reads simply use full paths (and report their own errors).
// In a tree, a relative path that leads above dir (a sysfs link such as
// cpu0/node0 -> ../../node/node0) is resolved again from the tree's top.
func (r *sysReader) enter(dir string) {
	r.leave()
	if !r.root.plain() {
		d, done, err := r.root.tree()
		if err != nil {
			return
		}
		sub, err := d.Sub(dir)
		done()
		if err == nil {
			r.dirPath, r.sub = dir, sub
		}
		return
	}
	fd, err := openRetry(func() (int, error) {
		return syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
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
	if r.sub != nil {
		r.sub.Close()
	}
	r.dirPath, r.dirFD, r.sub = "", -1, nil
}

// read returns an attribute file's content, trimmed.
func (r *sysReader) read(p string) (string, error) {
	var b []byte
	var err error
	if rel, ok := r.relative(p); ok {
		if r.sub != nil {
			b, err = readTreeFile(r.sub, rel, p, r.buf, false, 0)
			if confine.IsEscape(err) {
				b, err = r.root.readRaw(p, r.buf, false, 0)
			}
		} else {
			var fd int
			fd, err = openRetry(func() (int, error) {
				return syscall.Openat(r.dirFD, rel, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
			})
			if err != nil {
				return "", &fs.PathError{Op: "open", Path: p, Err: err}
			}
			b, err = readFD(fd, p, r.buf, false, 0, nil)
			syscall.Close(fd)
		}
	} else {
		b, err = r.root.readRaw(p, r.buf, false, 0)
	}
	if err != nil {
		return "", err
	}
	r.buf = b[:0]
	return trimAttr(b), nil
}

// relative returns p relative to the entered directory, when it is under it.
func (r *sysReader) relative(p string) (string, bool) {
	n := len(r.dirPath)
	if n == 0 || len(p) <= n+1 || p[n] != '/' || p[:n] != r.dirPath {
		return "", false
	}
	return p[n+1:], true
}
