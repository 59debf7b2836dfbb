package apply

// The state directory's entries: the lock, journal/, the journals and
// their head files. The directory itself is the operator's choice
// (--state-dir, or /var/lib/dbhost, or ROOT/var/lib/dbhost checked by
// DefaultStateDir); what is in it may come with a tree someone else made.
// So every entry is opened beneath the directory (confine, Beneath: no
// "..", no link out of it) and never through a symbolic link: each
// component is looked at with lstat first, the last one is opened with
// O_NOFOLLOW, and the file opened must be the one looked at, a regular
// file (a directory for journal/) with a single link. Anything else — a
// link to /etc/passwd planted as the lock, a journal/ link to a directory
// elsewhere, a FIFO, a hard link to a file outside — is a *StateError
// (exit 2): nothing is opened, truncated or written through it.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/input"
)

// StateError says an entry of the state directory (or the directory
// itself) is not what dbhost keeps there: refused, nothing done through it.
type StateError struct {
	Path string
	Msg  string
}

func (e *StateError) Error() string { return e.Path + ": " + e.Msg }

// state is an open state directory.
type state struct {
	path string
	d    *confine.Dir
}

// checkStateDir refuses a state directory path that exists and is not a
// directory (a file given as --state-dir). A missing one is fine.
func checkStateDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		if isNotExist(err) {
			return nil
		}
		return err
	}
	if !st.IsDir() {
		return &StateError{Path: dir, Msg: fmt.Sprintf("not a directory (%s): the state directory holds dbhost's lock and journals; give a directory as --state-dir", input.FileKind(st.Mode()))}
	}
	return nil
}

// CheckStateDir is checkStateDir for the CLI: a --state-dir that exists
// and is not a directory is bad input.
func CheckStateDir(dir string) error { return checkStateDir(dir) }

// openState opens an existing state directory (a missing one: the
// *fs.PathError of ENOENT).
func openState(dir string) (*state, error) {
	if err := checkStateDir(dir); err != nil {
		return nil, err
	}
	d, err := confine.Open(dir, confine.Beneath)
	if err != nil {
		return nil, err
	}
	return &state{path: dir, d: d}, nil
}

func (s *state) close() {
	if s != nil && s.d != nil {
		s.d.Close()
	}
}

// host is an entry's host path, for messages and the fault seam.
func (s *state) host(p string) string { return filepath.Join(s.path, filepath.FromSlash(p)) }

// refuse is the StateError for entry p, found to be of mode m where
// expected (what) is wanted.
func (s *state) refuse(p string, m fs.FileMode, expected string) error {
	what := input.FileKind(m)
	if m&fs.ModeSymlink != 0 {
		if t, err := s.d.Readlink(p); err == nil {
			what += " (to " + t + ")"
		}
		return &StateError{Path: s.host(p), Msg: fmt.Sprintf("is %s, expected %s: dbhost never follows a link in its state directory (a link there would make it write elsewhere); remove it, or give another --state-dir", what, expected)}
	}
	return &StateError{Path: s.host(p), Msg: fmt.Sprintf("is %s, expected %s: refused, nothing was opened through it; remove it, or give another --state-dir", what, expected)}
}

// nlink is a file's number of hard links (1 where not known).
func nlink(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Nlink)
	}
	return 1
}

// lstatChain looks at every component of p (slash-separated, relative to
// the state directory) without following links: each parent must be a
// directory, the last a regular file with one link (dir false) or a
// directory (dir true). It returns the last one's information; a missing
// component is its *fs.PathError (ENOENT).
func (s *state) lstatChain(p string, dir bool) (fs.FileInfo, error) {
	parts := strings.Split(path.Clean(p), "/")
	var st fs.FileInfo
	for i := range parts {
		q := strings.Join(parts[:i+1], "/")
		var err error
		st, err = s.d.Lstat(q)
		if err != nil {
			return nil, err
		}
		last := i == len(parts)-1
		switch {
		case !last || dir:
			if !st.IsDir() {
				return nil, s.refuse(q, st.Mode(), "a directory")
			}
		case !st.Mode().IsRegular():
			return nil, s.refuse(q, st.Mode(), "a regular file")
		case nlink(st) > 1:
			return nil, &StateError{Path: s.host(q), Msg: fmt.Sprintf("has %d hard links, expected one: a file of the state directory linked elsewhere would change the other names too; refused", nlink(st))}
		}
	}
	return st, nil
}

// open opens the regular file p of the state directory (see the top of
// this file). With O_CREATE a missing file is created (never O_TRUNC:
// the caller truncates once the file is known to be its own).
func (s *state) open(p string, flags int, perm os.FileMode) (*os.File, error) {
	if flags&os.O_TRUNC != 0 {
		return nil, &fs.PathError{Op: "open", Path: s.host(p), Err: syscall.EINVAL}
	}
	_, err := s.lstatChain(p, false)
	if err != nil && !(flags&os.O_CREATE != 0 && isNotExist(err)) {
		return nil, withPath(err, s.host(p))
	}
	f, err := s.d.OpenFile(p, flags|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, s.refuse(p, fs.ModeSymlink, "a regular file")
		}
		return nil, withPath(err, s.host(p))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	// The file opened is the one looked at (os.Root, the fallback without
	// openat2, follows a last link within the directory whatever the
	// flags say; a swap between the look and the open is caught too).
	after, lerr := s.lstatChain(p, false)
	if lerr != nil {
		f.Close()
		return nil, withPath(lerr, s.host(p))
	}
	if !st.Mode().IsRegular() || !os.SameFile(st, after) {
		f.Close()
		return nil, s.refuse(p, after.Mode(), "a regular file")
	}
	return f, nil
}

// readFile reads the regular file p of the state directory, at most
// limit bytes (a larger one is an *input.Error naming the limit).
func (s *state) readFile(p string, limit int64, what string) ([]byte, error) {
	f, err := s.open(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, input.TooBig(s.host(p), what, limit, st.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, input.TooBig(s.host(p), what, limit, -1)
	}
	return b, nil
}

// readDir lists the directory p of the state directory (not a link).
func (s *state) readDir(p string) ([]fs.DirEntry, error) {
	if _, err := s.lstatChain(p, true); err != nil {
		return nil, withPath(err, s.host(p))
	}
	f, err := s.d.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, withPath(err, s.host(p))
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// mkdir creates the directory p of the state directory when missing; an
// existing one must be a directory, not a link.
func (s *state) mkdir(p string) error {
	_, err := s.lstatChain(p, true)
	if err == nil || !isNotExist(err) {
		return withPath(err, s.host(p))
	}
	if err := s.d.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return withPath(err, s.host(p))
	}
	_, err = s.lstatChain(p, true)
	return withPath(err, s.host(p))
}
