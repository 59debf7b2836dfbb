package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// mpHost is host() with 000's storage layout scaled to two nodes: a
// dual-port FC HBA on each node (hosts 1-2 on node 0, 3-4 on node 1), and
// a 3PAR VV LUN (dm-0) with a path through every port to two array ports:
// 8 paths over both nodes.
func mpHost() *snapshot.Snapshot {
	s := host()
	for i, a := range []string{"0000:11:00.0", "0000:11:00.1", "0000:b1:00.0", "0000:b1:00.1"} {
		s.PCIDevices = append(s.PCIDevices, snapshot.PCIDevice{Address: a, Kind: "fc", Driver: "qla2xxx", NUMANode: ptr(i / 2), FCHosts: []int{i + 1}, SCSIHosts: []int{i + 1}})
	}
	mp := snapshot.BlockDevice{Name: "dm-0", Kind: "dm", DMName: "mpatha", DMUUID: "mpath-360002ac0000000000000001600019", Multipath: true}
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("sd%c", 'b'+i)
		mp.Slaves = append(mp.Slaves, name)
		s.Storage.Devices = append(s.Storage.Devices, snapshot.BlockDevice{Name: name, Kind: "disk", Vendor: "3PARdata", Model: "VV",
			SCSIHost: ptr(i/2 + 1), NUMANode: ptr(i / 4)})
	}
	s.Storage.Devices = append(s.Storage.Devices, mp)
	return s
}

func TestMultipathPathsOneNode(t *testing.T) {
	// mpathb zoned through node 0's HBA only: its two paths on node 0.
	s := mpHost()
	s.Storage.Devices = append(s.Storage.Devices,
		snapshot.BlockDevice{Name: "sdj", Kind: "disk", SCSIHost: ptr(1), NUMANode: ptr(0)},
		snapshot.BlockDevice{Name: "sdk", Kind: "disk", SCSIHost: ptr(2), NUMANode: ptr(0)},
		snapshot.BlockDevice{Name: "dm-1", Kind: "dm", DMName: "mpathb", Multipath: true, Slaves: []string{"sdj", "sdk"}})
	f := fires(t, "io.multipath-paths-one-node", s, WorkloadOLTP, DBNone)
	if f.Setting != "multipath:dm-1 paths" || !strings.Contains(f.Current, "2 paths, every one through the HBAs of node 0") ||
		!strings.Contains(f.Evidence, "sdj host1 0000:11:00.0") || !strings.Contains(f.Evidence, "node 1: 0000:b1:00.0, 0000:b1:00.1") || f.Pending != PendingManual {
		t.Fatalf("%+v", f)
	}
}

func TestMultipathPathsOneNodeQuiet(t *testing.T) {
	// 000's own layout: the paths over every blade.
	rep := quiet(t, "io.multipath-paths-one-node", mpHost(), WorkloadOLTP, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "8 paths over nodes (node0 4, node1 4)") {
		t.Fatalf("%+v", rep)
	}
	// Every HBA on node 0: the LUN cannot be spread without hardware; said, not a finding.
	s := mpHost()
	for i := range s.PCIDevices {
		s.PCIDevices[i].NUMANode = ptr(0)
	}
	for i := range s.Storage.Devices {
		if s.Storage.Devices[i].Kind == "disk" {
			s.Storage.Devices[i].NUMANode = ptr(0)
		}
	}
	rep = quiet(t, "io.multipath-paths-one-node", s, WorkloadOLTP, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "needs an HBA on another node") {
		t.Fatalf("%+v", rep)
	}
}

func TestMultipathPathsOneNodeCannot(t *testing.T) {
	// The paths' nodes unknown (numa_node -1): no verdict.
	s := mpHost()
	for i := range s.Storage.Devices {
		s.Storage.Devices[i].NUMANode = nil
	}
	cannot(t, "io.multipath-paths-one-node", s, WorkloadOLTP, DBNone, "unknown")
	s = host()
	absent(s, "storage.devices", "permission denied")
	cannot(t, "io.multipath-paths-one-node", s, WorkloadOLTP, DBNone, "storage.devices")
}
