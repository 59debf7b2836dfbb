package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// withPool gives host() a pool of 2 MiB pages per node.
func withPool(s *snapshot.Snapshot, perNode int64) *snapshot.Snapshot {
	s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: perNode * 2, Free: perNode * 2, Default: true}, {SizeKB: 1 << 20}}
	for i := range s.Topology.Nodes {
		s.Topology.Nodes[i].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048, Total: perNode, Free: perNode}, {SizeKB: 1 << 20}}
	}
	return s
}

func TestVirtHugepagesBacking(t *testing.T) {
	const id = "virt.hugepages-backing"
	plain := guest("db2")
	plain.MemoryBacking = nil
	f := fires(t, id, withPool(kvmHost(guest("db1"), plain), 8192), WorkloadMixed, DBNone)
	if !strings.Contains(f.Setting, "domains db2") || strings.Contains(f.Setting, "db1") || !strings.Contains(f.Evidence, "16384 × 2.0 MiB") {
		t.Errorf("%+v", f)
	}
	quiet(t, id, withPool(kvmHost(guest("db1")), 8192), WorkloadMixed, DBNone)
	// No pool on the host: nothing to back the guest with.
	if rep := quiet(t, id, kvmHost(plain), WorkloadMixed, DBNone); len(rep.Passed) != 1 {
		t.Errorf("%+v", rep)
	}
	virtNoGuests(t, id)
	noMem := withPool(kvmHost(plain), 8192)
	absent(noMem, "memory.hugepages", "permission denied")
	cannot(t, id, noMem, WorkloadMixed, DBNone, "permission denied")
	// A domain XML given to an audit of a guest: not the guest's host.
	vm := host()
	vm.Host.Virt.Guest = true
	rep := runWith(t, id, vm, &artifacts.Set{Domains: []*snapshot.Domain{&plain}})
	if len(rep.CannotCheck) != 1 || !strings.Contains(rep.CannotCheck[0].Reason, "not the hypervisor host's") {
		t.Errorf("%+v", rep)
	}
}
