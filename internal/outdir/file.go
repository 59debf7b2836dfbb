package outdir

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dbhost/dbhost/internal/confine"
)

// WriteOwnFile writes one file output (`dbhost report -o report.html`) the
// way -o means for a directory: a file that exists is replaced only when
// own says dbhost wrote it and nobody changed it since (own reads at most
// limit bytes of it; a larger file is not dbhost's), or when it is empty
// (mktemp's: nothing to lose); anything else is a
// *RefusedError and nothing is written. The new file is written beside the
// old one and renamed over it (a reader never sees half of it); a symlink
// is followed, so the file it names is replaced and the link kept. A
// character device or FIFO (/dev/null, /dev/stdout) is written into.
func WriteOwnFile(path string, data []byte, limit int64, own func([]byte) bool) error {
	real := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	st, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case st.IsDir():
		return &RefusedError{Dir: path, Why: "is a directory; expected a file name"}
	case st.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		f, err := os.OpenFile(real, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	case !st.Mode().IsRegular():
		return &RefusedError{Dir: path, Why: "is not a regular file"}
	default:
		old, small, err := readUpTo(real, limit)
		if err != nil {
			return err
		}
		// An empty file holds nothing to lose (mktemp's, touch's).
		if !small || (len(old) > 0 && !own(old)) {
			return &RefusedError{Dir: path, Why: "exists and was not written by dbhost (or was changed since): refusing to overwrite it (dbhost replaces only its own unchanged output); choose another name, or move the file away"}
		}
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
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
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

// readUpTo reads a file of at most limit bytes; small is false when it is larger.
func readUpTo(p string, limit int64) (b []byte, small bool, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > limit {
		return nil, false, nil
	}
	return b, true, nil
}
