package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestNUMABalancingWithDBShm(t *testing.T) {
	const id = "numa.balancing-with-db-shm"
	withSGA := func(huge *bool) *snapshot.Snapshot {
		s := host()
		s.Sysctl["kernel.numa_balancing"] = "1"
		s.Processes = []snapshot.Process{{PID: 100, Comm: "ora_pmon_ORCL", Engine: "oracle", UID: 54321}}
		s.Memory.SysVShm = []snapshot.ShmSegment{
			{ShmID: 1, SizeBytes: 24 << 30, UID: 54321, CPID: 100, Huge: huge},
			{ShmID: 2, SizeBytes: 8 << 30, UID: 1000, CPID: 5}, // another user's segment is not the DB's
		}
		return s
	}
	t.Run("SGA in small pages: warning citing 000", func(t *testing.T) {
		f := fires(t, id, withSGA(ptr(false)), WorkloadOLTP, DBOracle)
		wantChange(t, f, change.Sysctl, "kernel.numa_balancing", "0", "1")
		if f.Severity != SevWarning || f.Recommended != "0" || !strings.Contains(f.Why, "+27 % TPM of its Table 12 is the whole NUMA configuration") ||
			!strings.Contains(f.Why, "dbhost's own threshold (no source gives one): 1 GiB") ||
			!strings.Contains(f.Evidence, "24.0 GiB in 1 segment") || len(f.Sources) != 6 {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("SGA in hugepages: info citing 003", func(t *testing.T) {
		f := fires(t, id, withSGA(ptr(true)), WorkloadOLTP, DBOracle)
		if f.Severity != SevInfo || !strings.Contains(f.Why, "no performance difference") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("balancing off passes", func(t *testing.T) {
		s := withSGA(ptr(false))
		s.Sysctl["kernel.numa_balancing"] = "0"
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("small shared memory passes", func(t *testing.T) {
		s := host()
		s.Sysctl["kernel.numa_balancing"] = "1"
		s.Memory.SysVShm = []snapshot.ShmSegment{{SizeBytes: 64 << 20}}
		if rep := quiet(t, id, s, WorkloadMixed, DBNone); len(rep.Passed) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("single node: not applicable", func(t *testing.T) {
		s := withSGA(ptr(false))
		s.Topology.Nodes = s.Topology.Nodes[:1]
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("sysctl unreadable: cannot check", func(t *testing.T) {
		s := withSGA(ptr(false))
		delete(s.Sysctl, "kernel.numa_balancing")
		absent(s, "sysctl.kernel.numa_balancing", "permission denied (run as root to read it)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
	})
	t.Run("kernel before 3.8 (RHEL 6): not applicable", func(t *testing.T) {
		s := withSGA(ptr(false))
		delete(s.Sysctl, "kernel.numa_balancing")
		absent(s, "sysctl.kernel.numa_balancing", "not present on this host: automatic NUMA balancing came in Linux 3.8")
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 || !strings.Contains(rep.NotApplicable[0].Reason, "Linux 3.8") {
			t.Errorf("%+v", rep)
		}
	})
}
