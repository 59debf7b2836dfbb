package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// kvmHost is host() (2 nodes of 4 CPUs and 64 GiB) as a hypervisor with
// the given guests read by --libvirt.
func kvmHost(ds ...snapshot.Domain) *snapshot.Snapshot {
	s := host()
	s.Libvirt = &snapshot.Libvirt{Source: "virsh", Domains: ds}
	return s
}

// guest is a well-tuned 4-vCPU, 16 GiB guest on node 0: pinned, memory
// strict on node 0, hugepages, a virtio disk with cache none and io
// native, a virtio NIC with vhost.
func guest(name string) snapshot.Domain {
	mem := int64(16 << 20)
	d := snapshot.Domain{Name: name, File: "virsh dumpxml " + name, Type: "kvm", MemoryKB: &mem, VCPUs: 4,
		NUMATune:      &snapshot.NUMATune{Mode: "strict", Nodeset: &snapshot.CPUSet{Text: "0", IDs: []int{0}}},
		MemoryBacking: &snapshot.MemoryBacking{Hugepages: true},
		OS:            snapshot.GuestOS{Type: "hvm", Arch: "x86_64", Machine: "pc-q35-rhel9.2.0"},
		Disks: []snapshot.GuestDisk{
			{Type: "block", Device: "disk", DriverName: "qemu", DriverType: "raw", Cache: "none", IO: "native", Source: "/dev/sdb", Target: "vda", Bus: "virtio", Line: 40},
			{Type: "file", Device: "cdrom", Target: "sda", Bus: "sata", ReadOnly: true, Line: 46},
		},
		Interfaces: []snapshot.GuestNIC{{Type: "bridge", MAC: "52:54:00:00:00:01", Source: "br0", Model: "virtio", DriverName: "vhost", Line: 50}},
	}
	for v := 0; v < 4; v++ {
		d.CPUTune.VCPUPins = append(d.CPUTune.VCPUPins, snapshot.VCPUPin{VCPU: v, CPUSet: snapshot.CPUSet{Text: List([]int{v}), IDs: []int{v}}})
	}
	return d
}

// runWith runs one rule with artifacts.
func runWith(t *testing.T, id string, s *snapshot.Snapshot, set *artifacts.Set) Report {
	t.Helper()
	r, ok := Lookup(id)
	if !ok {
		t.Fatalf("rule %s is not registered", id)
	}
	rep := RunRules([]Rule{r}, &Input{Snap: s, Workload: WorkloadMixed, DB: DBNone, Artifacts: set})
	vetPasses(t, rep)
	return rep
}

// virtNoGuests: every virt rule over guests is not applicable without
// guests, and cannot check when libvirt could not be read.
func virtNoGuests(t *testing.T, id string) {
	t.Helper()
	rep := quiet(t, id, host(), WorkloadMixed, DBNone)
	if len(rep.NotApplicable) != 1 {
		t.Errorf("%s without guests: %+v", id, rep)
	}
	s := host()
	s.Libvirt = &snapshot.Libvirt{Source: "files", Domains: []snapshot.Domain{}}
	absent(s, "libvirt.domains", "not present on this host")
	cannot(t, id, s, WorkloadMixed, DBNone, "libvirt.domains: not present on this host")
}
