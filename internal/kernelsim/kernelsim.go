// Package kernelsim plays, in a fixture tree, the changes the kernel makes on
// its own after a write, the ones apply's journal must catch: a block
// queue's scheduler change resets its nr_requests, a THP mode change
// recomputes vm.min_free_kbytes, a hugepage pool write on a node without
// memory keeps 0, and per-node and global hugepage pools stay summed.
//
// It is a test double: apply.TreeSys uses it when its Kernel field is set
// (the tests of internal/apply and internal/plan, and dbhost built with
// -tags testhooks under DBHOST_TEST_SIMULATE=1). A plain dbhost build does
// not import it. What it plays is checked against a real kernel in the QEMU
// lab (internal/lab's apply scenarios).
package kernelsim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/facts"
)

// Kernel plays the reactions in the tree Root. It implements apply.Reactions.
type Kernel struct{ Root facts.Root }

// New returns the reactions of a kernel for the tree root.
func New(root facts.Root) *Kernel { return &Kernel{Root: root} }

// Keeps reports what p holds after a write when the kernel keeps something
// else than what was written: a node's hugepage pool on a node whose meminfo
// shows MemTotal 0 keeps 0.
func (k *Kernel) Keeps(p string) (string, bool) {
	node, _, ok := facts.HugepagePool(p)
	if !ok || node < 0 {
		return "", false
	}
	return "0", k.memoryless(node)
}

// After plays the kernel's reactions to p's change from old to now (whole
// file contents).
func (k *Kernel) After(p, old, now string) {
	if old == now {
		return
	}
	switch {
	case strings.HasPrefix(p, "/sys/block/") && strings.HasSuffix(p, "/queue/scheduler"):
		sel, _, _ := facts.Bracketed(now)
		v := "256"
		if sel == "none" {
			v = "64"
		}
		k.set(strings.TrimSuffix(p, "scheduler")+"nr_requests", v)
	case p == "/sys/kernel/mm/transparent_hugepage/enabled":
		sel, _, _ := facts.Bracketed(now)
		v := "67584"
		if sel == "never" {
			v = "45056"
		}
		k.set("/proc/sys/vm/min_free_kbytes", v)
	default:
		node, size, ok := facts.HugepagePool(p)
		if !ok {
			return
		}
		if node < 0 {
			k.spread(size, strings.TrimSpace(now))
		}
		k.sum(size)
	}
}

// memoryless reports that node's meminfo shows no memory.
func (k *Kernel) memoryless(node int) bool {
	mi, err := k.Root.ReadFile(fmt.Sprintf("/sys/devices/system/node/node%d/meminfo", node))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(mi), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "MemTotal:" {
			return f[3] == "0"
		}
	}
	return false
}

// set writes a number to an existing file of the tree, keeping its trailing
// newline, as the kernel shows it; a file the tree lacks is left alone.
func (k *Kernel) set(p, v string) {
	old, err := k.Root.ReadFile(p)
	if err != nil {
		return
	}
	if strings.HasSuffix(string(old), "\n") {
		v += "\n"
	}
	d, done, err := k.Root.Tree()
	if err != nil {
		return
	}
	defer done()
	_ = d.ReplaceExisting(p, []byte(v))
}

// nodePools lists the node pools of a hugepage size that exist in the tree,
// with their node numbers.
func (k *Kernel) nodePools(size string) (paths []string, nodes []int) {
	names, _ := k.Root.ReadDirNames("/sys/devices/system/node")
	for _, n := range names {
		p := "/sys/devices/system/node/" + n + "/hugepages/hugepages-" + size + "/nr_hugepages"
		if node, _, ok := facts.HugepagePool(p); ok && node >= 0 && k.Root.Exists(p) {
			paths, nodes = append(paths, p), append(nodes, node)
		}
	}
	return paths, nodes
}

// sum sets the global pools of a size to the sum of the node pools.
func (k *Kernel) sum(size string) {
	paths, _ := k.nodePools(size)
	var sum int64
	for _, p := range paths {
		b, err := k.Root.ReadFile(p)
		if err != nil {
			return
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		sum += v
	}
	k.set("/sys/kernel/mm/hugepages/hugepages-"+size+"/nr_hugepages", strconv.FormatInt(sum, 10))
	if size == "2048kB" {
		k.set("/proc/sys/vm/nr_hugepages", strconv.FormatInt(sum, 10))
	}
}

// spread spreads a global pool over the nodes with memory, as the kernel's
// round-robin allocation does; nodes without memory get 0.
func (k *Kernel) spread(size, total string) {
	n, err := strconv.ParseInt(total, 10, 64)
	if err != nil || n < 0 {
		return
	}
	paths, nodes := k.nodePools(size)
	var mem []string
	for i, p := range paths {
		if k.memoryless(nodes[i]) {
			k.set(p, "0")
		} else {
			mem = append(mem, p)
		}
	}
	for i, p := range mem {
		share := n / int64(len(mem))
		if int64(i) < n%int64(len(mem)) {
			share++
		}
		k.set(p, strconv.FormatInt(share, 10))
	}
}
