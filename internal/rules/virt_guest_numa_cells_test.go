package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtGuestNUMACells(t *testing.T) {
	const id = "virt.guest-numa-cells"
	big := guest("db2")
	m := int64(96 << 20)
	big.MemoryKB, big.VCPUs = &m, 8
	f := fires(t, id, kvmHost(big), WorkloadMixed, DBNone)
	if !strings.Contains(f.Current, "memory 96.0 GiB > 64.0 GiB") || !strings.Contains(f.Current, "8 vCPUs > 4 CPUs") || !strings.Contains(f.Recommended, "2 guest NUMA cells") {
		t.Errorf("%+v", f)
	}
	big.CPU = &snapshot.GuestCPU{Mode: "host-passthrough", Cells: []snapshot.GuestCell{{ID: 0, MemoryKB: 48 << 20}, {ID: 1, MemoryKB: 48 << 20}}}
	quiet(t, id, kvmHost(big), WorkloadMixed, DBNone)
	quiet(t, id, kvmHost(guest("db1")), WorkloadMixed, DBNone)
	noMem := kvmHost(guest("db1"))
	for i := range noMem.Topology.Nodes {
		noMem.Topology.Nodes[i].MemTotalKB = nil
	}
	absent(noMem, "topology.nodes.mem_total_kb", "permission denied")
	cannot(t, id, noMem, WorkloadMixed, DBNone, "permission denied")
	virtNoGuests(t, id)
}
