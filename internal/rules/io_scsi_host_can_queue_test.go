package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// hbaHost is sanHost with its SAN paths sdb, sdc on FC adapters host1 and
// host2 (qla2xxx, can_queue 128 each) and the local SSD sda on host0
// (megaraid_sas, can_queue 1008).
func hbaHost(canQueue int64) *snapshot.Snapshot {
	s := sanHost()
	for i := range s.Storage.Devices {
		d := &s.Storage.Devices[i]
		switch d.Name {
		case "sda":
			d.SCSIHost = ptr(0)
		case "sdb":
			d.SCSIHost = ptr(1)
		case "sdc":
			d.SCSIHost = ptr(2)
		}
	}
	s.Storage.SCSIHosts = []snapshot.SCSIHost{{Host: 0, Driver: "megaraid_sas", CanQueue: i64(1008)},
		{Host: 1, Driver: "qla2xxx", CanQueue: i64(canQueue)}, {Host: 2, Driver: "qla2xxx", CanQueue: i64(canQueue)}}
	return s
}

func TestIOSCSIHostCanQueue(t *testing.T) {
	const id = "io.scsi-host-can-queue"
	// Paths at 64 on adapters taking 48: fires, per adapter, with no change (the DBA's call).
	s := hbaHost(48)
	rep := run(t, id, s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 2 {
		t.Fatalf("%+v", rep)
	}
	f := rep.Findings[0]
	if f.Setting != "/sys/class/scsi_host/host1/can_queue" || !strings.Contains(f.Current, "add up to 64") || len(f.Changes) != 0 ||
		f.Pending != PendingManual || !strings.Contains(f.Evidence, "host1 (qla2xxx)") || !strings.Contains(f.Recommended, "≥ 64") {
		t.Fatalf("%+v", f)
	}
	// Adapters that hold their devices' depths: quiet.
	if rep := quiet(t, id, hbaHost(2048), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "64 ≤ can_queue 2048") {
		t.Fatalf("%+v", rep)
	}
	// No adapter at all (NVMe only, a guest with virtio-blk): not applicable.
	none := sanHost()
	if rep := quiet(t, id, none, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// can_queue unreadable: could not check.
	s = hbaHost(48)
	for i := range s.Storage.SCSIHosts {
		s.Storage.SCSIHosts[i].CanQueue = nil
	}
	absent(s, "storage.scsi_hosts[host0].can_queue", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
}

// io.scsi-queue-depth never raises a path past its adapter's share, so
// following it cannot make io.scsi-host-can-queue fire.
func TestSCSIQueueDepthWithinCanQueue(t *testing.T) {
	s := hbaHost(100) // each path alone on its adapter: 100 left, not 128
	rep := run(t, "io.scsi-queue-depth", s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 3 { // sda to 128 (host0 has room), sdb and sdc to 100 (one finding each: different adapters)
		t.Fatalf("%+v", rep.Findings)
	}
	for _, f := range rep.Findings[1:] {
		if !strings.HasPrefix(f.Recommended, "100 (host") || !strings.Contains(f.Why, "can_queue") || f.Changes[0].Value != "100" {
			t.Fatalf("%+v", f)
		}
	}
	quiet(t, "io.scsi-host-can-queue", s, WorkloadOLTP, DBOracle)
	// Applied: both rules pass, and the depth is held at 100.
	for _, n := range []string{"sdb", "sdc"} {
		dev(t, s, n).QueueDepth = i64(100)
	}
	rep = run(t, "io.scsi-queue-depth", s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 1 || rep.Findings[0].Setting != "/sys/block/sda/device/queue_depth" { // only the SSD on host0
		t.Fatalf("%+v", rep.Findings)
	}
	quiet(t, "io.scsi-host-can-queue", s, WorkloadOLTP, DBOracle)
	held := 0
	for _, h := range rep.Holds {
		if h.Kind == change.Sysfs && h.Value == "100" {
			held++
		}
	}
	if held != 2 {
		t.Fatalf("holds %+v", rep.Holds)
	}
	// An adapter already full with a device the rule does not raise: nothing raised there.
	s = hbaHost(64)
	s.Storage.Devices = append(s.Storage.Devices, disk("sdd", true, "mq-deadline"))
	s.Storage.Devices[len(s.Storage.Devices)-1].SCSIHost = ptr(1)
	rep = run(t, "io.scsi-queue-depth", s, WorkloadOLTP, DBOracle)
	for _, f := range rep.Findings {
		if strings.Contains(f.Setting, "sdb") {
			t.Fatalf("sdb raised on a full adapter: %+v", f)
		}
	}
}
