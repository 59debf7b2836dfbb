package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtDiskCache(t *testing.T) {
	const id = "virt.disk-cache"
	bad := guest("db2")
	bad.Disks = append(bad.Disks,
		snapshot.GuestDisk{Type: "file", Device: "disk", Cache: "writethrough", Source: "/data/db2.img", Target: "vdb", Bus: "virtio", Line: 36},
		snapshot.GuestDisk{Type: "file", Device: "disk", Source: "/data/db2-redo.img", Target: "vdc", Bus: "virtio", Line: 41})
	f := fires(t, id, kvmHost(guest("db1"), bad), WorkloadMixed, DBNone)
	if !strings.Contains(f.Setting, "domain db2") || !strings.Contains(f.Current, "vdb (/data/db2.img, line 36): cache=writethrough") ||
		!strings.Contains(f.Current, "vdc (/data/db2-redo.img, line 41): no cache attribute (QEMU's default: writeback)") || strings.Contains(f.Current, "vda") {
		t.Errorf("%+v", f)
	}
	if rep := run(t, id, kvmHost(guest("db1"), bad), WorkloadMixed, DBNone); len(rep.Findings) != 1 {
		t.Errorf("findings %d, want one for db2", len(rep.Findings))
	}
	ok := guest("db1")
	ok.Disks[0].Cache = "directsync"
	quiet(t, id, kvmHost(ok), WorkloadMixed, DBNone)
	virtNoGuests(t, id)
	// An --artifact domain is judged the same way.
	rep := runWith(t, id, host(), &artifacts.Set{Domains: []*snapshot.Domain{&bad}})
	if len(rep.Findings) != 1 {
		t.Errorf("artifact: %+v", rep)
	}
}
