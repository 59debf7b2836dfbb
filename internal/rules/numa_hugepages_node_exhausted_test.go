package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestHugepagesNodeExhausted(t *testing.T) {
	const id = "numa.hugepages-node-exhausted"
	// 001's second test: an instance in a cgroup with mems 0,1; node 0's pool
	// is empty, node 1 still has free pages.
	mk := func(free0, free1, total0, total1 int64, cgroup bool) *snapshot.Snapshot {
		s := host()
		s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: total0 + total1, Free: free0 + free1, Default: true}}
		s.Topology.Nodes[0].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048, Total: total0, Free: free0}}
		s.Topology.Nodes[1].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048, Total: total1, Free: free1}}
		s.Processes = []snapshot.Process{
			{PID: 100, Comm: "ora_pmon_ORCL", Engine: "oracle", Role: "pmon", UID: 54321, MemsAllowed: []int{0, 1}},
			{PID: 101, Comm: "ora_dbw0_ORCL", Engine: "oracle", Role: "background", UID: 54321, MemsAllowed: []int{0, 1}},
		}
		if cgroup {
			s.Cgroups.Groups = []snapshot.CgroupGroup{{Path: "/oracle", Version: 1, Mount: "/sys/fs/cgroup/cpuset",
				CPUs: ptr("0-7"), Mems: ptr("0-1"), PIDs: []int{100, 101}, DBPIDs: []int{100, 101}}}
		}
		return s
	}
	f := fires(t, id, mk(0, 900, 1000, 1000, true), WorkloadOLTP, DBOracle)
	if f.Severity != SevWarning || !strings.Contains(f.Current, "node(s) 0: 0 free") || !strings.Contains(f.Current, "node1 900") ||
		!strings.Contains(f.Evidence, "cgroup /sys/fs/cgroup/cpuset/oracle") || !strings.Contains(f.Evidence, "node0 1000 total/0 free") {
		t.Fatalf("%+v", f)
	}
	// Without a cgroup the processes' Mems_allowed name the set.
	f = fires(t, id, mk(0, 900, 1000, 1000, false), WorkloadOLTP, DBOracle)
	if !strings.Contains(f.Evidence, "database processes 100, 101") {
		t.Fatalf("%+v", f.Evidence)
	}
	// Both nodes with free pages, or both exhausted: quiet.
	quiet(t, id, mk(500, 900, 1000, 1000, true), WorkloadOLTP, DBOracle)
	quiet(t, id, mk(0, 0, 1000, 1000, true), WorkloadOLTP, DBOracle)
	// Bound to one node: passes.
	one := mk(0, 900, 1000, 1000, false)
	for i := range one.Processes {
		one.Processes[i].MemsAllowed = []int{0}
	}
	if rep := quiet(t, id, one, WorkloadOLTP, DBOracle); len(rep.Passed) != 1 {
		t.Fatalf("%+v", rep)
	}
	// Uneven pools against the database's shared memory (3000 pages, even
	// share 1500): node 0 has 200, node 1 has 3000 → info.
	uneven := mk(100, 2000, 200, 3000, true)
	uneven.Memory.SysVShm = []snapshot.ShmSegment{{SizeBytes: 3000 * 2048 * 1024, UID: 54321, CPID: 100}}
	f = fires(t, id, uneven, WorkloadOLTP, DBOracle)
	if f.Severity != SevInfo || !strings.Contains(f.Recommended, "at least 1500 pages") || !strings.Contains(f.Current, "node0 200") {
		t.Fatalf("%+v", f)
	}
	// No database process: not applicable; no hugepages: not applicable.
	none := mk(0, 900, 1000, 1000, false)
	none.Processes = nil
	if rep := quiet(t, id, none, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// Processes without Mems_allowed (a sosreport's ps) and no cgroup: cannot check.
	sos := mk(0, 900, 1000, 1000, false)
	for i := range sos.Processes {
		sos.Processes[i].MemsAllowed = nil
	}
	absent(sos, "processes.cpus_allowed", "a sosreport's ps output does not show it")
	absent(sos, "processes.mems_allowed", "a sosreport's ps output does not show it")
	cannot(t, id, sos, WorkloadOLTP, DBOracle, "processes.mems_allowed")
	// Per-node pools unknown: cannot check.
	unk := mk(0, 900, 1000, 1000, true)
	unk.Topology.Nodes[1].Hugepages = nil
	absent(unk, "topology.nodes[1].hugepages", "permission denied")
	cannot(t, id, unk, WorkloadOLTP, DBOracle, "permission denied")
	// Hugepage sizes unknown: cannot check.
	nohp := mk(0, 900, 1000, 1000, true)
	nohp.Memory.Hugepages = nil
	absent(nohp, "memory.hugepages", "not present on this host")
	cannot(t, id, nohp, WorkloadOLTP, DBOracle, "memory.hugepages")
}

// Issue 25: a GPU memory node in the database's Mems_allowed (POWER9's
// coherent GPU memory, node 252, no hugepage pool) is not one of its
// pools: the two DRAM nodes, each holding an even share, are not uneven.
func TestHugepagesNodeExhaustedSkipsDeviceMemory(t *testing.T) {
	s := host()
	s.Topology.Nodes[0].Kind, s.Topology.Nodes[1].Kind = snapshot.NodeKindDRAM, snapshot.NodeKindDRAM
	s.Topology.Nodes = append(s.Topology.Nodes, snapshot.Node{ID: 252, Online: true, HasMemory: true, CPUs: []int{},
		Kind: snapshot.NodeKindMovable, KindEvidence: []string{"/proc/zoneinfo: Movable only"}, MemTotalKB: ptr(int64(16 << 20))})
	s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: 12400, Free: 112, Default: true}}
	s.Topology.Nodes[0].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048, Total: 6200, Free: 56}}
	s.Topology.Nodes[1].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048, Total: 6200, Free: 56}}
	s.Topology.Nodes[2].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048}}
	s.Processes = []snapshot.Process{{PID: 100, Comm: "ora_pmon_ORCL", Engine: "oracle", Role: "pmon", UID: 54321, MemsAllowed: []int{0, 1, 252}}}
	s.Memory.SysVShm = []snapshot.ShmSegment{{ShmID: 1, SizeBytes: 24 << 30, UID: 54321, CPID: 100, Huge: ptr(true)}}
	quiet(t, "numa.hugepages-node-exhausted", s, WorkloadOLTP, DBOracle)
}
