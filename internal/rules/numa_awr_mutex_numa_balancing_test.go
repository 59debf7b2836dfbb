package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAWRMutexNUMABalancing(t *testing.T) {
	const id = "numa.awr-mutex-numa-balancing"
	r := awrTestReport(t, "awrrpt_1_412_413_12102.txt") // 000 Table 10 on an 8-socket host

	// The report alone shows the symptom; the kernel decides.
	awrOutcome(t, id, "cannot", "kernel.numa_balancing and the /proc/vmstat page migrations", nil, r)
	rep := awrRun(t, id, nil, r)
	wantIn(t, "reason", rep.CannotCheck[0].Reason, "mutex and latch waits: 6.1 % of DB time", "library cache: mutex X: 862670 waits",
		"34.7 % of DB time is in no wait event while the CPUs were not saturated", "the report's host: 8 sockets")

	h := numaHost(8, 30)
	h.Host.Hostname = "sdx-db01"
	h.Sysctl["kernel.numa_balancing"] = "1"
	h.Memory.Vmstat = map[string]int64{"numa_pages_migrated": 36000000, "numa_hint_faults": 90000000}
	h.CollectedAt = time.Unix(1426155600, 0)
	h.CPULoad.BootTime = 1426155600 - 36000
	f := awrFires(t, id, h, r)
	if f.Setting != "kernel.numa_balancing" || f.Current != "1" || f.Recommended != "0" {
		t.Errorf("%+v", f)
	}
	wantIn(t, "evidence", f.Evidence, "this host: 8 NUMA nodes", "numa_pages_migrated 36000000 since boot (10h 0m ago: 1000 pages/s on average)", "numa_hint_faults 90000000")
	if len(f.Fix.Runtime) == 0 || !strings.Contains(f.Fix.Runtime[0], "kernel.numa_balancing=0") {
		t.Errorf("fix %+v", f.Fix)
	}

	if f.Severity != SevWarning {
		t.Errorf("severity %q with no SGA seen in hugepages", f.Severity)
	}

	// The migration counters decide: balancing on, but no page migrated
	// since boot (issue 26): no process waited on a migration.
	h.Memory.Vmstat = map[string]int64{"numa_pages_migrated": 0, "numa_hint_faults": 0}
	awrOutcome(t, id, "passed", "numa_pages_migrated 0 since boot (10h 0m ago", h, r)
	h.Memory.Vmstat = nil
	absent(h, "memory.vmstat", "permission denied")
	awrOutcome(t, id, "cannot", "whether NUMA balancing migrates pages", h, r)
	h.Absent = nil
	h.Memory.Vmstat = map[string]int64{"numa_pages_migrated": 36000000}

	// The SGA in hugepages: info, as numa.balancing-with-db-shm rates it (003).
	h.Processes = []snapshot.Process{{PID: 100, Comm: "ora_pmon_ORCL", Engine: "oracle", UID: 54321}}
	h.Memory.SysVShm = []snapshot.ShmSegment{{ShmID: 1, SizeBytes: 24 << 30, UID: 54321, CPID: 100, Huge: ptr(true)}}
	f = awrFires(t, id, h, r)
	if f.Severity != SevInfo || !strings.Contains(f.Why, "no performance difference") {
		t.Errorf("SGA in hugepages: %q %s", f.Severity, f.Why)
	}
	if shm := fires(t, "numa.balancing-with-db-shm", h, WorkloadOLTP, DBOracle); shm.Severity != f.Severity {
		t.Errorf("numa.balancing-with-db-shm: %q, this rule %q", shm.Severity, f.Severity)
	}
	h.Memory.SysVShm[0].Huge = ptr(false)
	if f = awrFires(t, id, h, r); f.Severity != SevWarning {
		t.Errorf("SGA in 4 kB pages: %q", f.Severity)
	}
	h.Processes, h.Memory.SysVShm = nil, nil

	h.Sysctl["kernel.numa_balancing"] = "0"
	awrOutcome(t, id, "passed", "kernel.numa_balancing = 0 on this 8-node host", h, r)
	awrOutcome(t, id, "passed", "one NUMA node", numaHost(1, 8), r)
	delete(h.Sysctl, "kernel.numa_balancing")
	absent(h, "sysctl.kernel.numa_balancing", "not present on this kernel")
	awrOutcome(t, id, "cannot", "sysctl.kernel.numa_balancing", h, r)

	// No mutex waits and the unaccounted time on a 1-socket host (002's LOB test).
	awrOutcome(t, id, "passed", "1-socket host", nil, awrTestReport(t, "awrrpt_1_205_206_11203.txt"))
	// 001's binding test: 34 % of DB time missing on an idle host, but the
	// instance was bound to 6 CPUs: its run queue, not page migration.
	awrOutcome(t, id, "passed", "mutex and latch waits 0 %", nil, awrTestReport(t, "awrrpt_1_34_35_12102_binding.txt"))
}
