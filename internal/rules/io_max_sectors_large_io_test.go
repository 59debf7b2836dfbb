package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestIOMaxSectorsLargeIO(t *testing.T) {
	const id = "io.max-sectors-large-io"
	s := sanHost()
	// sda: 512 of 32767 → 1024; nvme0n1: its hardware limit is 128 (passes); the multipath paths are not this rule's.
	dev(t, s, "sda").Holders = []string{"dm-3"}
	s.Storage.Devices = append(s.Storage.Devices, disk("dm-3", false, "none"))
	s.Storage.Devices[len(s.Storage.Devices)-1].Kind = "dm"
	f := fires(t, id, s, WorkloadDSS, DBOracle)
	wantChange(t, f, change.Sysfs, "/sys/block/sda/queue/max_sectors_kb", "1024", "512")
	if len(f.Changes) != 1 || f.Severity != SevInfo || !strings.Contains(f.Risk, "dm-3 keep the limit") || !strings.Contains(f.Recommended, "up to 32767") {
		t.Fatalf("%+v", f)
	}
	if rep := run(t, id, s, WorkloadDSS, DBOracle); len(rep.Findings) != 1 {
		t.Fatalf("%+v", rep.Findings)
	}
	// Applied: quiet, and held.
	dev(t, s, "sda").MaxSectorsKB = i64(1024)
	if rep := quiet(t, id, s, WorkloadDSS, DBOracle); len(rep.Holds) != 1 || !strings.Contains(rep.Passed[0].Reason, "sda 1024 KB") ||
		!strings.Contains(rep.Passed[0].Reason, "nvme0n1 128 KB (its max_hw_sectors_kb 128 is the limit)") {
		t.Fatalf("%+v", rep)
	}
	// Not for OLTP: small random I/O.
	if rep := quiet(t, id, sanHost(), WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// Unknown limits: could not check.
	s = sanHost()
	s.Storage.Devices = s.Storage.Devices[3:4]
	s.Storage.Devices[0].MaxHWSectorsKB = nil
	absent(s, "storage.devices[sda].max_sectors_kb", "permission denied")
	cannot(t, id, s, WorkloadDSS, DBOracle, "permission denied")
}
