package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestIOSCSIQueueDepth(t *testing.T) {
	const id = "io.scsi-queue-depth"
	s := sanHost()
	rep := run(t, id, s, WorkloadOLTP, DBOracle)
	// sda (DELL SSD), and sdb, sdc (SAN paths, one finding) at 64.
	if len(rep.Findings) != 2 {
		t.Fatalf("%+v", rep.Findings)
	}
	f := rep.Findings[1]
	wantChange(t, f, change.Sysfs, "/sys/block/sdb/device/queue_depth", "128", "64")
	wantChange(t, f, change.Sysfs, "/sys/block/sdc/device/queue_depth", "128", "64")
	if f.Setting != "/sys/block/{sdb,sdc}/device/queue_depth" || f.Recommended != "128" || !strings.Contains(f.Evidence, "one of 2 paths of dm-0") ||
		len(f.Fix.Runtime) != 2 ||
		!strings.Contains(f.Fix.Edits[0].Edit, `ATTRS{vendor}=="NETAPP*"`) || !strings.Contains(f.Risk, "num_cmd_elems") {
		t.Fatalf("%+v", f)
	}
	for _, n := range []string{"sda", "sdb", "sdc"} {
		dev(t, s, n).QueueDepth = i64(128)
	}
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	// SATA SSD: NCQ caps it at 32; not a finding.
	s = sanHost()
	s.Storage.Devices = s.Storage.Devices[3:4]
	s.Storage.Devices[0].Vendor = "ATA"
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	s = sanHost()
	s.Storage.Devices = s.Storage.Devices[3:4]
	s.Storage.Devices[0].QueueDepth = nil
	absent(s, "storage.devices[sda].queue_depth", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
}
