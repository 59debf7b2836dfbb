// Package outdir writes a command's directory output (`dbhost plan -o DIR`,
// `dbhost place -o DIR`) the one way -o means for a directory: dbhost writes
// only its own files, and a manifest (.dbhost-manifest) lists them with
// their checksums. A directory that holds anything else — a file dbhost did
// not write, or one of its files edited since — is refused, naming that
// file; nothing is written then. A previous output of the same command is
// replaced atomically: the new set is built in a sibling temporary
// directory and swapped in, and of the old directory only the files the
// manifest lists (unchanged) are removed. Nothing dbhost did not write is
// ever removed.
package outdir

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/confine"
)

// ManifestName is the manifest's file name inside an output directory.
const ManifestName = ".dbhost-manifest"

// File is one file of an output.
type File struct {
	Data []byte
	Mode fs.FileMode // 0: 0644
}

// Spec is one command's output.
type Spec struct {
	// Command names the writer ("dbhost plan"); a directory holding another
	// command's output is refused.
	Command string
	// Files by relative slash path ("sysctl.d/90-dbhost.conf").
	Files map[string]File
	// Legacy, when set, recognizes a file written by a dbhost before
	// manifests (its relative path and content): a directory without a
	// manifest holding only such files is a previous output too.
	Legacy func(rel string, data []byte) bool
}

// RefusedError says why a directory was not written: a file dbhost did not
// write (or changed since), or not a directory. Nothing was written.
type RefusedError struct {
	Dir  string
	File string // the file it would lose or mix with ("" when none)
	Why  string
}

func (e *RefusedError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%s: %s", e.Dir, e.Why)
	}
	return fmt.Sprintf("%s: %s %s: refusing to write there (dbhost writes only its own files and never removes another's); choose a new or empty directory, or move it away", e.Dir, e.File, e.Why)
}

// Write writes s into dir (see the package doc) and returns the relative
// paths written, sorted. A *RefusedError means nothing was written.
func Write(dir string, s Spec) ([]string, error) {
	names, err := s.names()
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	// A symlink to a directory: act on the directory, unless the link may
	// have been planted by another user in a sticky directory (resolve).
	r, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	if r.magic {
		return nil, &RefusedError{Dir: dir, Why: "names an open file through /proc; expected a directory"}
	}
	real := r.real
	st, err := os.Stat(real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
			return nil, err
		}
		tmp, err := s.build(real, names)
		if err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, real); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		return names, confine.SyncDir(filepath.Dir(real))
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, &RefusedError{Dir: dir, Why: "exists and is not a directory"}
	}
	old, err := s.previous(dir, real)
	if err != nil {
		return nil, err
	}
	if len(old) == 0 {
		// Empty: file by file, the manifest last.
		return names, s.inPlace(real, names, nil)
	}
	tmp, err := s.build(real, names)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, st.Mode().Perm()); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	aside := tmp + ".old"
	if err := os.Rename(real, aside); err != nil {
		// A mount point, or a parent we may not write: in place.
		os.RemoveAll(tmp)
		return names, s.inPlace(real, names, old)
	}
	if err := os.Rename(tmp, real); err != nil {
		_ = os.Rename(aside, real)
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := confine.SyncDir(filepath.Dir(real)); err != nil {
		return nil, err
	}
	if left := removeOwn(aside, old); len(left) > 0 {
		return names, fmt.Errorf("%s was replaced; its previous copy %s keeps %s, which appeared while dbhost wrote (not removed)", dir, aside, strings.Join(left, ", "))
	}
	return names, nil
}

// names checks the relative paths and returns them sorted.
func (s Spec) names() ([]string, error) {
	var names []string
	for n := range s.Files {
		if n == "" || path.IsAbs(n) || path.Clean(n) != n || strings.HasPrefix(n, "../") || n == ".." || n == ManifestName ||
			strings.ContainsAny(n, "\n\r\\") {
			return nil, fmt.Errorf("outdir: bad file name %q", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// entry is one file of a manifest.
type entry struct {
	sum  string
	mode fs.FileMode
}

// previous checks that every entry of the existing directory dir (real:
// its resolved path) is a file dbhost wrote and left unchanged, and
// returns them (relative path → entry); empty for an empty directory.
func (s Spec) previous(dir, real string) (map[string]entry, error) {
	own, cmd, err := readManifest(filepath.Join(real, ManifestName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		own = nil
	case err != nil:
		return nil, &RefusedError{Dir: dir, File: ManifestName, Why: "is not a manifest dbhost can read (" + err.Error() + ")"}
	case cmd != s.Command:
		return nil, &RefusedError{Dir: dir, File: ManifestName, Why: fmt.Sprintf("says the directory holds the output of %q, not of %q", cmd, s.Command)}
	}
	found := map[string]entry{}
	var refused error
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(real, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || rel == ManifestName && own != nil {
			return nil
		}
		if d.IsDir() || isTemp(d.Name()) {
			return nil
		}
		refuse := func(why string) error {
			refused = &RefusedError{Dir: dir, File: filepath.Join(dir, filepath.FromSlash(rel)), Why: why}
			return filepath.SkipAll
		}
		if !d.Type().IsRegular() {
			return refuse("is not a file dbhost wrote (not a regular file)")
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch e, listed := own[rel]; {
		case listed && e.sum != sum(b):
			return refuse("was changed since dbhost wrote it (its checksum differs from " + ManifestName + "'s)")
		case listed:
			found[rel] = e
		case own == nil && s.Legacy != nil && s.Legacy(rel, b):
			found[rel] = entry{sum: sum(b)}
		case own == nil:
			return refuse("is not a file dbhost wrote (the directory is not empty and has no " + ManifestName + ")")
		default:
			return refuse("is not a file dbhost wrote (" + ManifestName + " does not list it)")
		}
		return nil
	})
	if refused != nil {
		return nil, refused
	}
	if err != nil {
		return nil, err
	}
	return found, nil
}

// build writes the files and the manifest into a new temporary directory
// beside dir and returns it.
func (s Spec) build(dir string, names []string) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	for _, n := range names {
		if err := writeFile(filepath.Join(tmp, filepath.FromSlash(n)), s.Files[n]); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
	}
	if err := writeFile(filepath.Join(tmp, ManifestName), File{Data: s.manifest(names)}); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, confine.SyncDir(tmp)
}

// inPlace replaces the files one by one (each atomically, by rename), then
// removes the previous output's files that are not in the new set, and
// writes the manifest last.
func (s Spec) inPlace(dir string, names []string, old map[string]entry) error {
	for _, n := range names {
		if err := replaceFile(filepath.Join(dir, filepath.FromSlash(n)), s.Files[n]); err != nil {
			return err
		}
	}
	gone := map[string]entry{}
	for n, e := range old {
		if _, kept := s.Files[n]; !kept {
			gone[n] = e
		}
	}
	removeOwn(dir, gone)
	return replaceFile(filepath.Join(dir, ManifestName), File{Data: s.manifest(names)})
}

// removeOwn removes the listed files of dir whose content is still as
// listed (and the temporary files replaceFile leaves when killed), then
// the directories they leave empty (dir too); it returns what is left
// there (files it did not write).
func removeOwn(dir string, own map[string]entry) []string {
	for n, e := range own {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if b, err := os.ReadFile(p); err == nil && sum(b) == e.sum {
			os.Remove(p)
		}
	}
	if _, _, err := readManifest(filepath.Join(dir, ManifestName)); err == nil {
		os.Remove(filepath.Join(dir, ManifestName))
	}
	var dirs, left []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		switch {
		case d.IsDir():
			dirs = append(dirs, p)
		case isTemp(d.Name()) && d.Type().IsRegular():
			os.Remove(p) // left by a killed replaceFile
		default:
			left = append(left, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // only when empty
	}
	return left
}

const manifestHead = "# dbhost output manifest: the files %q wrote in this directory, with their SHA-256.\n" +
	"# dbhost replaces or removes only these, and only while unchanged; it writes into no directory holding other files.\n"

// manifest lists the files: "command CMD", then "SHA256 MODE PATH" lines.
func (s Spec) manifest(names []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, manifestHead, s.Command)
	fmt.Fprintf(&b, "command %s\n", s.Command)
	for _, n := range names {
		f := s.Files[n]
		fmt.Fprintf(&b, "%s %04o %s\n", sum(f.Data), mode(f), n)
	}
	return []byte(b.String())
}

// readManifest parses a manifest.
func readManifest(p string) (map[string]entry, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	own := map[string]entry{}
	cmd := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if c, ok := strings.CutPrefix(line, "command "); ok && cmd == "" {
			cmd = c
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) != 3 || len(f[0]) != 64 || f[2] == "" {
			return nil, "", fmt.Errorf("line %d: expected \"SHA256 MODE PATH\"", n)
		}
		m, err := strconv.ParseUint(f[1], 8, 32)
		if err != nil {
			return nil, "", fmt.Errorf("line %d: mode %q is not octal", n, f[1])
		}
		own[f[2]] = entry{sum: f[0], mode: fs.FileMode(m)}
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	if cmd == "" {
		return nil, "", errors.New(`no "command" line`)
	}
	return own, cmd, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func mode(f File) fs.FileMode {
	if f.Mode == 0 {
		return 0o644
	}
	return f.Mode.Perm()
}

// writeFile creates a new file (and its directory) and fsyncs it.
func writeFile(p string, f File) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode(f))
	if err != nil {
		return err
	}
	if _, err := w.Write(f.Data); err != nil {
		w.Close()
		return err
	}
	if err := w.Chmod(mode(f)); err != nil {
		w.Close()
		return err
	}
	if err := w.Sync(); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// isTemp reports a temporary file replaceFile leaves when it is killed.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix)
}

const tempSuffix = ".dbhost-tmp"

// replaceFile replaces p atomically: a temporary file beside it, renamed.
func replaceFile(p string, f File) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+tempSuffix)
	os.Remove(tmp)
	if err := writeFile(tmp, f); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return confine.SyncDir(filepath.Dir(p))
}
