package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtHugepagesPoolShort(t *testing.T) {
	const id = "virt.hugepages-pool-short"
	// Two 16 GiB guests bound to node 0 need 16384 2 MiB pages there.
	a, b := guest("db1"), guest("db2")
	f := fires(t, id, withPool(kvmHost(a, b), 10000), WorkloadMixed, DBNone)
	if !strings.Contains(f.Current, "node(s) 0, 2.0 MiB pages: guests want 16384 (db1 16.0 GiB, db2 16.0 GiB), the pool holds 10000") || f.Severity != SevCritical {
		t.Errorf("%+v", f)
	}
	quiet(t, id, withPool(kvmHost(a, b), 16384), WorkloadMixed, DBNone)
	// One guest moved to node 1: each node's pool suffices.
	b.NUMATune.Nodeset = &snapshot.CPUSet{Text: "1", IDs: []int{1}}
	quiet(t, id, withPool(kvmHost(a, b), 8192), WorkloadMixed, DBNone)
	// An unbound guest draws on both nodes, after the bound ones.
	c := guest("db3")
	c.NUMATune = nil
	fires(t, id, withPool(kvmHost(a, b, c), 8192), WorkloadMixed, DBNone)
	quiet(t, id, withPool(kvmHost(a, b, c), 12288), WorkloadMixed, DBNone)
	// 1 GiB pages asked for, none in the pool.
	g := guest("db4")
	g.MemoryBacking.Pages = []snapshot.HugePage{{SizeKB: 1 << 20}}
	if f := fires(t, id, withPool(kvmHost(g), 16384), WorkloadMixed, DBNone); !strings.Contains(f.Current, "1.0 GiB pages: guests want 16") {
		t.Errorf("%+v", f)
	}
	// Guest cells bound to different nodes by memnode.
	h := guest("db5")
	h.CPU = &snapshot.GuestCPU{Mode: "host-passthrough", Cells: []snapshot.GuestCell{{ID: 0, MemoryKB: 8 << 20}, {ID: 1, MemoryKB: 8 << 20}}}
	h.NUMATune = &snapshot.NUMATune{MemNodes: []snapshot.MemNode{{CellID: 0, Nodeset: snapshot.CPUSet{Text: "0", IDs: []int{0}}}, {CellID: 1, Nodeset: snapshot.CPUSet{Text: "1", IDs: []int{1}}}}}
	quiet(t, id, withPool(kvmHost(h), 4096), WorkloadMixed, DBNone)
	fires(t, id, withPool(kvmHost(h), 4000), WorkloadMixed, DBNone)
	// Nobody wants hugepages; no pool facts.
	n := guest("db6")
	n.MemoryBacking = nil
	if rep := quiet(t, id, withPool(kvmHost(n), 0), WorkloadMixed, DBNone); len(rep.NotApplicable) != 1 {
		t.Errorf("%+v", rep)
	}
	cannot(t, id, kvmHost(a), WorkloadMixed, DBNone, "")
	virtNoGuests(t, id)
}
