package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtDiskEmulatedBus(t *testing.T) {
	const id = "virt.disk-emulated-bus"
	g := guest("db2")
	g.Disks = append(g.Disks, snapshot.GuestDisk{Type: "file", Device: "disk", Cache: "none", Source: "/data/db2.img", Target: "hdb", Bus: "ide", Line: 30})
	f := fires(t, id, kvmHost(g), WorkloadMixed, DBNone)
	if !strings.Contains(f.Current, "hdb (/data/db2.img, line 30): bus=ide (emulated)") || strings.Contains(f.Current, "cdrom") || strings.Contains(f.Current, "sda") {
		t.Errorf("%+v", f)
	}
	// SCSI on an emulated LSI controller; on virtio-scsi it is fine.
	s := guest("db3")
	s.Disks[0].Bus = "scsi"
	s.Controllers = []snapshot.GuestController{{Type: "scsi", Model: "lsilogic"}}
	if f := fires(t, id, kvmHost(s), WorkloadMixed, DBNone); !strings.Contains(f.Current, "emulated lsilogic controller") {
		t.Errorf("%+v", f)
	}
	s.Controllers = []snapshot.GuestController{{Type: "scsi", Model: "virtio-scsi"}}
	quiet(t, id, kvmHost(s), WorkloadMixed, DBNone)
	quiet(t, id, kvmHost(guest("db1")), WorkloadMixed, DBNone)
	virtNoGuests(t, id)
}
