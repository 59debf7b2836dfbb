package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestIOReadAhead(t *testing.T) {
	const id = "io.read-ahead"
	s := sanHost()
	rep := run(t, id, s, WorkloadDSS, DBOracle)
	got := map[string]bool{}
	for _, f := range rep.Findings {
		got[f.Setting] = true
	}
	// dm-0, nvme0n1 and sda are top-level; sdb and sdc are paths.
	if len(got) != 3 || got["/sys/block/sdb/queue/read_ahead_kb"] || !got["/sys/block/dm-0/queue/read_ahead_kb"] {
		t.Fatalf("%v", got)
	}
	wantChange(t, rep.Findings[0], change.Sysfs, strings.Replace(rep.Findings[0].Setting, "{", "", 1), "4096", "-")
	if f := rep.Findings[0]; f.Recommended != "4096 KB" || !strings.Contains(f.Fix.Runtime[0], "blockdev --setra 8192") {
		t.Fatalf("%+v", f)
	}
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal("oltp must be n/a")
	}
	for _, n := range []string{"dm-0", "nvme0n1", "sda"} {
		dev(t, s, n).ReadAheadKB = i64(4096)
	}
	quiet(t, id, s, WorkloadDSS, DBOracle)

	s.Storage.Devices = s.Storage.Devices[3:4]
	s.Storage.Devices[0].ReadAheadKB = nil
	absent(s, "storage.devices[sda].read_ahead_kb", "permission denied")
	cannot(t, id, s, WorkloadDSS, DBOracle, "permission denied")
}
