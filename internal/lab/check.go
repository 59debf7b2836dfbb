package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Memory margin: a node's MemTotal is its RAM less what the kernel reserves
// (memmap, firmware and ACPI ranges; on the node holding low memory also the
// kernel image and early allocations). Measured on 6.1 under QEMU: 47-50 MB
// on that first node, 2.5-7 MB on the others (docs/lab.md). A node passes when
// configured − MarginKB ≤ MemTotal ≤ configured.
const (
	reserveFirstMB = 64 // node with the lowest addresses
	reserveOtherMB = 16
	reservePct     = 4
)

// MemMarginKB is how far below its configured size a node's MemTotal may be;
// first is true for the node whose RAM starts at address 0.
func MemMarginKB(memMB int, first bool) int64 {
	fixed := int64(reserveOtherMB)
	if first {
		fixed = reserveFirstMB
	}
	return fixed<<10 + int64(memMB)<<10*reservePct/100
}

// Compare checks a guest snapshot's topology against the scenario and returns
// one line per difference ("what: expected X, got Y"); none means a pass.
func Compare(s *Scenario, snap *snapshot.Snapshot) []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	t := &snap.Topology
	if !t.NUMAEnabled {
		bad("numa_enabled: expected true, got false")
	}
	for _, a := range snap.Absent {
		// What the emulated machine does not have is no topology fault: a
		// TCG guest has no perf core PMU (core types unknown), QEMU gives no
		// ACPI HMAT unless told, and memory tiers came in Linux 6.1.
		if a.Fact == "topology.core_types" || strings.HasPrefix(a.Fact, "topology.nodes.mem_detail") {
			continue
		}
		if strings.HasPrefix(a.Fact, "topology") {
			bad("fact %s absent (%s: %s)", a.Fact, a.Path, a.Reason)
		}
	}
	var wantIDs, gotIDs []int
	for _, n := range s.Nodes {
		wantIDs = append(wantIDs, n.ID)
	}
	got := map[int]*snapshot.Node{}
	for i := range t.Nodes {
		gotIDs = append(gotIDs, t.Nodes[i].ID)
		got[t.Nodes[i].ID] = &t.Nodes[i]
	}
	if !slices.Equal(wantIDs, gotIDs) {
		bad("node ids: expected %v, got %v", wantIDs, gotIDs)
	}
	firstMem := -1
	for _, n := range s.Nodes {
		if n.MemMB > 0 {
			firstMem = n.ID
			break
		}
	}
	for i, n := range s.Nodes {
		g, ok := got[n.ID]
		if !ok {
			continue
		}
		cpus := n.CPUs
		if cpus == nil {
			cpus = []int{}
		}
		if !slices.Equal(cpus, g.CPUs) {
			bad("node %d cpus: expected %v, got %v", n.ID, cpus, g.CPUs)
		}
		var dist []int
		for j := range s.Nodes {
			dist = append(dist, s.distance(i, j))
		}
		if !slices.Equal(dist, g.Distances) {
			bad("node %d distances: expected %v, got %v", n.ID, dist, g.Distances)
		}
		if g.HasCPU != (len(n.CPUs) > 0) {
			bad("node %d has_cpu: expected %v, got %v", n.ID, len(n.CPUs) > 0, g.HasCPU)
		}
		if g.HasMemory != (n.MemMB > 0) {
			bad("node %d has_memory: expected %v, got %v", n.ID, n.MemMB > 0, g.HasMemory)
		}
		if g.MemTotalKB == nil {
			bad("node %d mem_total_kb: expected ~%d MB, got none", n.ID, n.MemMB)
		} else if want := int64(n.MemMB) << 10; *g.MemTotalKB > want || *g.MemTotalKB < want-MemMarginKB(n.MemMB, n.ID == firstMem) {
			if n.MemMB == 0 {
				bad("node %d mem_total_kb: expected 0 (memoryless), got %d", n.ID, *g.MemTotalKB)
			} else {
				bad("node %d mem_total_kb: expected %d MB less at most %d MB reserved, got %.1f MB",
					n.ID, n.MemMB, MemMarginKB(n.MemMB, n.ID == firstMem)>>10, float64(*g.MemTotalKB)/1024)
			}
		}
		if want, ok := s.HugepagesPerNode[n.ID]; ok {
			var have *int64
			for _, h := range g.Hugepages {
				if h.SizeKB == 2048 {
					have = &h.Total
				}
			}
			switch {
			case have == nil:
				bad("node %d hugepages-2048kB: expected %d, got no pool", n.ID, want)
			case *have != want:
				bad("node %d hugepages-2048kB: expected %d, got %d", n.ID, want, *have)
			}
		}
	}
	if t.Sockets != s.Sockets {
		bad("sockets: expected %d, got %d", s.Sockets, t.Sockets)
	}
	if t.Cores != s.Sockets*s.Cores {
		bad("cores: expected %d, got %d", s.Sockets*s.Cores, t.Cores)
	}
	if t.Threads != s.NumCPUs() {
		bad("online CPUs: expected %d, got %d", s.NumCPUs(), t.Threads)
	}
	gotCPU := map[int]*snapshot.CPU{}
	for i := range t.CPUs {
		gotCPU[t.CPUs[i].ID] = &t.CPUs[i]
	}
	if len(t.CPUs) != s.NumCPUs() {
		bad("cpus: expected %d, got %d", s.NumCPUs(), len(t.CPUs))
	}
	for _, e := range s.ExpectedCPUs() {
		g, ok := gotCPU[e.ID]
		if !ok {
			bad("cpu %d: missing", e.ID)
			continue
		}
		if g.Node != e.Node || g.Socket != e.Socket || g.Core != e.Core || !slices.Equal(g.Siblings, e.Siblings) {
			bad("cpu %d: expected node %d socket %d core %d siblings %v, got node %d socket %d core %d siblings %v",
				e.ID, e.Node, e.Socket, e.Core, e.Siblings, g.Node, g.Socket, g.Core, g.Siblings)
		}
	}
	return out
}
