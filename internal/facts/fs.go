// Package facts reads host facts from a filesystem root (the live "/", a
// captured tree, or an unpacked sosreport) into a snapshot.Snapshot.
//
// Layout: one file per kernel source. Each source has a pure parser
// (parseX(io.Reader) or parseX(string)), fuzzed and tested against fixtures,
// and a reader (readX(c *Collector)) that does the I/O and records every
// fact it could not read in the snapshot's Absent list with the reason.
package facts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Root is a filesystem root that host paths ("/proc/meminfo") are read under.
//
// Every read under a tree (a --root directory or an unpacked sosreport) is
// confined to it (internal/confine): a ".." or a symlink, relative or
// absolute, never leads out of the tree to the live host's files, and a
// FIFO, device node or socket in the tree is never opened for reading. The
// live host ("/") is read directly.
type Root struct {
	Dir  string // "/" for the live host
	Live bool   // true only for the running host: commands/ioctls allowed
	// Sos is true for an unpacked sosreport: sos_commands/* may stand in for
	// missing file copies.
	Sos bool
	// dir is the tree held open by Open; nil: the live host, or a tree
	// opened for each read (slower, same confinement).
	dir *confine.Dir
}

// Open returns r holding its tree open, so that every read resolves
// relative to one descriptor; Close releases it. The live host needs no
// opening: Open returns it unchanged.
func (r Root) Open() (Root, error) {
	if r.plain() || r.dir != nil {
		return r, nil
	}
	d, err := confine.Open(r.Dir, confine.InRoot)
	if err != nil {
		return r, err
	}
	r.dir = d
	return r, nil
}

// Close releases what Open holds.
func (r Root) Close() error {
	if r.dir != nil {
		return r.dir.Close()
	}
	return nil
}

// plain reports whether host paths are read as they are (the live host, or
// "/" itself given as a tree): nothing to confine them to.
func (r Root) plain() bool { return r.Dir == "" || r.Dir == "/" }

// IsTree reports whether r is a tree (a --root directory or an unpacked
// sosreport) rather than the live host.
func (r Root) IsTree() bool { return !r.plain() }

// Tree returns the confined tree, for writers (apply) that must stay in it
// too, and a function to call when done with it. It fails for the live host.
func (r Root) Tree() (*confine.Dir, func(), error) {
	if r.plain() {
		return nil, nil, errors.New("the live host is not a tree")
	}
	return r.tree()
}

// tree returns the confined tree to read under and a function to call when
// done with it.
func (r Root) tree() (*confine.Dir, func(), error) {
	if r.dir != nil {
		return r.dir, func() {}, nil
	}
	d, err := confine.Open(r.Dir, confine.InRoot)
	if err != nil {
		return nil, nil, err
	}
	return d, func() { d.Close() }, nil
}

// Path maps a host path to a path under the root, for messages and for the
// live host. Reads under a tree go through Root's methods, which confine them.
func (r Root) Path(p string) string {
	if r.plain() {
		return p
	}
	return filepath.Join(r.Dir, p)
}

// ReadFile reads a whole host file under the root (any kind, including
// seq_file /proc files of many records), at most MaxFileBytes.
func (r Root) ReadFile(p string) ([]byte, error) { return r.readRaw(p, nil, true, 0) }

// ReadString reads a one-value host file (sysfs attribute, /proc/sys value,
// regular file) and trims surrounding whitespace.
func (r Root) ReadString(p string) (string, error) { return r.ReadAttr(p) }

// ReadDirNames lists a directory's entry names, sorted.
func (r Root) ReadDirNames(p string) ([]string, error) {
	var names []string
	if r.plain() {
		ents, err := os.ReadDir(r.Path(p))
		if err != nil {
			return nil, err
		}
		names = make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
	} else {
		d, done, err := r.tree()
		if err != nil {
			return nil, err
		}
		defer done()
		if names, err = d.ReadDirNames(p); err != nil {
			return nil, err
		}
	}
	sort.Strings(names)
	return names, nil
}

// ReadDir lists a directory's entries, sorted by name; a symlink entry is
// reported as a symlink, not followed.
func (r Root) ReadDir(p string) ([]fs.DirEntry, error) {
	if r.plain() {
		return os.ReadDir(r.Path(p))
	}
	d, done, err := r.tree()
	if err != nil {
		return nil, err
	}
	defer done()
	ents, err := d.ReadDir(p)
	if err != nil {
		return nil, err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// Stat returns a host file's information (a symlink followed, inside the tree).
func (r Root) Stat(p string) (fs.FileInfo, error) {
	if r.plain() {
		return os.Stat(r.Path(p))
	}
	d, done, err := r.tree()
	if err != nil {
		return nil, err
	}
	defer done()
	return d.Stat(p)
}

// Lstat returns a host file's information, a final symlink not followed.
func (r Root) Lstat(p string) (fs.FileInfo, error) {
	if r.plain() {
		return os.Lstat(r.Path(p))
	}
	d, done, err := r.tree()
	if err != nil {
		return nil, err
	}
	defer done()
	return d.Lstat(p)
}

// Exists reports whether a host path exists under the root.
func (r Root) Exists(p string) bool {
	_, err := r.Stat(p)
	return err == nil
}

// Readlink returns a symlink's target as stored (not followed).
func (r Root) Readlink(p string) (string, error) {
	if r.plain() {
		return os.Readlink(r.Path(p))
	}
	d, done, err := r.tree()
	if err != nil {
		return "", err
	}
	defer done()
	return d.Readlink(p)
}

// LinkBase returns the base name of a symlink's target (e.g. a driver name).
func (r Root) LinkBase(p string) (string, error) {
	t, err := r.Readlink(p)
	if err != nil {
		return "", err
	}
	return filepath.Base(t), nil
}

// permissionReason says why a read was denied: not root, or, as root, what
// still denies it (root in a container's user namespace, a security module,
// or another process's /proc files under ptrace access rules: Yama's
// ptrace_scope, a process in another user namespace or not dumpable).
// Telling root to run as root helps nobody.
func permissionReason(root bool) string { return deniedReason("permission denied", "it", root) }

// runningAsRoot: dbhost runs with effective uid 0.
func runningAsRoot() bool { return os.Geteuid() == 0 }

// deniedReason completes "permission denied" (or "permission denied for N
// files") with why: "(run as root to read it|them)" when not root.
func deniedReason(what, it string, root bool) string {
	if root {
		return what + " even to root (a container's user namespace, a security module, or ptrace access rules for another process's /proc files)"
	}
	return what + " (run as root to read " + it + ")"
}

// Reason turns a read error into the human reason kept in Absent.
func Reason(err error) string {
	var pe *ParseError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, fs.ErrNotExist):
		return "not present on this host"
	case errors.Is(err, fs.ErrPermission):
		return permissionReason(runningAsRoot())
	case errors.As(err, &pe):
		return "malformed: " + pe.Error()
	case errors.Is(err, confine.ErrEscape):
		return "refused: the path leads out of the tree (a symlink or ..)"
	case errors.Is(err, confine.ErrNotRegular):
		return "refused: not a regular file (a FIFO, device or socket in a tree is never read)"
	}
	var big *confine.TooBigError
	if errors.As(err, &big) {
		return "refused: " + big.Error()
	}
	// Strip the path that os errors repeat; the path is kept separately.
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Op + ": " + pathErr.Err.Error()
	}
	return err.Error()
}

// ParseError says which line of which input was not understood.
type ParseError struct {
	Line int    // 1-based; 0 when not line-oriented
	Msg  string // what was expected
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func parseErr(line int, format string, a ...any) error {
	return &ParseError{Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Collector carries the root and the snapshot being filled.
type Collector struct {
	Root Root
	Snap *snapshot.Snapshot
	mu   sync.Mutex
	// libvirt is set when the guests were asked for (Options.Libvirt).
	libvirt *libvirtAsk
}

// Absent records that a fact could not be read. path is the host path tried.
func (c *Collector) Absent(fact, path string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Snap.Absent = append(c.Snap.Absent, snapshot.Absence{Fact: fact, Path: path, Reason: Reason(err)})
}

// AbsentReason records an absence with a free-text reason.
func (c *Collector) AbsentReason(fact, path, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Snap.Absent = append(c.Snap.Absent, snapshot.Absence{Fact: fact, Path: path, Reason: reason})
}

// Int reads a host file holding one integer. On failure it records the
// absence under fact and returns nil.
func (c *Collector) Int(fact, path string) *int64 {
	v, err := c.readInt(path)
	if err != nil {
		c.Absent(fact, path, err)
		return nil
	}
	return &v
}

// IntQuiet reads an integer file; nil (and no absence) when it cannot.
func (c *Collector) IntQuiet(path string) *int64 {
	v, err := c.readInt(path)
	if err != nil {
		return nil
	}
	return &v
}

func (c *Collector) readInt(path string) (int64, error) {
	s, err := c.Root.ReadString(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, parseErr(1, "expected an integer, got %q", trunc(s, 40))
	}
	return v, nil
}

// String reads a host file holding one line of text; nil and an absence on failure.
func (c *Collector) String(fact, path string) *string {
	s, err := c.Root.ReadString(path)
	if err != nil {
		c.Absent(fact, path, err)
		return nil
	}
	return &s
}

// StringQuiet reads a one-line file, "" when it cannot.
func (c *Collector) StringQuiet(path string) string {
	s, _ := c.Root.ReadString(path)
	return s
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Bracketed parses kernel "choice" files such as "always [madvise] never" or
// "mq-deadline kyber [bfq] none": it returns the selected word and all words.
// ok is false when no word is bracketed.
func Bracketed(s string) (selected string, all []string, ok bool) {
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") && len(f) > 2 {
			f = f[1 : len(f)-1]
			selected, ok = f, true
		}
		all = append(all, f)
	}
	return selected, all, ok
}
