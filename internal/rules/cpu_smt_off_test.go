package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestSMTOff(t *testing.T) {
	const id = "cpu.smt-off"
	// host(): 8 CPUs; make pairs (0,1), (2,3)... siblings.
	mk := func(active *bool) *snapshot.Snapshot {
		s := host()
		for i := range s.Topology.CPUs {
			c := &s.Topology.CPUs[i]
			c.Siblings = []int{c.ID &^ 1, c.ID | 1}
		}
		s.Topology.SMTActive = active
		return s
	}
	quiet(t, id, mk(ptr(true)), WorkloadOLTP, DBNone)
	quiet(t, id, mk(nil), WorkloadOLTP, DBNone)

	off := mk(ptr(false))
	f := fires(t, id, off, WorkloadOLTP, DBNone)
	if f.Severity != SevInfo || !strings.Contains(f.Current, "smt/active = 0") || len(f.Changes) != 0 || !strings.Contains(f.Why, "5.5 %") {
		t.Fatalf("%+v", f)
	}
	// Arm servers mostly have no SMT: smt/active 0 alone is no sign it was turned off.
	arm := mk(ptr(false))
	arm.Host.Arch = "aarch64"
	if rep := quiet(t, id, arm, WorkloadOLTP, DBNone); len(rep.Passed) != 1 {
		t.Fatalf("%+v", rep)
	}
	// nosmt on the boot line: a boot argument to remove.
	ns := mk(ptr(false))
	ns.Host.CmdlineArgs["nosmt"] = ""
	f = fires(t, id, ns, WorkloadMixed, DBNone)
	if !f.RebootRequired || len(f.Changes) != 1 || f.Changes[0].Kind != change.BootArg || !f.Changes[0].Remove || f.Changes[0].Key != "nosmt" {
		t.Fatalf("%+v", f)
	}
	// Siblings 5 and 7 offline.
	sib := mk(nil)
	for i := range sib.Topology.CPUs {
		if c := &sib.Topology.CPUs[i]; c.ID == 5 || c.ID == 7 {
			c.Online = false
		}
	}
	f = fires(t, id, sib, WorkloadOLTP, DBNone)
	if f.Current != "sibling threads 5,7 offline" || len(f.Changes) != 2 || f.Changes[0].Key != "/sys/devices/system/cpu/cpu5/online" || f.Changes[0].Value != "1" {
		t.Fatalf("%+v", f)
	}
	// Out of scope for dss and latency; not in guests.
	if rep := quiet(t, id, off, WorkloadDSS, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	g := mk(ptr(false))
	g.Host.Virt = snapshot.Virt{Guest: true, Type: "kvm"}
	if rep := quiet(t, id, g, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// No topology: cannot check.
	none := host()
	none.Topology.CPUs = nil
	absent(none, "topology.cpus", "permission denied")
	cannot(t, id, none, WorkloadOLTP, DBNone, "permission denied")
}
