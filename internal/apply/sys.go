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
	"fmt"
	"io/fs"
	"path"
	"strconv"
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
// With Simulate, it also plays the kernel's own reactions that the journal
// must catch (used by tests and by dbhost only under DBHOST_TEST_SIMULATE=1):
// a block queue's scheduler change resets its nr_requests, a THP mode change
// recomputes vm.min_free_kbytes, a hugepage pool write on a node without
// memory keeps 0, and per-node and global hugepage pools stay summed.
type TreeSys struct {
	Root     facts.Root
	Simulate bool
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
	if t.Simulate {
		if keep, ok := t.memorylessPool(p); ok {
			content, _ = TreeContent(old, keep)
		}
	}
	if err := t.put(p, content); err != nil {
		return err
	}
	if t.Simulate {
		t.react(p, old, content)
	}
	return nil
}

// put replaces a regular file's content in the tree without creating it.
func (t TreeSys) put(p, content string) error {
	d, done, err := t.Root.Tree()
	if err != nil {
		return err
	}
	defer done()
	return d.WriteExisting(p, []byte(content))
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

// memorylessPool reports that p is a node's hugepage pool on a node whose
// meminfo shows no memory: the kernel accepts the write and keeps 0.
func (t TreeSys) memorylessPool(p string) (string, bool) {
	node, _, ok := nodePool(p)
	if !ok {
		return "", false
	}
	mi, err := t.Read(fmt.Sprintf("/sys/devices/system/node/node%d/meminfo", node))
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(mi, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "MemTotal:" {
			return "0", f[3] == "0"
		}
	}
	return "", false
}

// react plays the kernel's side effects of a write that changed old → content.
func (t TreeSys) react(p, old, content string) {
	if old == content {
		return
	}
	switch {
	case strings.HasPrefix(p, "/sys/block/") && strings.HasSuffix(p, "/queue/scheduler"):
		nr := strings.TrimSuffix(p, "scheduler") + "nr_requests"
		sel, _, _ := facts.Bracketed(content)
		v := "256"
		if sel == "none" {
			v = "64"
		}
		if cur, err := t.Read(nr); err == nil {
			c, _ := TreeContent(cur, v)
			_ = t.put(nr, c)
		}
	case p == "/sys/kernel/mm/transparent_hugepage/enabled":
		sel, _, _ := facts.Bracketed(content)
		v := "67584"
		if sel == "never" {
			v = "45056"
		}
		if cur, err := t.Read("/proc/sys/vm/min_free_kbytes"); err == nil {
			c, _ := TreeContent(cur, v)
			_ = t.put("/proc/sys/vm/min_free_kbytes", c)
		}
	default:
		if _, size, ok := nodePool(p); ok {
			t.sumPools(size)
		} else if size, ok := globalPool(p); ok {
			t.spreadPool(size, strings.TrimSpace(content))
			t.sumPools(size)
		}
	}
}

// nodePools lists the node pools of a hugepage size that exist in the tree.
func (t TreeSys) nodePools(size string) []string {
	names, _ := t.List("/sys/devices/system/node")
	var out []string
	for _, n := range names {
		if _, err := strconv.Atoi(strings.TrimPrefix(n, "node")); err != nil || !strings.HasPrefix(n, "node") {
			continue
		}
		p := "/sys/devices/system/node/" + n + "/hugepages/hugepages-" + size + "/nr_hugepages"
		if t.Root.Exists(p) {
			out = append(out, p)
		}
	}
	return out
}

// sumPools sets the global pool of a size to the sum of the node pools.
func (t TreeSys) sumPools(size string) {
	var sum int64
	for _, n := range t.nodePools(size) {
		b, err := t.Read(n)
		if err != nil {
			return
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		sum += v
	}
	gs := []string{"/sys/kernel/mm/hugepages/hugepages-" + size + "/nr_hugepages"}
	if size == "2048kB" {
		gs = append(gs, "/proc/sys/vm/nr_hugepages")
	}
	for _, g := range gs {
		if cur, err := t.Read(g); err == nil {
			c, _ := TreeContent(cur, strconv.FormatInt(sum, 10))
			_ = t.put(g, c)
		}
	}
}

// spreadPool spreads a global pool over the nodes with memory, as the kernel's
// round-robin allocation does.
func (t TreeSys) spreadPool(size, total string) {
	n, err := strconv.ParseInt(total, 10, 64)
	if err != nil || n < 0 {
		return
	}
	var mem []string
	for _, rel := range t.nodePools(size) {
		if _, ok := t.memorylessPool(rel); !ok {
			mem = append(mem, rel)
		} else if cur, err := t.Read(rel); err == nil {
			c, _ := TreeContent(cur, "0")
			_ = t.put(rel, c)
		}
	}
	for i, rel := range mem {
		share := n / int64(len(mem))
		if int64(i) < n%int64(len(mem)) {
			share++
		}
		if cur, err := t.Read(rel); err == nil {
			c, _ := TreeContent(cur, strconv.FormatInt(share, 10))
			_ = t.put(rel, c)
		}
	}
}

// nodePool parses /sys/devices/system/node/nodeN/hugepages/hugepages-SIZE/nr_hugepages.
func nodePool(p string) (node int, size string, ok bool) {
	rest, found := strings.CutPrefix(p, "/sys/devices/system/node/node")
	if !found {
		return 0, "", false
	}
	num, rest, found := strings.Cut(rest, "/hugepages/hugepages-")
	if !found {
		return 0, "", false
	}
	size, found = strings.CutSuffix(rest, "/nr_hugepages")
	if !found || strings.Contains(size, "/") {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, size, true
}

// globalPool parses /sys/kernel/mm/hugepages/hugepages-SIZE/nr_hugepages
// (and /proc/sys/vm/nr_hugepages, the default 2048kB size).
func globalPool(p string) (size string, ok bool) {
	if p == "/proc/sys/vm/nr_hugepages" {
		return "2048kB", true
	}
	rest, found := strings.CutPrefix(p, "/sys/kernel/mm/hugepages/hugepages-")
	if !found {
		return "", false
	}
	size, found = strings.CutSuffix(rest, "/nr_hugepages")
	return size, found && !strings.Contains(size, "/")
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
