package outdir

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dbhost/dbhost/internal/confine"
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
// as it was); a symlink is followed, so the file it names is replaced and
// the link kept. A character device or FIFO (/dev/null, /dev/stdout) is
// written into.
func CreateOwnFile(path string, limit int64, own func([]byte) bool, fn func(io.Writer) error) error {
	real, device, err := target(path, limit, own)
	if err != nil {
		return err
	}
	if device {
		f, err := os.OpenFile(real, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 64<<10)
		err = fn(w)
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	dir := filepath.Dir(real)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(real)+".*"+tempSuffix)
	if err != nil {
		return err
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
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
	if err := tmp.Chmod(0o644); err != nil {
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
		return fail(err)
	}
	if err := os.Rename(name, real); err != nil {
		os.Remove(name)
		return err
	}
	return confine.SyncDir(dir)
}

// CheckOwnFile says, without writing, whether CreateOwnFile would write
// path: nil, or the *RefusedError (a file dbhost did not write, a
// directory, a directory to put it in that does not exist) or error it
// would meet first. A command that changes the host (apply, rollback)
// checks its -o FILE before the change, so that a refused output never
// comes after it.
func CheckOwnFile(path string, limit int64, own func([]byte) bool) error {
	real, device, err := target(path, limit, own)
	if err != nil || device {
		return err
	}
	if st, err := os.Stat(filepath.Dir(real)); err != nil || !st.IsDir() {
		return &RefusedError{Dir: path, Why: "cannot be created: its directory " + filepath.Dir(path) + " does not exist"}
	}
	return nil
}

// target is the file path names (a symlink followed) and whether it is a
// device or FIFO to write into; a *RefusedError when it may not be
// replaced (see CreateOwnFile).
func target(path string, limit int64, own func([]byte) bool) (real string, device bool, err error) {
	real = path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	st, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", false, err
	case st.IsDir():
		return "", false, &RefusedError{Dir: path, Why: "is a directory; expected a file name"}
	case st.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		return real, true, nil
	case !st.Mode().IsRegular():
		return "", false, &RefusedError{Dir: path, Why: "is not a regular file"}
	default:
		mine, err := ownFile(real, st.Size(), limit, own)
		if err != nil {
			return "", false, err
		}
		if !mine {
			return "", false, &RefusedError{Dir: path, Why: "exists and was not written by dbhost (or was changed since): refusing to overwrite it (dbhost replaces only its own unchanged output, recognised by the checksum in its " + OwnAttr + " attribute); choose another name, or move the file away"}
		}
	}
	return real, false, nil
}

// ownFile reports whether the regular file p may be replaced: empty, or
// dbhost's unchanged output (its checksum attribute, or own of its content).
func ownFile(p string, size, limit int64, own func([]byte) bool) (bool, error) {
	if size == 0 {
		return true, nil // nothing to lose (mktemp's, touch's)
	}
	f, err := os.Open(p)
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
