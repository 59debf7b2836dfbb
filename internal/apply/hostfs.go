package apply

// Where apply, verify and rollback may read and write, and how.
//
// In a tree (--root) every read and write is confined to the tree
// (facts.Root.Tree: openat2 RESOLVE_IN_ROOT, or os.Root): a symlink such as
// proc/sys/vm/swappiness -> /somewhere is resolved inside the tree, never
// on the live host, and a FIFO or device node in the tree is never opened
// for writing.
//
// On the live host dbhost writes only the kinds of paths its changes are
// about, each opened beneath the directory of its kind (openat2
// RESOLVE_BENEATH: no "..", no symlink out of it):
//   - /proc/sys (sysctls) and /sys (sysfs settings, watched side effects),
//   - the cgroup mounts listed in /proc/mounts (cgroup directories and files),
//   - LimitsFile, beneath /etc/security,
//   - its own state directory (journals, lock).
// Journal entries are checked against the same kinds (checkEntry) before
// rollback writes anything for them, and before verify reads them.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/facts"
)

// errNotAllowed says a live path is of no kind dbhost writes.
var errNotAllowed = errors.New("not under /proc/sys, /sys or a cgroup mount: dbhost writes nowhere else on a host")

// under returns p relative to dir when p is dir itself or below it.
func under(p, dir string) (string, bool) {
	if p == dir {
		return ".", true
	}
	rest, ok := strings.CutPrefix(p, dir+"/")
	return rest, ok && dir != ""
}

// cleanAbs refuses a path that is not absolute and clean (no "..", ".",
// "//" or trailing "/"): journal entries and changes name kernel files by
// their canonical path.
func cleanAbs(p string) error {
	if !path.IsAbs(p) || path.Clean(p) != p || strings.Contains(p, "..") {
		return fmt.Errorf("%q is not a clean absolute path", p)
	}
	return nil
}

// CgroupMountOf returns the cgroup mount (from /proc/mounts, see
// facts.CgroupMounts) that holds p, the deepest one when mounts nest.
func CgroupMountOf(p string, mounts []string) (string, bool) {
	best := ""
	for _, m := range mounts {
		if _, ok := under(p, m); ok && len(m) > len(best) {
			best = m
		}
	}
	return best, best != ""
}

// cgroupMountPaths lists the cgroup mount points of a host's /proc/mounts.
func cgroupMountPaths(root facts.Root) []string {
	ms, err := facts.CgroupMounts(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Path)
	}
	return out
}

// liveDir opens, beneath its kind's directory, where a live path is written:
// /proc/sys, /sys, or the cgroup mount holding it (cgroupOnly: only a cgroup
// mount, for creating and removing groups). It returns the path relative to
// that directory.
func liveDir(p string, cgroupOnly bool) (*confine.Dir, string, error) {
	if err := cleanAbs(p); err != nil {
		return nil, "", &fs.PathError{Op: "write", Path: p, Err: errNotAllowed}
	}
	top, rel := "", ""
	if !cgroupOnly {
		for _, d := range []string{"/proc/sys", "/sys"} {
			if r, ok := under(p, d); ok {
				top, rel = d, r
				break
			}
		}
	}
	if top == "" {
		if m, ok := CgroupMountOf(p, cgroupMountPaths(facts.Root{Dir: "/", Live: true})); ok {
			top, rel = m, strings.TrimPrefix(strings.TrimPrefix(p, m), "/")
		}
	}
	if top == "" || rel == "." || rel == "" {
		return nil, "", &fs.PathError{Op: "write", Path: p, Err: errNotAllowed}
	}
	d, err := confine.Open(top, confine.Beneath)
	if err != nil {
		return nil, "", err
	}
	return d, rel, nil
}

// withPath names p (the host path) in a *fs.PathError from a confined call.
func withPath(err error, p string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	return err
}

// managedDir returns the directory a file dbhost manages (LimitsFile) is
// read and written under, the path relative to it, and a function to call
// when done: the tree itself, or on the live host /etc/security.
func managedDir(root facts.Root, p string) (*confine.Dir, string, func(), error) {
	if p != LimitsFile {
		return nil, "", nil, &fs.PathError{Op: "write", Path: p, Err: fmt.Errorf("not a file dbhost manages (only %s)", LimitsFile)}
	}
	if root.IsTree() {
		d, done, err := root.Tree()
		return d, p, done, err
	}
	const top = "/etc/security"
	d, err := confine.Open(top, confine.Beneath)
	if err != nil {
		return nil, "", nil, err
	}
	return d, strings.TrimPrefix(p, top+"/"), func() { d.Close() }, nil
}

// readManaged reads a managed file, at most facts.MaxFileBytes.
func readManaged(root facts.Root, p string) (string, error) {
	d, rel, done, err := managedDir(root, p)
	if err != nil {
		return "", err
	}
	defer done()
	b, err := d.ReadFile(rel, facts.MaxFileBytes)
	return string(b), withPath(err, p)
}

// writeManaged replaces a managed file durably (temporary file, fsync,
// rename, fsync of the directory), creating its directory when missing.
func writeManaged(root facts.Root, p, content string) error {
	d, rel, done, err := managedDir(root, p)
	if err != nil {
		return err
	}
	defer done()
	return withPath(d.WriteFileAtomic(rel, []byte(content), 0o644), p)
}

// removeManaged removes a managed file apply created (and the temporary
// files an interrupted write of it left), durably.
func removeManaged(root facts.Root, p string) error {
	d, rel, done, err := managedDir(root, p)
	if err != nil {
		return err
	}
	defer done()
	return withPath(d.RemoveDurably(rel), p)
}

// removeManagedTemps removes the temporary files an interrupted write of a
// managed file left beside it.
func removeManagedTemps(root facts.Root, p string) {
	if d, rel, done, err := managedDir(root, p); err == nil {
		d.RemoveTemps(rel)
		done()
	}
}

// DefaultStateDir is where journals go when --state-dir is not given:
// /var/lib/dbhost on the live host, ROOT/var/lib/dbhost in a tree. In a
// tree the directory (or the part of it that exists) must resolve inside
// the tree: a var -> /var link would put the journal, and the lock, on the
// live host.
func DefaultStateDir(root facts.Root) (string, error) {
	if !root.IsTree() {
		return "/var/lib/dbhost", nil
	}
	p := filepath.Join(root.Dir, "var", "lib", "dbhost")
	top, err := filepath.EvalSymlinks(root.Dir)
	if err != nil {
		return "", err
	}
	existing := p
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", err
	}
	if real != top && !strings.HasPrefix(real, top+string(filepath.Separator)) {
		return "", fmt.Errorf("the state directory %s leads out of the tree (%s resolves to %s): pass --state-dir", p, existing, real)
	}
	return p, nil
}

// checkEntry refuses a journal write whose paths are of no kind dbhost
// writes (a damaged or hand-edited journal naming /proc/sys/../../../x,
// /etc/passwd as a sysctl, a cgroup outside the cgroup mounts). Rollback
// writes nothing for such an entry and verify reads nothing for it.
func checkEntry(b Entry, h cpusetHierarchies) error {
	var err error
	k := change.Kind(b.Kind)
	switch {
	case b.Kind == kindFile:
		if b.Path != LimitsFile {
			err = fmt.Errorf("%q is not the file dbhost manages (%s)", b.Path, LimitsFile)
		}
	case k == change.Sysctl || k == change.Sysfs:
		err = checkPath(k, b.Path)
	case k.Cgroup():
		err = checkCgroupPath(k, b.Path, h)
	case k == change.LibvirtDomain:
		err = checkLibvirtEntry(b)
	default:
		err = fmt.Errorf("unknown kind %q", b.Kind)
	}
	if err != nil {
		return err
	}
	for _, w := range b.Watch {
		if err := checkWatchPath(w.Path); err != nil {
			return err
		}
	}
	return nil
}

// checkWatchPath refuses a watched side-effect path that is not a clean
// path under /proc/sys or /sys (the kinds apply writes with checkPath).
func checkWatchPath(p string) error {
	if checkPath(change.Sysctl, p) == nil || checkPath(change.Sysfs, p) == nil {
		return nil
	}
	return fmt.Errorf("refusing side effect %q: not a clean path under /proc/sys or /sys", p)
}
