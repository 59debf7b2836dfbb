package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIOMaxNr(t *testing.T) {
	const id = "db.aio-max-nr"
	mk := func(max, used string) *snapshot.Snapshot {
		s := host()
		s.Sysctl["fs.aio-max-nr"] = max
		if used != "" {
			s.Sysctl["fs.aio-nr"] = used
		}
		return s
	}
	// The kernel default 65536 on an Oracle host.
	f := fires(t, id, mk("65536", "1024"), WorkloadOLTP, DBOracle)
	if f.Severity != SevWarning || f.Recommended != "≥ 1048576" || !strings.Contains(f.Why, "1048576") || !strings.Contains(f.Why, "EAGAIN") ||
		len(f.Changes) != 1 || f.Changes[0].Kind != change.Sysctl || f.Changes[0].Key != "fs.aio-max-nr" || f.Changes[0].Value != "1048576" || f.Changes[0].Current != "65536" {
		t.Fatalf("%+v", f)
	}
	// The same on a PostgreSQL host with little in use: fine.
	quiet(t, id, mk("65536", "1024"), WorkloadOLTP, DBPostgres)
	quiet(t, id, mk("1048576", "4096"), WorkloadOLTP, DBOracle)
	// 90 % in use on any database: fires with room to double.
	f = fires(t, id, mk("65536", "58982"), WorkloadOLTP, DBMySQL)
	if f.Severity != SevWarning || f.Changes[0].Value != "131072" || !strings.Contains(f.Current, "90 %") {
		t.Fatalf("%+v", f)
	}
	// 99 % in use on an Oracle host: critical, at least the Oracle minimum.
	f = fires(t, id, mk("1048576", "1040000"), WorkloadOLTP, DBOracle)
	if f.Severity != SevCritical || f.Changes[0].Value != "2097152" {
		t.Fatalf("%+v", f)
	}
	// aio-nr unknown: only the minimum is judged.
	quiet(t, id, mk("1048576", ""), WorkloadOLTP, DBOracle)
	fires(t, id, mk("65536", ""), WorkloadOLTP, DBOracle)
	// Not an integer, or absent: cannot check.
	cannot(t, id, mk("lots", "1"), WorkloadOLTP, DBOracle, "not an integer")
	na := host()
	absent(na, "sysctl.fs.aio-max-nr", "not present on this host")
	cannot(t, id, na, WorkloadOLTP, DBOracle, "not present")
}

// 004's formula: maxreqs above 4 × disks × queue_depth; it decides when it
// is above Oracle's 1048576.
func TestAIOMaxNrDiskFormula(t *testing.T) {
	const id = "db.aio-max-nr"
	s := host()
	s.Sysctl["fs.aio-max-nr"], s.Sysctl["fs.aio-nr"] = "1048576", "4096"
	for i := 0; i < 1100; i++ { // 1100 SAN LUN paths (local rotational disks here: their depth is kept) at 254
		d := disk(fmt.Sprintf("sd%d", i), true, "mq-deadline")
		d.QueueDepth = i64(254)
		s.Storage.Devices = append(s.Storage.Devices, d)
	}
	f := fires(t, id, s, WorkloadOLTP, DBOracle)
	// 4 × 1100 × 254 = 1117600; the next multiple of 4096 above it: 1118208.
	if f.Changes[0].Value != "1118208" || !strings.Contains(f.Why, "4 × disks × queue_depth") || !strings.Contains(f.Evidence, "4 × 279400 (the queue depths of 1100 disks)") {
		t.Fatalf("%+v", f)
	}
	s.Sysctl["fs.aio-max-nr"] = "1118208"
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.Holds) != 1 || rep.Holds[0].Value != "1118208" {
		t.Fatalf("%+v", rep)
	}
	// Few disks: Oracle's 1048576 stands; the formula is named in what passed.
	s = sanHost()
	s.Sysctl["fs.aio-max-nr"], s.Sysctl["fs.aio-nr"] = "1048576", "4096"
	rep := quiet(t, id, s, WorkloadOLTP, DBOracle)
	// sda, sdb, sdc raised to 128 by io.scsi-queue-depth count at 128; nvme0n1 its nr_requests 1023.
	if !strings.Contains(rep.Passed[0].Reason, "4 × 1407 (the queue depths of 4 disks)") {
		t.Fatalf("%+v", rep.Passed)
	}
	// The formula is Oracle's (004): not applied to other databases.
	s.Sysctl["fs.aio-max-nr"] = "65536"
	quiet(t, id, s, WorkloadOLTP, DBMySQL)
}
