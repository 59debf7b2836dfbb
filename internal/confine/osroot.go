package confine

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// The os.Root fallback: kernels without openat2 (before 5.6), seccomp
// filters that refuse it, and systems other than Linux.

func openRoot(dir string, mode Mode) (*Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Dir{name: dir, mode: mode, fd: -1, root: r}, nil
}

// fixEscape turns os.Root's "path escapes from parent" into ErrEscape and
// names the path as the caller gave it.
func fixEscape(err error, p string) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if IsEscape(err) {
			return &fs.PathError{Op: pe.Op, Path: p, Err: ErrEscape}
		}
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: le.Op, Path: p, Err: le.Err}
	}
	return err
}

func (d *Dir) rootOpenFD(p string, flags int, perm uint32) (int, error) {
	f, err := d.root.OpenFile(rel(p), flags, fs.FileMode(perm))
	if err != nil {
		return -1, fixEscape(err, p)
	}
	defer f.Close()
	// Fd makes the descriptor blocking; a duplicate outlives f.
	fd, err := dupCloexec(int(f.Fd()))
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if flags&syscall.O_NONBLOCK != 0 {
		_ = syscall.SetNonblock(fd, true)
	}
	return fd, nil
}

func (d *Dir) rootSub(p string) (*Dir, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.shut {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrClosed}
	}
	r, err := d.root.OpenRoot(rel(p))
	if err != nil {
		return nil, fixEscape(err, p)
	}
	return &Dir{name: d.name + "/" + rel(p), mode: Beneath, fd: -1, root: r}, nil
}

func (d *Dir) rootStat(p string, nofollow bool) (fs.FileInfo, error) {
	var st fs.FileInfo
	var err error
	if nofollow {
		st, err = d.root.Lstat(rel(p))
	} else {
		st, err = d.root.Stat(rel(p))
	}
	if err != nil {
		return nil, fixEscape(err, p)
	}
	return st, nil
}

func (d *Dir) rootReadlink(p string) (string, error) {
	t, err := d.root.Readlink(rel(p))
	if err != nil {
		return "", fixEscape(err, p)
	}
	return t, nil
}

func (d *Dir) rootMkdir(p string, perm os.FileMode) error {
	return fixEscape(d.root.Mkdir(rel(p), perm), p)
}

func (d *Dir) rootRemove(p string) error { return fixEscape(d.root.Remove(rel(p)), p) }

func (d *Dir) rootRename(from, to string) error {
	return fixEscape(d.root.Rename(rel(from), rel(to)), from)
}
