package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// virt.hugepages-pool-short: the guests that want hugepages need more, on
// the host nodes their <numatune> binds them to, than the host's pool has
// there. A guest that cannot get its pages does not start.
func init() {
	Register(Rule{
		ID:       "virt.hugepages-pool-short",
		Area:     AreaVirt,
		Severity: SevCritical,
		Title:    "The host's hugepage pool (per node) is too small for the KVM guests that want it",
		Sources: []Source{
			{Doc: Seed003, Section: "Memory Tuning – huge pages in Virtual Machines",
				Quote: "The effect of hugepages are more pronounced with multiple Vms"},
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages",
				Quote: "Traditional Huge Pages always pinned"},
			{Doc: libvirtDocs + "#memory-backing", Section: "Memory Backing — hugepages page size and nodeset"},
			{Doc: libvirtDocs + "#numa-node-tuning", Section: "NUMA Node Tuning — memory mode and nodeset, memnode"},
		},
		Scope: Scope{
			Kernels: "KVM hosts with per-node hugepage pools (/sys/devices/system/node/nodeN/hugepages, Linux 2.6.32+)",
			Note:    "every defined guest that wants hugepages is counted (they may all be started); guest memory is <memory>; a guest's pages come from its <numatune> nodeset (or its <memnode> per guest cell), else from any node",
		},
		Check: checkVirtHugepagesPoolShort,
	})
}

// hpNeed is the memory guests want in pages of one size from one set of
// host nodes.
type hpNeed struct {
	sizeKB int64
	nodes  []int // sorted; every node of the host when the guest is not bound
	kb     int64
	who    []string
}

func checkVirtHugepagesPoolShort(in *Input) Outcome {
	ds, skip := in.hostGuests(false)
	if skip != nil {
		return *skip
	}
	def, ok := DefaultHugepages(in.Snap)
	if !ok {
		return CannotCheck("%s", in.Reason("memory.hugepages", "no default hugepage size in the snapshot"))
	}
	var all []int
	for _, n := range in.Snap.Topology.Nodes {
		all = append(all, n.ID)
	}
	needs := map[string]*hpNeed{}
	add := func(size int64, nodes []int, kb int64, who string) {
		if len(nodes) == 0 {
			nodes = all
		}
		k := fmt.Sprintf("%d/%s", size, List(nodes))
		n := needs[k]
		if n == nil {
			n = &hpNeed{sizeKB: size, nodes: nodes}
			needs[k] = n
		}
		n.kb += kb
		n.who = append(n.who, who)
	}
	wanting := 0
	for _, d := range ds {
		if d.MemoryBacking == nil || !d.MemoryBacking.Hugepages {
			continue
		}
		if d.MemoryKB == nil {
			return CannotCheck("domain %s wants hugepages but its definition has no <memory>", domLabel(d))
		}
		wanting++
		memNodes, _ := guestMemNodes(d)
		cellNodes := map[int][]int{}
		if d.NUMATune != nil {
			for _, m := range d.NUMATune.MemNodes {
				cellNodes[m.CellID] = m.Nodeset.IDs
			}
		}
		if d.CPU != nil && len(d.CPU.Cells) > 0 {
			for _, c := range d.CPU.Cells {
				nodes := memNodes
				if m, ok := cellNodes[c.ID]; ok {
					nodes = m
				}
				add(pageSizeFor(d, c.ID, def.SizeKB), nodes, c.MemoryKB, fmt.Sprintf("%s cell %d %s", d.Name, c.ID, KB(c.MemoryKB)))
			}
			continue
		}
		add(pageSizeFor(d, -1, def.SizeKB), memNodes, *d.MemoryKB, fmt.Sprintf("%s %s", d.Name, KB(*d.MemoryKB)))
	}
	if wanting == 0 {
		return NotApplicable("none of %d guest(s) wants hugepages (virt.hugepages-backing)", len(ds))
	}
	// For each set of nodes some guests are bound to, the guests bound
	// within it need at most what its nodes' pools hold (a guest bound to
	// node 0 and one bound to 0-1 both draw on node 0's pool).
	keys := make([]string, 0, len(needs))
	for k := range needs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var short []string
	var evidence []string
	for _, k := range keys {
		n := needs[k]
		var need int64
		var who []string
		for _, m := range needs {
			if m.sizeKB == n.sizeKB && subset(m.nodes, n.nodes) {
				need += m.kb
				who = append(who, m.who...)
			}
		}
		sort.Strings(who)
		pages, why := poolPages(in.Snap, n.sizeKB, n.nodes)
		if why != "" {
			return CannotCheck("%s", why)
		}
		needPages := (need + n.sizeKB - 1) / n.sizeKB
		line := fmt.Sprintf("node(s) %s, %s pages: guests want %d (%s), the pool holds %d", List(n.nodes), KB(n.sizeKB), needPages, strings.Join(who, ", "), pages)
		evidence = append(evidence, line)
		if needPages > pages {
			short = append(short, line)
		}
	}
	if len(short) == 0 {
		return Passed("%s", strings.Join(evidence, "; ")).Reading(strings.Join(evidence, "; "))
	}
	return Found(Finding{
		Setting:     "host hugepage pool per node (/sys/devices/system/node/nodeN/hugepages/hugepages-SIZEkB/nr_hugepages)",
		Current:     strings.Join(short, "; "),
		Recommended: "a pool on each node at least the memory of the guests bound there that want hugepages",
		Evidence:    strings.Join(evidence, "; ") + " (every defined guest counted: all may run at once)",
		Why: "003: hugepages matter more with several VMs, and traditional huge pages are always pinned: a guest whose hugepages " +
			"cannot be had on its nodes does not start (QEMU: unable to map backing store), or with numatune preferred or no " +
			"binding takes them from remote nodes.",
		Fix: Fix{Persistent: []string{
			"per node, as root: echo PAGES > /sys/devices/system/node/nodeN/hugepages/hugepages-SIZEkB/nr_hugepages (early after boot, before memory fragments), or hugepages=/hugepagesz= on the boot line for 1 GiB pages",
		}},
		Risk: "A larger pool is memory the host's own processes and page cache no longer have; pages reserved late after boot may not all be found (check nr_hugepages after writing it).",
	})
}

// pageSizeFor is the hugepage size a guest cell (or the whole guest, cell
// -1) uses: the <page> whose nodeset holds the cell, else the <page>
// without a nodeset, else the host's default size.
func pageSizeFor(d *snapshot.Domain, cell int, def int64) int64 {
	var plain int64
	for _, p := range d.MemoryBacking.Pages {
		if p.Nodeset == nil {
			plain = p.SizeKB
			continue
		}
		for _, id := range p.Nodeset.IDs {
			if id == cell {
				return p.SizeKB
			}
		}
	}
	if plain > 0 {
		return plain
	}
	if len(d.MemoryBacking.Pages) == 1 {
		return d.MemoryBacking.Pages[0].SizeKB
	}
	return def
}

// poolPages is the pages of one size the host's pools hold on nodes.
func poolPages(s *snapshot.Snapshot, sizeKB int64, nodes []int) (int64, string) {
	var total int64
	for _, id := range nodes {
		found := false
		for _, n := range s.Topology.Nodes {
			if n.ID != id {
				continue
			}
			found = true
			for _, h := range n.Hugepages {
				if h.SizeKB == sizeKB {
					total += h.Total
				}
			}
		}
		if !found {
			return 0, fmt.Sprintf("a guest is bound to host node %d, which this host does not have (nodes %s): is this the guests' host?", id, List(nodeIDs(s)))
		}
	}
	return total, ""
}

func nodeIDs(s *snapshot.Snapshot) []int {
	var ids []int
	for _, n := range s.Topology.Nodes {
		ids = append(ids, n.ID)
	}
	return ids
}

// subset: every element of a is in b (both sorted).
func subset(a, b []int) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
	}
	return true
}
