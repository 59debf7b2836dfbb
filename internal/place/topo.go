package place

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// core is one physical core's online CPUs (SMT siblings together).
type core struct {
	cpus  []int
	taken bool
}

// tnode is one NUMA node as the planner sees it.
type tnode struct {
	id     int
	cores  []core
	hasMem bool
	// pool is the free pages of the chosen size already in the pool; grow is
	// how many more pages the node's MemFree could add; avail = pool + grow
	// minus what earlier instances took.
	pool, grow, avail int64
	total             int64 // nr_hugepages of the chosen size now
	memFreeKnown      bool
}

func (n *tnode) freeCPUs() int {
	c := 0
	for _, k := range n.cores {
		if !k.taken {
			c += len(k.cpus)
		}
	}
	return c
}

// topo is the host as the planner sees it.
type topo struct {
	nodes    []*tnode
	dist     [][]int // by node index
	slit     bool    // false when distances were not known (10 local, 20 remote assumed)
	threads  int
	sizeKB   int64
	notes    []string
	nicNodes map[string]int // interface name → node
	nics     []snapshot.Interface
}

// masterOf is the bond (or other master) an interface is enslaved to, "" when none.
func (t *topo) masterOf(name string) string {
	for _, ifc := range t.nics {
		if ifc.Name == name {
			return ifc.Master
		}
	}
	return ""
}

// nic is the snapshot's interface of that name.
func (t *topo) nic(name string) (snapshot.Interface, bool) {
	for _, ifc := range t.nics {
		if ifc.Name == name {
			return ifc, true
		}
	}
	return snapshot.Interface{}, false
}

func (t *topo) index(id int) int {
	for i, n := range t.nodes {
		if n.id == id {
			return i
		}
	}
	return -1
}

// newTopo builds the planner's view of snap for hugepages of sizeKB (0: the
// host's default size). It fails when the snapshot has no usable CPU topology.
func newTopo(snap *snapshot.Snapshot, sizeKB int64, needPages bool) (*topo, error) {
	t := &topo{nicNodes: map[string]int{}}
	size, err := chooseSize(snap, sizeKB, needPages)
	if err != nil {
		return nil, err
	}
	t.sizeKB = size
	online := map[int]snapshot.CPU{}
	for _, c := range snap.Topology.CPUs {
		if c.Online {
			online[c.ID] = c
		}
	}
	if len(online) == 0 {
		for _, id := range snap.Topology.CPUsOnline {
			online[id] = snapshot.CPU{ID: id, Online: true, Node: -1, Siblings: []int{id}}
		}
	}
	if len(online) == 0 {
		return nil, fmt.Errorf("the snapshot has no online CPUs (topology.cpus absent): cannot place anything")
	}
	t.threads = len(online)
	snodes := snap.Topology.Nodes
	if len(snodes) == 0 {
		// No NUMA information: one node holding every CPU and the global pool.
		all := make([]int, 0, len(online))
		for id := range online {
			all = append(all, id)
		}
		sort.Ints(all)
		n := snapshot.Node{ID: 0, HasCPU: true, HasMemory: true, CPUs: all, Distances: []int{10}}
		if v, ok := snap.Memory.Meminfo["MemFree"]; ok {
			n.MemFreeKB = &v
		}
		for _, h := range snap.Memory.Hugepages {
			n.Hugepages = append(n.Hugepages, snapshot.NodeHugepages{SizeKB: h.SizeKB, Total: h.Total, Free: h.Free, Surplus: h.Surplus})
		}
		snodes = []snapshot.Node{n}
		t.notes = append(t.notes, "the host shows no NUMA nodes: planned as one node")
		for i := range online {
			c := online[i]
			c.Node = 0
			online[i] = c
		}
	}
	for _, sn := range snodes {
		n := &tnode{id: sn.ID, hasMem: sn.HasMemory}
		if sn.MemTotalKB != nil && *sn.MemTotalKB == 0 {
			n.hasMem = false
		}
		if n.hasMem && !sn.DatabaseLocal() {
			// GPU, NVM, HBM or far-tier memory, or memory no file names:
			// never bound to, interleaved over or counted for a database.
			n.hasMem = false
			t.notes = append(t.notes, fmt.Sprintf("node %d: its memory is %s, not a database's (%s): no instance is bound to it",
				sn.ID, nodeKindText(sn.Kind), strings.Join(sn.KindEvidence, "; ")))
		}
		in := map[int]bool{}
		for _, id := range sn.CPUs {
			if _, ok := online[id]; ok {
				in[id] = true
			}
		}
		done := map[int]bool{}
		for _, id := range sn.CPUs {
			if !in[id] || done[id] {
				continue
			}
			k := core{}
			sib := online[id].Siblings
			if len(sib) == 0 {
				sib = []int{id}
			}
			for _, s := range sib {
				if in[s] && !done[s] {
					k.cpus = append(k.cpus, s)
					done[s] = true
				}
			}
			if !done[id] {
				k.cpus = append(k.cpus, id)
				done[id] = true
			}
			sort.Ints(k.cpus)
			n.cores = append(n.cores, k)
		}
		// Performance cores first on a hybrid CPU (hybrid.go): take
		// gives the instances the cores in this order.
		sort.Slice(n.cores, func(i, j int) bool {
			ri, rj := coreRank(snap, n.cores[i]), coreRank(snap, n.cores[j])
			if ri != rj {
				return ri < rj
			}
			return n.cores[i].cpus[0] < n.cores[j].cpus[0]
		})
		if n.hasMem {
			for _, h := range sn.Hugepages {
				if h.SizeKB == size {
					n.pool, n.total = h.Free, h.Total
				}
			}
			if sn.MemFreeKB != nil && size > 0 {
				n.grow = *sn.MemFreeKB / size
				n.memFreeKnown = true
			} else if needPages {
				t.notes = append(t.notes, fmt.Sprintf("node %d: MemFree unknown, only its free hugepages (%d) are counted", sn.ID, n.pool))
			}
			n.avail = n.pool + n.grow
		}
		t.nodes = append(t.nodes, n)
	}
	sort.Slice(t.nodes, func(i, j int) bool { return t.nodes[i].id < t.nodes[j].id })
	t.discountReserved(snap, needPages)
	// SLIT by index; rows ordered by node id like Topology.Nodes.
	byID := map[int][]int{}
	for _, sn := range snodes {
		byID[sn.ID] = sn.Distances
	}
	t.slit = true
	t.dist = make([][]int, len(t.nodes))
	for i, n := range t.nodes {
		row := byID[n.id]
		if len(row) != len(t.nodes) {
			t.slit = false
		}
		t.dist[i] = make([]int, len(t.nodes))
		for j := range t.nodes {
			switch {
			case len(row) == len(t.nodes):
				t.dist[i][j] = row[j]
			case i == j:
				t.dist[i][j] = 10
			default:
				t.dist[i][j] = 20
			}
		}
	}
	if !t.slit && len(t.nodes) > 1 {
		t.notes = append(t.notes, "node distances (SLIT) unknown: 10 local and 20 remote assumed")
	}
	for _, ifc := range snap.Network.Interfaces {
		if ifc.NUMANode != nil && t.index(*ifc.NUMANode) >= 0 {
			t.nicNodes[ifc.Name] = *ifc.NUMANode
		}
		t.nics = append(t.nics, ifc)
	}
	return t, nil
}

// chooseSize picks the hugepage size: the spec's, else the host's default.
func chooseSize(snap *snapshot.Snapshot, want int64, needPages bool) (int64, error) {
	sizes := []int64{}
	def := int64(0)
	for _, h := range snap.Memory.Hugepages {
		sizes = append(sizes, h.SizeKB)
		if h.Default {
			def = h.SizeKB
		}
	}
	if def == 0 {
		def = snap.Memory.Meminfo["Hugepagesize"]
	}
	if want > 0 {
		if len(sizes) > 0 {
			for _, s := range sizes {
				if s == want {
					return want, nil
				}
			}
			return 0, fmt.Errorf("hugepage_size_kb %d: this host supports %v kB", want, sizes)
		}
		return want, nil
	}
	if def > 0 {
		return def, nil
	}
	if needPages {
		return 0, fmt.Errorf("the host's hugepage size is unknown (memory.hugepages absent): set hugepage_size_kb in the spec")
	}
	return 0, nil
}

// nearestMem is the memory node nearest to node index i (itself when it has
// memory); -1 when no node has memory.
func (t *topo) nearestMem(i int) int {
	if t.nodes[i].hasMem {
		return i
	}
	best := -1
	for j, n := range t.nodes {
		if !n.hasMem {
			continue
		}
		if best < 0 || t.dist[i][j] < t.dist[i][best] {
			best = j
		}
	}
	return best
}

// discountReserved takes the pages other users have reserved but not yet
// touched (HugePages_Rsvd: a mapped SGA or guest not yet faulted in) out of
// the free pages: the kernel counts them as free, yet they are promised.
// The kernel keeps that count host-wide only, so each node's free pages are
// taken minus up to all of it (safe: a pool grows more than needed rather
// than a strict placement running short).
func (t *topo) discountReserved(snap *snapshot.Snapshot, needPages bool) {
	var rsvd int64
	for _, h := range snap.Memory.Hugepages {
		if h.SizeKB == t.sizeKB {
			rsvd = h.Reserved
		}
	}
	if rsvd <= 0 || !needPages {
		return
	}
	for _, n := range t.nodes {
		d := min(n.pool, rsvd)
		n.pool -= d
		n.avail -= d
	}
	t.notes = append(t.notes, fmt.Sprintf("%d pages of %d kB are reserved host-wide (HugePages_Rsvd) by mappings not yet touched; the kernel does not say on which node, so each node's free pages are counted minus up to %d", rsvd, t.sizeKB, rsvd))
}

// nodeKindText says what a node's kind of memory is (snapshot.NodeKind*).
func nodeKindText(kind string) string {
	switch kind {
	case snapshot.NodeKindPMEM:
		return "persistent memory (NVDIMM onlined as system RAM)"
	case snapshot.NodeKindCXL:
		return "CXL memory"
	case snapshot.NodeKindHBM:
		return "high-bandwidth memory (HBM) without CPUs"
	case snapshot.NodeKindFar:
		return "a slower memory tier"
	case snapshot.NodeKindMovable:
		return "ZONE_MOVABLE-only memory without CPUs (device memory such as a GPU's, or hot-plugged)"
	case snapshot.NodeKindUnknown:
		return "of a kind no kernel file tells"
	}
	return kind + " memory"
}
