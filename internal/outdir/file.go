package outdir

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// OwnAttr is the extended attribute in which dbhost keeps the checksum of
// a single-file output it wrote (-o FILE): the file is dbhost's own, and
// unchanged since, when its content still has that checksum. The content
// itself is what standard output gets, byte for byte.
const OwnAttr = "user.dbhost.sha256"

// WriteOwnFile writes one file output (-o FILE of every command) with
// data: CreateOwnFile with data written at once.
func WriteOwnFile(path string, data []byte, limit int64, own func([]byte) bool) error {
	return CreateOwnFile(path, limit, own, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CreateOwnFile writes one file output (`dbhost audit -o FILE`, collect,
// numa, awr, diff, compare, bench, experiment, report) the way -o means for
// a directory: a file that exists is replaced only when dbhost wrote it and
// nobody changed it since — its content matches the checksum dbhost kept in
// its OwnAttr attribute, or own (when not nil: a format with a checksum
// trailer of its own, the HTML report) says so of its first limit bytes —
// or when it is empty (mktemp's: nothing to lose). Anything else is a
// *RefusedError naming it, and nothing is written. fn writes the content;
// it goes to a temporary file beside the old one, renamed over it only when
// fn succeeds (a reader never sees half of it, an error leaves the old file
// as it was). The new file keeps the replaced one's permissions and, when
// dbhost may give it, its owner (a 0600 file stays 0600); a new one is 0644.
//
// A symlink is followed (the file it names is replaced, the link kept)
// unless it lies in a sticky directory and belongs neither to the user
// running dbhost nor to the directory's owner: a link another user planted
// in /tmp is refused (see resolve); so is such a file (mayReplace). Of what is not a regular file, only
// /dev/null, a terminal, standard output (/dev/stdout) and a FIFO somebody
// reads are written into; a FIFO is opened without waiting (nobody
// reading it is refused), any other device, a socket or a directory is
// refused.
func CreateOwnFile(path string, limit int64, own func([]byte) bool, fn func(io.Writer) error) error {
	if path == Stdout {
		return writeInto(os.Stdout, fn, false)
	}
	d, err := target(path, limit, own)
	if err != nil {
		return err
	}
	if d.special {
		f, err := openSpecial(path, d)
		if err != nil {
			return err
		}
		return writeInto(f, fn, true)
	}
	dir, base := filepath.Dir(d.real), filepath.Base(d.real)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	// The directory written into is the one the walk vetted, not whatever
	// was swapped in at its name since.
	if d.dir == nil {
		return &RefusedError{Dir: path, Why: "cannot be created: its directory " + dir + " does not exist"}
	}
	if st, err := root.Stat("."); err != nil || !os.SameFile(st, d.dir) {
		return &RefusedError{Dir: path, Why: "its directory " + dir + " was replaced while dbhost resolved it: not written"}
	}
	tmpName, tmp, err := createTemp(root, base)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		tmp.Close()
		root.Remove(tmpName)
		return err
	}
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, h), 64<<10)
	if err := fn(w); err != nil {
		return fail(err)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	perm := fs.FileMode(0o644)
	if d.st != nil {
		perm = d.st.Mode().Perm()
		// Best effort: root gives the file back to its owner (a DBA's
		// mktemp file stays readable by them); another user cannot.
		if u, ok := owner(d.st); ok {
			_ = tmp.Chown(int(u), int(group(d.st)))
		}
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	// Best effort: a file system without user attributes (tmpfs before
	// Linux 6.6, some NFS) keeps the file unmarked, and the next -o to it
	// is refused, never an overwrite of a file dbhost cannot tell its own.
	_ = setOwnAttr(tmp, hex.EncodeToString(h.Sum(nil)))
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		root.Remove(tmpName)
		return err
	}
	if err := root.Rename(tmpName, base); err != nil {
		root.Remove(tmpName)
		return err
	}
	df, err := root.Open(".")
	if err != nil {
		return err
	}
	defer df.Close()
	return df.Sync()
}

// Stdout is the -o name of standard output besides "-": written into as
// it is (a terminal, a pipe, or the file the shell redirected it to).
const Stdout = "/dev/stdout"

// writeInto writes fn's output into f (a device, a FIFO, standard output).
func writeInto(f *os.File, fn func(io.Writer) error, closeIt bool) error {
	w := bufio.NewWriterSize(f, 64<<10)
	err := fn(w)
	if err == nil {
		err = w.Flush()
	}
	if closeIt {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// createTemp creates a new temporary file beside base in root.
func createTemp(root *os.Root, base string) (string, *os.File, error) {
	for range 100 {
		name := "." + base + "." + strconv.FormatUint(uint64(rand.Uint32()), 10) + tempSuffix
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
	return "", nil, &fs.PathError{Op: "createtemp", Path: base, Err: fs.ErrExist}
}

// openSpecial opens the FIFO or device d names for writing, without
// waiting for a reader, and checks again what it opened.
func openSpecial(path string, d dest) (*os.File, error) {
	flags := os.O_WRONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
	if !d.magic {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(d.real, flags, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, &RefusedError{Dir: path, Why: "is a FIFO nobody reads: dbhost does not wait for a reader (start the reader first)"}
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = special(path, d.real, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckOwnFile says, without writing, whether CreateOwnFile would write
// path: nil, or the *RefusedError (a file dbhost did not write, a
// directory, a directory to put it in that does not exist, a symlink or
// device it refuses) or error it would meet first. A command that changes
// the host (apply, rollback) checks its -o FILE before the change, so that
// a refused output never comes after it. (A FIFO is not opened here: whether
// somebody reads it is known only when it is written.)
func CheckOwnFile(path string, limit int64, own func([]byte) bool) error {
	if path == Stdout {
		return nil
	}
	d, err := target(path, limit, own)
	if err != nil || d.special {
		return err
	}
	if st, err := os.Stat(filepath.Dir(d.real)); err != nil || !st.IsDir() || d.dir == nil {
		return &RefusedError{Dir: path, Why: "cannot be created: its directory " + filepath.Dir(path) + " does not exist"}
	}
	return nil
}

// dest is where an -o FILE goes.
type dest struct {
	resolved
	st      fs.FileInfo // the existing file (Lstat of real), nil for a new one
	special bool        // a FIFO or an allowed device: written into
}

// target is the file path names (its symlinks followed under resolve's
// rule) and whether it is a FIFO or device to write into; a *RefusedError
// when it may not be replaced (see CreateOwnFile).
func target(path string, limit int64, own func([]byte) bool) (dest, error) {
	r, err := resolve(path)
	if err != nil {
		return dest{}, err
	}
	d := dest{resolved: r}
	var st fs.FileInfo
	if r.magic {
		st, err = os.Stat(r.real) // the open file the kernel's link names
	} else {
		st, err = os.Lstat(r.real)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if r.magic {
			return dest{}, err
		}
	case err != nil:
		return dest{}, err
	case st.IsDir():
		return dest{}, &RefusedError{Dir: path, Why: "is a directory; expected a file name"}
	case r.magic && st.Mode().IsRegular():
		return dest{}, &RefusedError{Dir: path, Why: "names an open file through /proc: give the file's own name (or -o - for standard output)"}
	case !st.Mode().IsRegular():
		if err := special(path, r.real, st); err != nil {
			return dest{}, err
		}
		d.special = true
	default:
		if err := mayReplace(r.real, r.dir, st); err != nil {
			return dest{}, &RefusedError{Dir: path, Why: err.Error()}
		}
		mine, err := ownFile(r.real, st.Size(), limit, own)
		if err != nil {
			return dest{}, err
		}
		if !mine {
			return dest{}, &RefusedError{Dir: path, Why: "exists and was not written by dbhost (or was changed since): refusing to overwrite it (dbhost replaces only its own unchanged output, recognised by the checksum in its " + OwnAttr + " attribute); choose another name, or move the file away"}
		}
		d.st = st
	}
	return d, nil
}

// special says whether st, not a regular file, may be written into: a
// FIFO, /dev/null or a terminal (allowedDevice). Any other device — /dev/zero,
// /dev/full, a disk, a watchdog that opening alone would arm — is refused
// without being opened.
func special(path, real string, st fs.FileInfo) error {
	m := st.Mode()
	switch {
	case m&fs.ModeNamedPipe != 0:
		return nil
	case m&fs.ModeCharDevice != 0:
		if allowedDevice(real, st) {
			return nil
		}
		return &RefusedError{Dir: path, Why: "is a character device other than /dev/null or a terminal: dbhost writes into no other device"}
	case m&fs.ModeDevice != 0:
		return &RefusedError{Dir: path, Why: "is a block device: dbhost writes into no device but /dev/null or a terminal"}
	case m&fs.ModeSocket != 0:
		return &RefusedError{Dir: path, Why: "is a socket; expected a file name"}
	}
	return &RefusedError{Dir: path, Why: "is not a regular file"}
}

// ownFile reports whether the regular file p may be replaced: empty, or
// dbhost's unchanged output (its checksum attribute, or own of its content).
func ownFile(p string, size, limit int64, own func([]byte) bool) (bool, error) {
	if size == 0 {
		return true, nil // nothing to lose (mktemp's, touch's)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if want := ownAttr(f); want != "" {
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return false, err
		}
		if hex.EncodeToString(h.Sum(nil)) == want {
			return true, nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return false, err
		}
	}
	if own == nil {
		return false, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return false, err
	}
	if int64(len(b)) > limit || len(b) == 0 {
		return len(b) == 0, nil
	}
	return own(b), nil
}
