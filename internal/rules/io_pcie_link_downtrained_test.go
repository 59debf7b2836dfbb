package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// pciHost is host() with 000's blade HBA (a QMH2672 port, x8 8 GT/s in an
// x8 slot) and a NIC, both at their full link.
func pciHost() *snapshot.Snapshot {
	s := host()
	link := func(w, maxW, portW int, sp, maxS float64) *snapshot.PCIeLink {
		return &snapshot.PCIeLink{Width: ptr(w), MaxWidth: ptr(maxW), Speed: ptr(sp), MaxSpeed: ptr(maxS), Port: "0000:00:03.0", PortMaxWidth: ptr(portW), PortMaxSpeed: ptr(maxS)}
	}
	s.PCIDevices = []snapshot.PCIDevice{
		{Address: "0000:11:00.0", Class: "0x0c0400", Kind: "fc", Driver: "qla2xxx", NUMANode: ptr(0), IRQs: []int{90, 91}, MSI: true, Link: link(8, 8, 8, 8, 8), FCHosts: []int{1}, SCSIHosts: []int{1}},
		{Address: "0000:3b:00.0", Class: "0x020000", Kind: "nic", Driver: "ixgbe", NUMANode: ptr(0), IRQs: []int{70}, MSI: true, Link: link(8, 8, 8, 5, 5), Net: []string{"eno1"}},
	}
	return s
}

func TestPCIeLinkDowntrained(t *testing.T) {
	// The card and the slot can do x8; the link trained at x4: a fault.
	s := pciHost()
	s.PCIDevices[0].Link.Width = ptr(4)
	f := fires(t, "io.pcie-link-downtrained", s, WorkloadOLTP, DBNone)
	if f.Severity != SevWarning || !strings.Contains(f.Current, "x4 where the function and its slot can do x8") || f.Pending != PendingManual || len(f.Changes) != 0 {
		t.Fatalf("%+v", f)
	}
	// An x8 card in an x4 slot (003's "x4, x8"): info, move the card.
	s = pciHost()
	s.PCIDevices[0].Link.Width, s.PCIDevices[0].Link.PortMaxWidth = ptr(4), ptr(4)
	f = fires(t, "io.pcie-link-downtrained", s, WorkloadOLTP, DBNone)
	if f.Severity != SevInfo || !strings.Contains(f.Current, "an x8 card in a slot that can do x4") {
		t.Fatalf("%+v", f)
	}
	// Speed below both ends at full width: info (an idle link may slow itself down).
	s = pciHost()
	s.PCIDevices[1].Link.Speed = ptr(2.5)
	f = fires(t, "io.pcie-link-downtrained", s, WorkloadOLTP, DBNone)
	if f.Severity != SevInfo || !strings.Contains(f.Current, "2.5 GT/s where both ends can do 5 GT/s") || !strings.Contains(strings.Join(f.Fix.Persistent, " "), "under load") {
		t.Fatalf("%+v", f)
	}
}

func TestPCIeLinkQuiet(t *testing.T) {
	rep := quiet(t, "io.pcie-link-downtrained", pciHost(), WorkloadOLTP, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "0000:11:00.0 (fc qla2xxx: fc host1) x8 8 GT/s") {
		t.Fatalf("%+v", rep)
	}
	// A link that is down ("Unknown", width 0) is not judged; a conventional
	// PCI function has no link.
	s := pciHost()
	s.PCIDevices[1].Link.Speed, s.PCIDevices[1].Link.Width = nil, ptr(0)
	s.PCIDevices = append(s.PCIDevices, snapshot.PCIDevice{Address: "0000:07:01.0", Kind: "storage"})
	quiet(t, "io.pcie-link-downtrained", s, WorkloadOLTP, DBNone)
	// A guest's links are emulated.
	g := pciHost()
	g.PCIDevices[0].Link.Width = ptr(1)
	g.Host.Virt = snapshot.Virt{Guest: true, Type: "kvm"}
	if rep := quiet(t, "io.pcie-link-downtrained", g, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
}

func TestPCIeLinkCannot(t *testing.T) {
	s := host()
	absent(s, "pci_devices", "not present on this host")
	cannot(t, "io.pcie-link-downtrained", s, WorkloadOLTP, DBNone, "pci_devices")
	// A kernel before 4.13: the functions are there, their links unknown.
	s = pciHost()
	for i := range s.PCIDevices {
		s.PCIDevices[i].Link = nil
	}
	absent(s, "pci_devices.link", "not present on this host")
	cannot(t, "io.pcie-link-downtrained", s, WorkloadOLTP, DBNone, "pci_devices.link")
}
