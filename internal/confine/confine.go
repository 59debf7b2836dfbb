// Package confine opens, reads and writes files under one directory without
// ever leaving it: no "..", no symbolic link, absolute or relative, takes a
// path outside the directory.
//
// dbhost reads and writes captured host trees (--root), unpacked sosreports
// and, on the live host, /proc/sys, /sys, the cgroup mounts and the files it
// manages. A tree holds symlinks of its own (sysfs is full of
// ../../devices/... links) that must keep working, and may hold links that
// point out of it (an absolute /etc/localtime, a planted
// proc/sys/vm/swappiness -> /somewhere) that must never reach the live host.
//
// On Linux 5.6 and later every path is resolved by the kernel with
// openat2(2): RESOLVE_IN_ROOT for a tree (".." stops at the tree's top and an
// absolute link means the tree's own root, as it did on the host the tree was
// taken from) or RESOLVE_BENEATH for a live directory (anything that would
// leave it fails with EXDEV), both with RESOLVE_NO_MAGICLINKS. Where openat2
// is missing (older kernels: ENOSYS; some seccomp filters: EPERM) or on other
// systems, os.Root resolves each component in user space; it refuses an
// absolute link outright, so a tree's absolute links read as errors there.
package confine

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Mode says how paths that point upwards or outwards are treated.
type Mode int

const (
	// InRoot treats the directory as "/": ".." at its top stays there, an
	// absolute symlink is resolved from the directory (a captured tree).
	InRoot Mode = iota
	// Beneath refuses any path that would leave the directory (a live
	// directory such as /proc/sys).
	Beneath
)

// Dir is an open directory that paths are resolved under. It is safe for
// concurrent use. Paths given to its methods are slash-separated; a leading
// "/" is the directory itself.
type Dir struct {
	name string
	mode Mode
	fd   int      // openat2 available: the directory's descriptor; else -1
	root *os.Root // openat2 unavailable
	mu   sync.RWMutex
	shut bool
}

// ErrEscape is returned (wrapped in a *fs.PathError) when a path would leave
// a Beneath directory.
var ErrEscape = errors.New("path leaves the directory it is confined to")

// ErrNotRegular is returned by ReadFile-like callers that refuse a FIFO,
// device or socket where a regular file is expected.
var ErrNotRegular = errors.New("not a regular file")

// Name returns the directory's path as it was opened.
func (d *Dir) Name() string { return d.name }

// Mode returns how d resolves paths.
func (d *Dir) Mode() Mode { return d.mode }

// Kernel reports whether d resolves paths with openat2 (false: os.Root).
func (d *Dir) Kernel() bool { return d.fd >= 0 }

// rel turns a host-style path into one relative to the directory.
func rel(p string) string {
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return "."
	}
	return p
}

// split returns the parent (relative, "." for the top) and the last
// component of p, refusing a path that names the directory itself or ends
// in "..".
func split(op, p string) (string, string, error) {
	c := path.Clean("/" + p)
	dir, base := path.Split(c)
	if base == "" || base == "." || base == ".." {
		return "", "", &fs.PathError{Op: op, Path: p, Err: syscall.EINVAL}
	}
	return rel(dir), base, nil
}

// IsEscape reports whether err says a path would have left its directory.
func IsEscape(err error) bool {
	if errors.Is(err, ErrEscape) || errors.Is(err, syscall.EXDEV) {
		return true
	}
	// os.Root's own error ("path escapes from parent") is not exported.
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes")
}

// ReadDirNames lists a directory's entry names (unsorted).
func (d *Dir) ReadDirNames(p string) ([]string, error) {
	f, err := d.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: unwrapPath(err)}
	}
	return names, nil
}

// ReadDir lists a directory's entries (unsorted), with their types as the
// directory reports them (a symlink is not followed).
func (d *Dir) ReadDir(p string) ([]fs.DirEntry, error) {
	f, err := d.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: unwrapPath(err)}
	}
	return ents, nil
}

// WriteExisting replaces the content of an existing regular file (never
// creating one), as `echo value > file` does.
func (d *Dir) WriteExisting(p string, data []byte) error {
	f, err := d.OpenFile(p, os.O_WRONLY|os.O_TRUNC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() && d.mode == InRoot {
		f.Close()
		return &fs.PathError{Op: "write", Path: p, Err: ErrNotRegular}
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReplaceExisting replaces the content of an existing regular file (never
// creating one) the way WriteFileAtomic does, without its fsyncs: a
// temporary file in the same directory, renamed over p. A captured tree's
// files are written so (apply's TreeSys): a hard link's other names (a
// tree copied with cp -al shares every file with its original) keep their
// bytes, and a crash leaves the old content or the new one, never an
// emptied file. The file's mode and, where permitted, its owner are kept.
// A last component that is a symbolic link is followed (resolved inside
// d, as OpenFile resolves it) and the file it names is replaced; a FIFO,
// device or socket is refused (ErrNotRegular), a directory is EISDIR.
func (d *Dir) ReplaceExisting(p string, data []byte) error {
	target, err := d.lastLink(p)
	if err != nil {
		return err
	}
	st, err := d.Lstat(target)
	if err != nil {
		return withName(err, p)
	}
	switch {
	case st.IsDir():
		return &fs.PathError{Op: "write", Path: p, Err: syscall.EISDIR}
	case !st.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: p, Err: ErrNotRegular}
	}
	dir, base, err := split("write", target)
	if err != nil {
		return err
	}
	var f *os.File
	var tmp string
	for i := 0; ; i++ {
		tmp = path.Join(dir, ".dbhost-"+base+"-"+randSuffix())
		f, err = d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return withName(err, p)
		}
		break
	}
	ok := false
	defer func() {
		if !ok {
			d.Remove(tmp)
		}
	}()
	if sys, isUnix := st.Sys().(*syscall.Stat_t); isUnix {
		_ = f.Chown(int(sys.Uid), int(sys.Gid)) // only root may give a file away: best effort
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return withName(err, p)
	}
	if err := f.Chmod(st.Mode().Perm()); err != nil {
		f.Close()
		return withName(err, p)
	}
	if err := f.Close(); err != nil {
		return withName(err, p)
	}
	if err := d.Rename(tmp, target); err != nil {
		return withName(err, p)
	}
	ok = true
	return nil
}

// lastLink follows p's last component while it is a symbolic link (at
// most 40 times, as the kernel does), resolving each target as d resolves
// paths (relative to the link's directory; an absolute one from d's top),
// and returns the path of what it names.
func (d *Dir) lastLink(p string) (string, error) {
	cur := path.Clean("/" + p)
	for i := 0; i < 40; i++ {
		st, err := d.Lstat(cur)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return cur, nil
		}
		t, err := d.Readlink(cur)
		if err != nil {
			return "", withName(err, p)
		}
		if path.IsAbs(t) {
			cur = path.Clean(t)
		} else {
			cur = path.Join(path.Dir(cur), t)
		}
	}
	return "", &fs.PathError{Op: "write", Path: p, Err: syscall.ELOOP}
}

// withName names p (the caller's path) in a *fs.PathError.
func withName(err error, p string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	return err
}

// ReadFile reads a whole file of at most limit bytes (limit <= 0: no limit).
// A file that is not regular is refused in an InRoot directory (a FIFO in a
// captured tree would block, a device node would read the live host).
func (d *Dir) ReadFile(p string, limit int64) ([]byte, error) {
	f, err := d.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if d.mode == InRoot && !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: p, Err: ErrNotRegular}
	}
	if limit > 0 && st.Mode().IsRegular() && st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: p, Err: &TooBigError{Limit: limit, Size: st.Size()}}
	}
	return readAll(f, p, limit)
}

// TooBigError says a file is larger than the limit its reader allows.
type TooBigError struct {
	Limit int64
	Size  int64 // -1 when only "more than Limit" is known
}

func (e *TooBigError) Error() string {
	if e.Size >= 0 {
		return "file of " + Bytes(e.Size) + " is larger than the limit of " + Bytes(e.Limit)
	}
	return "larger than the limit of " + Bytes(e.Limit)
}

func readAll(f *os.File, p string, limit int64) ([]byte, error) {
	buf := make([]byte, 0, 4096)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if limit > 0 && int64(len(buf)) > limit {
			return nil, &fs.PathError{Op: "read", Path: p, Err: &TooBigError{Limit: limit, Size: -1}}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return buf, nil
			}
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
	}
}

// Bytes formats a size the way the limits are documented: 64 MiB, 512 KiB,
// 300.2 MiB, 4.0 GiB.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// WriteFileAtomic replaces (or creates) p durably: a temporary file in the
// same directory, fsync, rename over p, fsync of the directory. The parent
// directories are created (mode 0755) when missing. A temporary file left by
// a crash is named ".dbhost-*" (see RemoveTemps).
func (d *Dir) WriteFileAtomic(p string, data []byte, perm os.FileMode) error {
	dir, base, err := split("write", p)
	if err != nil {
		return err
	}
	if err := d.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var f *os.File
	var tmp string
	if err := d.checkFault("create", p); err != nil {
		return err
	}
	for i := 0; ; i++ {
		tmp = path.Join(dir, ".dbhost-"+base+"-"+randSuffix())
		f, err = d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	defer d.Remove(tmp)
	if err := d.checkFault("write", tmp); err != nil {
		f.Write(data[:len(data)/2]) // a short write, as a full disk leaves it
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := d.checkFault("fsync", tmp); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := d.checkFault("rename", p); err != nil {
		return err
	}
	if err := d.Rename(tmp, p); err != nil {
		return err
	}
	return d.SyncDir(dir)
}

var tmpSeq atomic.Int64

func randSuffix() string {
	return strconv.Itoa(os.Getpid()) + "." + strconv.FormatInt(tmpSeq.Add(1), 10)
}

// RemoveTemps removes the ".dbhost-*" temporary files an interrupted
// WriteFileAtomic left in p's directory.
func (d *Dir) RemoveTemps(p string) {
	dir, _, err := split("remove", p)
	if err != nil {
		return
	}
	names, err := d.ReadDirNames(dir)
	if err != nil {
		return
	}
	for _, n := range names {
		if strings.HasPrefix(n, ".dbhost-") {
			_ = d.Remove(path.Join(dir, n))
		}
	}
}

// RemoveDurably removes a file (not a directory) and fsyncs its directory.
func (d *Dir) RemoveDurably(p string) error {
	dir, _, err := split("remove", p)
	if err != nil {
		return err
	}
	if st, err := d.Lstat(p); err == nil && st.IsDir() {
		return &fs.PathError{Op: "remove", Path: p, Err: syscall.EISDIR}
	}
	if err := d.checkFault("remove", p); err != nil {
		return err
	}
	if err := d.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return d.SyncDir(dir)
}

// MkdirAll creates a directory and its missing parents, each confined.
func (d *Dir) MkdirAll(p string, perm os.FileMode) error {
	c := path.Clean("/" + p)
	if c == "/" {
		return nil
	}
	if st, err := d.Stat(c); err == nil {
		if st.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
	}
	if err := d.MkdirAll(path.Dir(c), perm); err != nil {
		return err
	}
	if err := d.Mkdir(c, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// SyncDir (the package function) fsyncs the directory named by the host
// path dir, opened as is, NOT confined to any Dir, so that a file created,
// renamed or removed in it survives a power loss. It is for directories
// dbhost chose itself (its state directory, an -o output the operator
// named); a path taken from a tree or a journal goes through Dir.SyncDir.
func SyncDir(dir string) error {
	if err := CheckFault("fsync-dir", dir); err != nil {
		return err
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// SyncDir (the method) fsyncs the directory p, resolved under d like every
// other path of d (no "..", no symlink out), so that a rename or removal in
// it survives a power loss. The package function SyncDir is its unconfined
// counterpart for paths dbhost chose itself.
func (d *Dir) SyncDir(p string) error {
	if err := d.checkFault("fsync-dir", p); err != nil {
		return err
	}
	f, err := d.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Close releases the directory. Calls after Close fail with fs.ErrClosed.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.shut {
		return nil
	}
	d.shut = true
	return d.close()
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
