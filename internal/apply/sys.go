// Package apply carries out a plan's runtime changes on a host (the live
// kernel, or a writable --root tree), with a crash-safe journal: every write
// is announced (old value, new value) and fsync'ed before it is made, read
// back after it, and the values the kernel changes on its own are journaled
// too, so that Rollback restores every touched value after a failure, a
// kill -9 or a power loss at any point. Verify compares live values with the
// applied ones and names the likely cause of a drift. See docs/apply.md.
package apply

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/facts"
)

// Sys reads and writes the host's kernel files (/proc/sys, /sys) by host path.
type Sys interface {
	// Read returns a file's whole content as the kernel prints it.
	Read(path string) (string, error)
	// Write writes value as `echo value > path` would. It never creates a file.
	Write(path, value string) error
	// List returns a directory's entry names, sorted.
	List(dir string) ([]string, error)
}

// LiveSys writes the running kernel's files: only under /proc/sys, /sys and
// the cgroup mounts, each opened beneath its directory (see hostfs.go).
type LiveSys struct{}

// live is the running host read as it is.
var live = facts.Root{Dir: "/", Live: true}

// Read implements Sys (at most facts.MaxFileBytes).
func (LiveSys) Read(p string) (string, error) {
	b, err := live.ReadFile(p)
	return string(b), err
}

// List implements Sys.
func (LiveSys) List(dir string) ([]string, error) { return live.ReadDirNames(dir) }

// Write implements Sys.
func (LiveSys) Write(p, value string) error {
	d, rel, err := liveDir(p, false)
	if err != nil {
		return err
	}
	defer d.Close()
	return withPath(d.WriteExisting(rel, []byte(value)), p)
}

// TreeSys writes the files of a captured tree (regular files standing in for
// sysfs and /proc/sys) the way the kernel would show them afterwards: writing
// "mq-deadline" to a choice file "[none] mq-deadline" selects it
// ("none [mq-deadline]"), a word the file does not offer is refused with
// EINVAL, and a file's trailing newline is kept.
//
// With Kernel set, it also plays the kernel's own reactions to each write
// (internal/kernelsim: the tests, and dbhost built with -tags testhooks).
type TreeSys struct {
	Root   facts.Root
	Kernel Reactions
}

// Reactions are the changes a kernel makes on its own after a write, played
// in a tree (internal/kernelsim is the one implementation).
type Reactions interface {
	// Keeps reports what p holds after a write when the kernel keeps
	// something else than what was written.
	Keeps(p string) (kept string, ok bool)
	// After plays the kernel's reactions to p's change from old to now
	// (whole file contents).
	After(p, old, now string)
}

// Read implements Sys (confined to the tree, at most facts.MaxFileBytes).
func (t TreeSys) Read(p string) (string, error) {
	d, done, err := t.Root.Tree()
	if err != nil {
		return "", err
	}
	defer done()
	b, err := d.ReadFile(p, facts.MaxFileBytes)
	return string(b), err
}

// List implements Sys.
func (t TreeSys) List(dir string) ([]string, error) { return t.Root.ReadDirNames(dir) }

// Write implements Sys.
func (t TreeSys) Write(p, value string) error {
	old, err := t.Read(p)
	if err != nil {
		return err
	}
	content, err := TreeContent(old, value)
	if err != nil {
		return &fs.PathError{Op: "write", Path: p, Err: err}
	}
	if t.Kernel != nil {
		if keep, ok := t.Kernel.Keeps(p); ok {
			content, _ = TreeContent(old, keep)
		}
	}
	if err := t.put(p, content); err != nil {
		return err
	}
	if t.Kernel != nil {
		t.Kernel.After(p, old, content)
	}
	return nil
}

// WriteRaw puts back a file's exact former content (rollback: the old
// bytes the journal recorded, trailing newline included), with the
// kernel's reactions played as for Write.
func (t TreeSys) WriteRaw(p, content string) error {
	old, err := t.Read(p)
	if err != nil {
		return err
	}
	if t.Kernel != nil {
		if keep, ok := t.Kernel.Keeps(p); ok {
			content, _ = TreeContent(content, keep)
		}
	}
	if err := t.put(p, content); err != nil {
		return err
	}
	if t.Kernel != nil {
		t.Kernel.After(p, old, content)
	}
	return nil
}

// rawWriter is a Sys whose files hold exactly what was written (a tree):
// rollback restores the journal's old bytes through it, not a value.
type rawWriter interface {
	WriteRaw(p, content string) error
	// RemoveTemps removes the temporary files a write killed before its
	// rename left beside p.
	RemoveTemps(p string)
}

// RemoveTemps implements rawWriter.
func (t TreeSys) RemoveTemps(p string) {
	if d, done, err := t.Root.Tree(); err == nil {
		d.RemoveTemps(p)
		done()
	}
}

// put replaces a regular file's content in the tree without creating it,
// through a temporary file renamed over it (confine.ReplaceExisting): the
// other names of a hard-linked file keep their bytes, and a crash leaves
// the old content or the new, never an emptied file.
func (t TreeSys) put(p, content string) error {
	d, done, err := t.Root.Tree()
	if err != nil {
		return err
	}
	defer done()
	return d.ReplaceExisting(p, []byte(content))
}

// TreeContent is the content a kernel file shows after value is written to
// a file that showed old: choice files move the brackets (EINVAL for a word
// not offered), others hold value, with old's trailing newline kept.
func TreeContent(old, value string) (string, error) {
	nl := ""
	if strings.HasSuffix(old, "\n") {
		nl = "\n"
	}
	value = strings.TrimSpace(value)
	if _, all, ok := facts.Bracketed(old); ok {
		found := false
		for i, w := range all {
			if w == value {
				all[i] = "[" + w + "]"
				found = true
			}
		}
		if !found {
			return "", syscall.EINVAL
		}
		return strings.Join(all, " ") + nl, nil
	}
	return value + nl, nil
}

// Value is the value a kernel file shows, in the form compared and written
// back: the selected word of a choice file, else the content with runs of
// whitespace collapsed.
func Value(raw string) string {
	if sel, _, ok := facts.Bracketed(raw); ok {
		return sel
	}
	return strings.Join(strings.Fields(raw), " ")
}

// Same reports whether two values of the file at p are the same setting:
// equal Values, or, for cpuset lists (cpuset.cpus, cpuset.mems and their
// effective forms), the same set of ids however written ("0-1" = "0,1").
func Same(p, a, b string) bool {
	va, vb := Value(a), Value(b)
	if va == vb {
		return true
	}
	if isCpusetList(p) {
		la, ea := cpulist.Parse(va)
		lb, eb := cpulist.Parse(vb)
		return ea == nil && eb == nil && cpulist.Format(la) == cpulist.Format(lb)
	}
	return false
}

func isCpusetList(p string) bool {
	switch path.Base(p) {
	case "cpuset.cpus", "cpuset.mems", "cpuset.cpus.effective", "cpuset.mems.effective",
		"cpuset.effective_cpus", "cpuset.effective_mems":
		return true
	}
	return false
}

// effectivePaths are the files that show what the kernel really uses for a
// cpuset list (v2 cpuset.mems.effective, v1 cpuset.effective_mems); none
// for other files.
func effectivePaths(p string) []string {
	dir, base := path.Split(p)
	switch base {
	case "cpuset.cpus", "cpuset.mems":
		return []string{p + ".effective", dir + "cpuset.effective_" + strings.TrimPrefix(base, "cpuset.")}
	}
	return nil
}

// restoreValue is what to write to bring a file back to raw: the selected
// word of a choice file, else the content trimmed (inner tabs kept).
func restoreValue(raw string) string {
	if sel, _, ok := facts.Bracketed(raw); ok {
		return sel
	}
	return strings.TrimSpace(raw)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
