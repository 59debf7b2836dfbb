package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestPGShmSpread(t *testing.T) {
	const id = "numa.pg-shm-spread"
	s := liveHost(0, 0)
	pgLive(s)
	// Backends bound to node 1's CPUs, 80 % of the segment on node 0.
	postmaster(s, "/srv/pg/data", []int{0, 1}, []snapshot.NodeMem{{Node: 0, HugeKB: 8 << 20}, {Node: 1, HugeKB: 2 << 20}}, []int{4, 5}, []int{6, 7})
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Current, "80 %") || !strings.Contains(f.Recommended, "--membind=1") {
		t.Fatalf("%+v", f)
	}
	// Backends on every node: a spread segment is right.
	s.Processes[2].CPUsAllowed = []int{0, 1, 2, 3}
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// Segment on the backends' node: quiet.
	s.Processes[2].CPUsAllowed = []int{4, 5}
	s.Processes[0].NUMA = []snapshot.NodeMem{{Node: 1, HugeKB: 10 << 20}}
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// numa_maps not read (not root): could not check.
	s.Processes[0].NUMA = nil
	absent(s, "processes.numa", "permission denied (run as root to read it)")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "permission denied")
}
