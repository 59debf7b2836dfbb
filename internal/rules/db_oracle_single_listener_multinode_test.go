package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// nicHost is host() with one physical NIC (eth0, node 0, 10.1.1.1) whose two
// queue IRQs were served n0 times on node 0's CPUs and n1 times on node 1's.
func nicHost(n0, n1 uint64) *snapshot.Snapshot {
	s := host()
	node := 0
	s.Network.Interfaces = []snapshot.Interface{{Name: "eth0", Kind: "physical", NUMANode: &node, IPv4: []string{"10.1.1.1/24"}, IRQs: []int{40, 41}}}
	s.IRQs.CPUs = []int{0, 1, 2, 3, 4, 5, 6, 7}
	s.IRQs.IRQs = []snapshot.IRQ{
		{IRQ: "40", Actions: "eth0-TxRx-0", Counts: []uint64{n0, 0, 0, 0, n1, 0, 0, 0}},
		{IRQ: "41", Actions: "eth0-TxRx-1", Counts: []uint64{0, n0, 0, 0, 0, n1, 0, 0}},
	}
	return s
}

func TestSingleListenerMultinode(t *testing.T) {
	const id = "db.oracle-single-listener-multinode"
	one := "listener.ora=LISTENER =\n  (DESCRIPTION_LIST =\n    (DESCRIPTION =\n      (ADDRESS = (PROTOCOL = TCP)(HOST = 10.1.1.1)(PORT = 1521))\n    )\n  )\n"
	fs := artFires(t, runArt(t, id, nicHost(900000, 1000), artSet(t, one), DBOracle))
	f := fs[0]
	if !strings.HasPrefix(f.Current, "1 TCP listener for 2 NUMA nodes; 100 % of the NIC interrupts on node 0") ||
		!strings.Contains(f.Evidence, "listener.ora:1: LISTENER on 10.1.1.1:1521") || !strings.Contains(f.Evidence, "listener address 10.1.1.1 is on eth0 (NUMA node 0)") ||
		len(f.Fix.Persistent) != 4 || !strings.Contains(f.Why, "99.84") {
		t.Fatalf("%+v", f)
	}
	// Interrupts spread over both nodes: passes.
	artQuiet(t, runArt(t, id, nicHost(500000, 500000), artSet(t, one), DBOracle), "passed")
	// One listener per node (000's layout): passes.
	two := one + "LISTENER_N1 =\n  (DESCRIPTION_LIST =\n    (DESCRIPTION =\n      (ADDRESS = (PROTOCOL = TCP)(HOST = 10.2.1.1)(PORT = 1602))\n    )\n  )\n"
	artQuiet(t, runArt(t, id, nicHost(900000, 1000), artSet(t, two), DBOracle), "passed")
	// No NIC interrupt facts: cannot check; one node: not applicable.
	artQuiet(t, runArt(t, id, host(), artSet(t, one), DBOracle), "cannot")
	s := nicHost(900000, 1000)
	s.Topology.Nodes = s.Topology.Nodes[:1]
	artQuiet(t, runArt(t, id, s, artSet(t, one), DBOracle), "n/a")
	artQuiet(t, runArt(t, id, host(), nil, DBOracle), "n/a")
}
