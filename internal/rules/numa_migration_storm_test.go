package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestMigrationStorm(t *testing.T) {
	const id = "numa.migration-storm"
	// Times are relative to an arbitrary instant: only the difference matters.
	at := time.Unix(2_000_000_000, 0)
	mk := func(bal string, migrated int64, upSec int64) *snapshot.Snapshot {
		s := host()
		s.Sysctl["kernel.numa_balancing"] = bal
		s.CollectedAt = at
		s.CPULoad.BootTime = at.Unix() - upSec
		s.Memory.Vmstat = map[string]int64{"numa_pages_migrated": migrated, "pgmigrate_success": migrated + 10,
			"numa_hint_faults": 4 * migrated, "numa_hint_faults_local": 2 * migrated}
		return s
	}
	// 10 days up, 2000 pages/s on average.
	f := fires(t, id, mk("1", 2000*864000, 864000), WorkloadOLTP, DBOracle)
	if f.Severity != SevWarning || !strings.Contains(f.Current, "2000 NUMA page migrations/s") ||
		!strings.Contains(f.Evidence, "average since boot") || !strings.Contains(f.Evidence, "dbhost numa --interval") ||
		!strings.Contains(f.Evidence, "10d 0h ago") || !strings.Contains(f.Evidence, "50 % local") {
		t.Fatalf("%+v", f)
	}
	if len(f.Changes) != 1 || f.Changes[0].Kind != change.Sysctl || f.Changes[0].Key != "kernel.numa_balancing" || f.Changes[0].Value != "0" || f.Changes[0].Current != "1" {
		t.Fatalf("%+v", f.Changes)
	}
	// The same count over a much longer uptime is below the threshold.
	if rep := quiet(t, id, mk("1", 2000*864000, 864000*100), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "average since boot") {
		t.Fatalf("%+v", rep)
	}
	// Balancing off and nothing migrated: passes without needing a time.
	off := mk("0", 0, 0)
	off.CPULoad.BootTime = 0
	if rep := quiet(t, id, off, WorkloadOLTP, DBOracle); len(rep.Passed) != 1 {
		t.Fatalf("%+v", rep)
	}
	// Balancing off now but many migrations since boot: info, no change.
	f = fires(t, id, mk("0", 2000*3600, 3600), WorkloadOLTP, DBOracle)
	if f.Severity != SevInfo || len(f.Changes) != 0 {
		t.Fatalf("%+v", f)
	}
	// Kernel without NUMA balancing counters: not applicable.
	nob := mk("1", 0, 100)
	delete(nob.Memory.Vmstat, "numa_pages_migrated")
	if rep := quiet(t, id, nob, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// Boot time absent: cannot check.
	nbt := mk("1", 5000, 100)
	nbt.CPULoad.BootTime = 0
	absent(nbt, "cpu_load.boot_time", "no btime line")
	cannot(t, id, nbt, WorkloadOLTP, DBOracle, "no btime line")
	// Collected before boot: cannot check, no negative rate.
	neg := mk("1", 5000, -100)
	cannot(t, id, neg, WorkloadOLTP, DBOracle, "not after boot_time")
	// vmstat absent: cannot check.
	nv := mk("1", 5000, 100)
	nv.Memory.Vmstat = nil
	absent(nv, "memory.vmstat", "permission denied")
	cannot(t, id, nv, WorkloadOLTP, DBOracle, "permission denied")
	// One node: not applicable.
	one := mk("1", 2000*3600, 3600)
	one.Topology.Nodes = one.Topology.Nodes[:1]
	if rep := quiet(t, id, one, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
}
