//go:build !linux

package confine

import (
	"io/fs"
	"os"
	"syscall"
)

// Open opens dir as a confinement root (os.Root: no openat2 here).
func Open(dir string, mode Mode) (*Dir, error) {
	if dir == "" {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOENT}
	}
	return openRoot(dir, mode)
}

func dupCloexec(fd int) (int, error) {
	nfd, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(nfd)
	}
	return nfd, err
}

// OpenFD opens p with flags and returns the raw descriptor.
func (d *Dir) OpenFD(p string, flags int, perm uint32) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.shut {
		return -1, &fs.PathError{Op: "open", Path: p, Err: fs.ErrClosed}
	}
	return d.rootOpenFD(p, flags, perm)
}

// OpenFile opens p as os.OpenFile would, confined.
func (d *Dir) OpenFile(p string, flags int, perm os.FileMode) (*os.File, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.shut {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrClosed}
	}
	f, err := d.root.OpenFile(rel(p), flags, perm)
	return f, fixEscape(err, p)
}

// Sub opens a directory below d as a Beneath directory.
func (d *Dir) Sub(p string) (*Dir, error) { return d.rootSub(p) }

// Stat returns the file p names (a final symlink followed, confined).
func (d *Dir) Stat(p string) (fs.FileInfo, error) { return d.rootStat(p, false) }

// Lstat returns the file p names, a final symlink not followed.
func (d *Dir) Lstat(p string) (fs.FileInfo, error) { return d.rootStat(p, true) }

// Readlink returns a symlink's target text.
func (d *Dir) Readlink(p string) (string, error) { return d.rootReadlink(p) }

// Mkdir creates a directory.
func (d *Dir) Mkdir(p string, perm os.FileMode) error { return d.rootMkdir(p, perm) }

// Remove removes a file, a symlink or an empty directory.
func (d *Dir) Remove(p string) error { return d.rootRemove(p) }

// Rename renames a file or directory within d.
func (d *Dir) Rename(from, to string) error { return d.rootRename(from, to) }

func (d *Dir) close() error { return d.root.Close() }
