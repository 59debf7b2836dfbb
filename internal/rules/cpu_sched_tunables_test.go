package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestCPUSchedTunables(t *testing.T) {
	const id = "cpu.sched-tunables"
	s := host()
	s.Host.Kernel = "4.18.0-513.el8.x86_64"
	s.Sysctl["kernel.sched_min_granularity_ns"] = "3000000"    // 8 CPUs' default
	s.Sysctl["kernel.sched_wakeup_granularity_ns"] = "4000000" // default
	s.Sysctl["kernel.sched_migration_cost_ns"] = "500000"      // default
	// OLTP → latency-performance: min granularity and migration cost.
	rep := run(t, id, s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 2 {
		t.Fatalf("%+v", rep)
	}
	wantChange(t, rep.Findings[0], change.Sysctl, "kernel.sched_migration_cost_ns", "5000000", "500000")
	wantChange(t, rep.Findings[1], change.Sysctl, "kernel.sched_min_granularity_ns", "10000000", "3000000")
	if f := rep.Findings[0]; f.Severity != SevInfo || !strings.Contains(f.Recommended, "latency-performance") {
		t.Fatalf("%+v", f)
	}
	// DSS → throughput-performance: min and wakeup granularity, no migration cost.
	rep = run(t, id, s, WorkloadDSS, DBOracle)
	if len(rep.Findings) != 2 || rep.Findings[0].Setting != "kernel.sched_min_granularity_ns" || rep.Findings[1].Setting != "kernel.sched_wakeup_granularity_ns" {
		t.Fatalf("%+v", rep.Findings)
	}
	// A KVM host (virtual-host): migration cost as well.
	s.Host.Virt.KVMGuests = ptr(2)
	if rep := run(t, id, s, WorkloadDSS, DBNone); len(rep.Findings) != 3 {
		t.Fatalf("%+v", rep.Findings)
	}
	// At or above the tables' values: quiet (a minimum, not an exact value).
	s.Sysctl["kernel.sched_min_granularity_ns"] = "10000000"
	s.Sysctl["kernel.sched_wakeup_granularity_ns"] = "24000000"
	s.Sysctl["kernel.sched_migration_cost_ns"] = "5000000"
	if rep := quiet(t, id, s, WorkloadDSS, DBNone); len(rep.Passed) != 1 || len(rep.Holds) != 2 {
		t.Fatalf("%+v", rep)
	}
	// Linux 5.13+: the sysctls are gone (debugfs): not applicable.
	s = host()
	for _, k := range []string{"kernel.sched_min_granularity_ns", "kernel.sched_wakeup_granularity_ns", "kernel.sched_migration_cost_ns"} {
		absent(s, "sysctl."+k, "not present on this host: Linux 5.13 moved it to debugfs")
	}
	if rep := quiet(t, id, s, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 || !strings.Contains(rep.NotApplicable[0].Reason, "5.13") {
		t.Fatalf("%+v", rep)
	}
	// Unreadable: could not check.
	s = host()
	absent(s, "sysctl.kernel.sched_min_granularity_ns", "permission denied")
	absent(s, "sysctl.kernel.sched_migration_cost_ns", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBNone, "permission denied")
}
