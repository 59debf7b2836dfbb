package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtVCPUNUMAPinning(t *testing.T) {
	const id = "virt.vcpu-numa-pinning"
	quiet(t, id, kvmHost(guest("db1")), WorkloadMixed, DBNone)
	// Not pinned at all.
	free := guest("db2")
	free.CPUTune = snapshot.CPUTune{}
	f := fires(t, id, kvmHost(free), WorkloadMixed, DBNone)
	if !strings.Contains(f.Current, "4 vCPU(s) not pinned") || !strings.Contains(f.Setting, "db2") {
		t.Errorf("%+v", f)
	}
	// Pinned on node 0, memory strict on node 1: remote, critical.
	remote := guest("db3")
	remote.NUMATune.Nodeset = &snapshot.CPUSet{Text: "1", IDs: []int{1}}
	f = fires(t, id, kvmHost(remote), WorkloadMixed, DBNone)
	if f.Severity != SevCritical || !strings.Contains(f.Current, "vCPUs on node(s) 0") || !strings.Contains(f.Current, "memory bound to node(s) 1") {
		t.Errorf("%+v", f)
	}
	// Pinned over both nodes without numatune.
	wide := guest("db4")
	wide.NUMATune = nil
	wide.CPUTune.VCPUPins[3].CPUSet = snapshot.CPUSet{Text: "4", IDs: []int{4}}
	if f := fires(t, id, kvmHost(wide), WorkloadMixed, DBNone); !strings.Contains(f.Current, "over 2 host nodes") {
		t.Errorf("%+v", f)
	}
	// Old-style <vcpu cpuset> within node 1, memory on node 1.
	old := guest("db5")
	old.CPUTune = snapshot.CPUTune{}
	old.VCPUCpuset = &snapshot.CPUSet{Text: "4-7", IDs: []int{4, 5, 6, 7}}
	old.NUMATune.Nodeset = &snapshot.CPUSet{Text: "1", IDs: []int{1}}
	quiet(t, id, kvmHost(old), WorkloadMixed, DBNone)
	// numad placement.
	auto := guest("db6")
	auto.CPUTune, auto.VCPUPlacement = snapshot.CPUTune{}, "auto"
	quiet(t, id, kvmHost(auto), WorkloadMixed, DBNone)
	// Pinned to CPUs this host lacks: not its host.
	alien := guest("db7")
	alien.CPUTune.VCPUPins[0].CPUSet = snapshot.CPUSet{Text: "40", IDs: []int{40}}
	cannot(t, id, kvmHost(alien), WorkloadMixed, DBNone, "does not have")
	// ... which does not hide the other guests: one left unpinned is still
	// found, one pinned well still passes, and the alien one is named.
	f = fires(t, id, kvmHost(alien, free), WorkloadMixed, DBNone)
	if !strings.Contains(f.Setting, "db2") || !strings.Contains(f.Evidence, "db7") || !strings.Contains(f.Evidence, "not judged") {
		t.Errorf("%+v", f)
	}
	rep := quiet(t, id, kvmHost(alien, guest("db1")), WorkloadMixed, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "db7") {
		t.Errorf("passed: %+v", rep.Passed)
	}
	virtNoGuests(t, id)
}
