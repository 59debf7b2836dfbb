package confine

import (
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/dbhost/dbhost/internal/testhooks"
	"golang.org/x/sys/unix"
)

// noOpenat2 forces the os.Root fallback (tests, and DBHOST_TEST_NO_OPENAT2=1
// in a -tags testhooks binary, so that the path older kernels take is tested
// here too).
var noOpenat2 = testhooks.Getenv(testhooks.NoOpenat2) == "1"

// haveOpenat2 reports whether openat2 can be used.
func haveOpenat2() bool { return !noOpenat2 && kernelOpenat2() }

// kernelOpenat2 probes the kernel once: ENOSYS before Linux 5.6, EPERM or
// ENOSYS under seccomp filters that do not know the call.
var kernelOpenat2 = sync.OnceValue(func() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

// Open opens dir as a confinement root.
func Open(dir string, mode Mode) (*Dir, error) {
	if dir == "" {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOENT}
	}
	if !haveOpenat2() {
		return openRoot(dir, mode)
	}
	fd, err := retry(func() (int, error) {
		return unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Dir{name: dir, mode: mode, fd: fd}, nil
}

func (d *Dir) resolve() uint64 {
	if d.mode == InRoot {
		return unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS
	}
	return unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS
}

// retry repeats a call interrupted by a signal, or one openat2 refused with
// EAGAIN because a rename raced with RESOLVE_IN_ROOT's checks.
func retry(f func() (int, error)) (int, error) {
	for i := 0; ; i++ {
		fd, err := f()
		if err == unix.EINTR || (err == unix.EAGAIN && i < 64) {
			continue
		}
		return fd, err
	}
}

// OpenFD opens p with flags (O_CLOEXEC is added) and returns the raw
// descriptor, for readers that read with read(2) directly. The caller closes it.
func (d *Dir) OpenFD(p string, flags int, perm uint32) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.shut {
		return -1, &fs.PathError{Op: "open", Path: p, Err: fs.ErrClosed}
	}
	if d.fd < 0 {
		return d.rootOpenFD(p, flags, perm)
	}
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(perm), Resolve: d.resolve()}
	fd, err := retry(func() (int, error) { return unix.Openat2(d.fd, rel(p), &how) })
	if err != nil {
		if err == unix.EXDEV {
			err = ErrEscape
		}
		return -1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return fd, nil
}

// OpenFile opens p as os.OpenFile would, confined.
func (d *Dir) OpenFile(p string, flags int, perm os.FileMode) (*os.File, error) {
	fd, err := d.OpenFD(p, flags, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), d.name+"/"+rel(p)), nil
}

// Sub opens a directory below d as a Beneath directory: paths relative to it
// are resolved without walking from d's top again (faster for many files in
// one directory), and a path that would leave it fails with ErrEscape (the
// caller then resolves it from d).
func (d *Dir) Sub(p string) (*Dir, error) {
	if d.fd < 0 {
		return d.rootSub(p)
	}
	fd, err := d.OpenFD(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &Dir{name: d.name + "/" + rel(p), mode: Beneath, fd: fd}, nil
}

// Stat returns the file p names (a final symlink followed, confined).
func (d *Dir) Stat(p string) (fs.FileInfo, error) { return d.stat(p, 0) }

// Lstat returns the file p names, a final symlink not followed.
func (d *Dir) Lstat(p string) (fs.FileInfo, error) { return d.stat(p, unix.O_NOFOLLOW) }

func (d *Dir) stat(p string, nofollow int) (fs.FileInfo, error) {
	if d.fd < 0 {
		return d.rootStat(p, nofollow != 0)
	}
	f, err := d.OpenFile(p, unix.O_PATH|nofollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: unwrapPath(err)}
	}
	return st, nil
}

// Readlink returns a symlink's target text (the link is not followed).
func (d *Dir) Readlink(p string) (string, error) {
	if d.fd < 0 {
		return d.rootReadlink(p)
	}
	fd, err := d.OpenFD(p, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(fd, "", buf)
		if err != nil {
			if err == unix.ENOENT {
				err = unix.EINVAL // not a symlink, as readlink(2) says it
			}
			return "", &fs.PathError{Op: "readlink", Path: p, Err: err}
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// parent opens p's parent directory (confined) and returns it with p's last
// component, for the *at calls that must not follow that component.
func (d *Dir) parent(op, p string) (int, string, error) {
	dir, base, err := split(op, p)
	if err != nil {
		return -1, "", err
	}
	fd, err := d.OpenFD(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, "", err
	}
	return fd, base, nil
}

// Mkdir creates a directory.
func (d *Dir) Mkdir(p string, perm os.FileMode) error {
	if d.fd < 0 {
		return d.rootMkdir(p, perm)
	}
	pfd, base, err := d.parent("mkdir", p)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	if err := unix.Mkdirat(pfd, base, uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "mkdir", Path: p, Err: err}
	}
	return nil
}

// Remove removes a file, a symlink (not its target) or an empty directory.
func (d *Dir) Remove(p string) error {
	if d.fd < 0 {
		return d.rootRemove(p)
	}
	pfd, base, err := d.parent("remove", p)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	err = unix.Unlinkat(pfd, base, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		if e2 := unix.Unlinkat(pfd, base, unix.AT_REMOVEDIR); e2 != unix.ENOTDIR {
			err = e2
		}
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: p, Err: err}
	}
	return nil
}

// Rename renames a file or directory within d.
func (d *Dir) Rename(from, to string) error {
	if d.fd < 0 {
		return d.rootRename(from, to)
	}
	ofd, obase, err := d.parent("rename", from)
	if err != nil {
		return err
	}
	defer unix.Close(ofd)
	nfd, nbase, err := d.parent("rename", to)
	if err != nil {
		return err
	}
	defer unix.Close(nfd)
	if err := unix.Renameat(ofd, obase, nfd, nbase); err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	return nil
}

func (d *Dir) close() error {
	if d.fd >= 0 {
		return unix.Close(d.fd)
	}
	return d.root.Close()
}

func dupCloexec(fd int) (int, error) {
	return retry(func() (int, error) { return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0) })
}
