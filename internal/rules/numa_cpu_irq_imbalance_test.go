package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestCPUIRQImbalance(t *testing.T) {
	const id = "numa.cpu-irq-imbalance"
	load := func(busy0, busy1 uint64) *snapshot.Snapshot {
		s := host()
		for c := 0; c < 8; c++ {
			b := busy0
			if c >= 4 {
				b = busy1
			}
			s.CPULoad.PerCPU = append(s.CPULoad.PerCPU, snapshot.CPUTime{CPU: c, User: b, Idle: 1000 - b})
		}
		return s
	}
	nic := func(s *snapshot.Snapshot, node0, node1 uint64) *snapshot.Snapshot {
		s.Network.Interfaces = []snapshot.Interface{{Name: "ens1f0", Kind: "physical", IRQs: []int{40, 41}},
			{Name: "lo", Kind: "loopback"}}
		s.IRQs.CPUs = []int{0, 1, 2, 3, 4, 5, 6, 7}
		for _, q := range []string{"40", "41"} {
			s.IRQs.IRQs = append(s.IRQs.IRQs, snapshot.IRQ{IRQ: q,
				Counts: []uint64{node0, node0, node0, node0, node1, node1, node1, node1}})
		}
		return s
	}
	t.Run("busy node fires", func(t *testing.T) {
		f := fires(t, id, load(950, 450), WorkloadOLTP, DBOracle)
		if f.Setting != "numa:node0 CPU load" || !strings.Contains(f.Current, "node 0 95.0 % busy, other nodes 45.0 %") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("NIC interrupts on one node fire", func(t *testing.T) {
		f := fires(t, id, nic(load(500, 450), 100000, 10), WorkloadOLTP, DBOracle)
		if f.Setting != "irq:ens1f0 affinity" || !strings.HasPrefix(f.Current, "100 % of the interrupts of ens1f0 served on node 0") ||
			!strings.Contains(f.Evidence, "IRQs 40-41") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("NIC on node 1 with its interrupts on node 0 fires", func(t *testing.T) {
		s := nic(load(500, 450), 60000, 40000) // spread overall ...
		s.Network.Interfaces = append(s.Network.Interfaces, snapshot.Interface{Name: "ens1f1", Kind: "physical", NUMANode: ptr(1), IRQs: []int{50}})
		s.IRQs.IRQs = append(s.IRQs.IRQs, snapshot.IRQ{IRQ: "50", Counts: []uint64{90000, 0, 0, 0, 0, 0, 0, 10}})
		rep := run(t, id, s, WorkloadOLTP, DBOracle) // ... but ens1f1 is served remotely
		if len(rep.Findings) != 1 || rep.Findings[0].Setting != "irq:ens1f1 affinity" ||
			rep.Findings[0].Fix.Runtime[0] != "for q in 50; do echo 4-7 > /proc/irq/$q/smp_affinity_list; done" {
			t.Fatalf("%+v", rep.Findings)
		}
	})
	// 000 Scenario 3: one NIC, on node 0, its interrupts served on node 0
	// (where its driver puts them: "each with an interrupt assigned to a CPU
	// in the same NUMA node as the NIC"). 000 kept them there and added a NIC
	// and a listener per node; spreading eno24's queues over the nodes would
	// make the same rule report them served off the NIC's node next time.
	scenario3 := func() *snapshot.Snapshot {
		s := nic(load(500, 450), 100000, 0)
		s.Network.Interfaces[0].Name = "eno24"
		s.Network.Interfaces[0].NUMANode = ptr(0)
		return s
	}
	t.Run("000 Scenario 3: NIC on node 0, its interrupts there: a NIC and a listener per node", func(t *testing.T) {
		rep := run(t, id, scenario3(), WorkloadOLTP, DBOracle)
		if len(rep.Findings) != 1 {
			t.Fatalf("%+v", rep.Findings)
		}
		f := rep.Findings[0]
		if !strings.Contains(f.Recommended, "a NIC on each node") || !strings.Contains(f.Recommended, "kept on its own node") ||
			strings.Contains(f.Recommended, "spread over the nodes") || len(f.Fix.Runtime) != 0 ||
			!strings.Contains(f.Evidence, "eno24 on node 0") {
			t.Fatalf("%+v", f)
		}
		for _, line := range f.Fix.Persistent {
			if strings.Contains(line, "irqbalance") || strings.Contains(line, "smp_affinity") {
				t.Errorf("moves eno24's queues (irqbalance changes nothing here): %q", line)
			}
		}
	})
	t.Run("000 Scenario 3 followed: a second NIC on node 1 with its interrupts there is quiet", func(t *testing.T) {
		s := scenario3()
		s.Network.Interfaces = append(s.Network.Interfaces, snapshot.Interface{Name: "eno25", Kind: "physical", NUMANode: ptr(1), IRQs: []int{50, 51}})
		for _, q := range []string{"50", "51"} {
			s.IRQs.IRQs = append(s.IRQs.IRQs, snapshot.IRQ{IRQ: q, Counts: []uint64{0, 0, 0, 0, 100000, 100000, 100000, 100000}})
		}
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("interrupts served off the NIC's node: back on its node, never irqbalance", func(t *testing.T) {
		s := scenario3()
		s.Network.Interfaces[0].NUMANode = ptr(1)
		rep := run(t, id, s, WorkloadOLTP, DBOracle)
		for _, f := range rep.Findings {
			for _, line := range append(f.Fix.Runtime, f.Fix.Persistent...) {
				if strings.Contains(line, "irqbalance") {
					t.Errorf("%s: offers irqbalance: %q", f.Setting, line)
				}
			}
		}
	})
	t.Run("balanced passes", func(t *testing.T) {
		quiet(t, id, nic(load(700, 650), 5000, 5000), WorkloadOLTP, DBOracle)
		quiet(t, id, load(200, 50), WorkloadOLTP, DBOracle) // idle host: not busy enough to matter
		quiet(t, id, nic(host(), 100, 0), WorkloadOLTP, DBOracle)
	})
	t.Run("single node: not applicable", func(t *testing.T) {
		s := load(950, 450)
		s.Topology.Nodes = s.Topology.Nodes[:1]
		s.Topology.CPUs = s.Topology.CPUs[:4]
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("no load and no NICs: cannot check", func(t *testing.T) {
		s := host()
		absent(s, "cpu_load", "permission denied")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "cpu_load: permission denied")
	})
}
