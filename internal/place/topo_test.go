package place

import (
	"fmt"
	"math/rand"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// hostSpec describes a synthetic host for tests.
type hostSpec struct {
	ids      []int   // node ids (odd numbering allowed)
	cores    []int   // cores per node (0: CPU-less node)
	smt      bool    // two threads per core, sibling = id + half of all CPUs
	memGB    []int64 // memory per node (0: memoryless node)
	freeHuge []int64 // free 2 MB pages per node already in the pool
	dist     [][]int // SLIT; nil: 10 local, 21 neighbour (|i-j|==1), 31 otherwise
	nicNode  map[string]int
	ipv4     map[string]string
	cgroupV2 bool
}

func int64p(v int64) *int64 { return &v }

// mkHost builds a Snapshot from hs. CPU ids: node by node, first threads of
// every core, then (SMT) the second threads, like Intel numbering.
func mkHost(hs hostSpec) *snapshot.Snapshot {
	s := &snapshot.Snapshot{SchemaVersion: snapshot.SchemaVersion, Sysctl: map[string]string{}}
	s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Default: true}, {SizeKB: 1048576}}
	s.Memory.Meminfo = map[string]int64{"Hugepagesize": 2048}
	totalCores := 0
	for _, c := range hs.cores {
		totalCores += c
	}
	next := 0
	socket := 0
	for i, id := range hs.ids {
		n := snapshot.Node{ID: id, Online: true, CPUs: []int{}}
		for c := 0; c < hs.cores[i]; c++ {
			first := next
			next++
			sib := []int{first}
			if hs.smt {
				sib = append(sib, first+totalCores)
			}
			for _, cpu := range sib {
				n.CPUs = append(n.CPUs, cpu)
				s.Topology.CPUs = append(s.Topology.CPUs, snapshot.CPU{ID: cpu, Online: true, Node: id, Socket: socket, Core: c, Siblings: sib})
			}
		}
		socket++
		sortInts(n.CPUs)
		n.HasCPU = len(n.CPUs) > 0
		mem := hs.memGB[i] << 20
		n.HasMemory = mem > 0
		n.MemTotalKB = int64p(mem)
		free := mem / 2
		n.MemFreeKB = int64p(free)
		n.Hugepages = []snapshot.NodeHugepages{{SizeKB: 1048576}}
		if hs.freeHuge != nil {
			n.Hugepages = append([]snapshot.NodeHugepages{{SizeKB: 2048, Total: hs.freeHuge[i], Free: hs.freeHuge[i]}}, n.Hugepages...)
		} else {
			n.Hugepages = append([]snapshot.NodeHugepages{{SizeKB: 2048}}, n.Hugepages...)
		}
		n.Distances = make([]int, len(hs.ids))
		for j := range hs.ids {
			switch {
			case hs.dist != nil:
				n.Distances[j] = hs.dist[i][j]
			case i == j:
				n.Distances[j] = 10
			case i-j == 1 || j-i == 1:
				n.Distances[j] = 21
			default:
				n.Distances[j] = 31
			}
		}
		s.Topology.Nodes = append(s.Topology.Nodes, n)
	}
	sortCPUs(s.Topology.CPUs)
	for _, c := range s.Topology.CPUs {
		s.Topology.CPUsOnline = append(s.Topology.CPUsOnline, c.ID)
	}
	s.Topology.Threads = len(s.Topology.CPUs)
	s.Topology.NUMAEnabled = true
	names := []string{}
	for name := range hs.nicNode {
		names = append(names, name)
	}
	sortStrings(names)
	for _, name := range names {
		nn := hs.nicNode[name]
		ifc := snapshot.Interface{Name: name, Kind: "physical", NUMANode: &nn}
		if ip, ok := hs.ipv4[name]; ok {
			ifc.IPv4 = []string{ip}
		}
		s.Network.Interfaces = append(s.Network.Interfaces, ifc)
	}
	s.Cgroups.Version = "v1"
	if hs.cgroupV2 {
		s.Cgroups.Version = "v2"
	}
	return s
}

// randomHost draws a topology: 1–16 nodes, odd numbering, memoryless and
// CPU-less nodes, SMT on or off.
func randomHost(rng *rand.Rand) (*snapshot.Snapshot, hostSpec) {
	n := 1 + rng.Intn(16)
	hs := hostSpec{smt: rng.Intn(2) == 0}
	id := rng.Intn(3)
	for i := 0; i < n; i++ {
		hs.ids = append(hs.ids, id)
		id += 1 + rng.Intn(3)*rng.Intn(2) // gaps sometimes
		cores := 1 + rng.Intn(12)
		mem := int64(4 + rng.Intn(60))
		switch rng.Intn(8) {
		case 0:
			mem = 0 // memoryless
		case 1:
			if n > 1 {
				cores = 0 // CPU-less
			}
		}
		hs.cores = append(hs.cores, cores)
		hs.memGB = append(hs.memGB, mem)
		hs.freeHuge = append(hs.freeHuge, int64(rng.Intn(4))*512*int64(min(1, mem)))
	}
	if hs.cores[0] == 0 {
		hs.cores[0] = 2
	}
	if hs.memGB[0] == 0 {
		hs.memGB[0] = 8
	}
	return mkHost(hs), hs
}

func randomSpec(rng *rand.Rand, threads int) *Spec {
	s := &Spec{Strategy: []string{"binding", "caging", "mix"}[rng.Intn(3)]}
	k := 1 + rng.Intn(10)
	for i := 0; i < k; i++ {
		cl := "guaranteed"
		if rng.Intn(3) == 0 {
			cl = "best-effort"
		}
		s.Instances = append(s.Instances, Instance{
			Name:     fmt.Sprintf("db%d", i),
			Engine:   []string{"oracle", "postgres", "mysql", "other"}[rng.Intn(4)],
			CPUs:     1 + rng.Intn(max(1, threads/k+2)),
			MemoryGB: float64(rng.Intn(20)),
			Class:    cl,
		})
	}
	return s
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func sortStrings(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func sortCPUs(a []snapshot.CPU) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].ID < a[j-1].ID; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
