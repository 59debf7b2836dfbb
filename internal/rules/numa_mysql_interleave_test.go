package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestMySQLNUMAInterleave(t *testing.T) {
	const id = "numa.mysql-interleave"
	s := liveHost(0, 0)
	d := myLive(s)
	fires(t, id, s, WorkloadOLTP, DBMySQL)
	setLive(d, "innodb_numa_interleave=ON")
	quiet(t, id, s, WorkloadOLTP, DBMySQL)
	// A build without the variable: fires unless its memory is spread.
	setLive(d, "innodb_numa_interleave=!not present on this server (built without NUMA support)")
	f := fires(t, id, s, WorkloadOLTP, DBMySQL)
	if !strings.Contains(f.Current, "no innodb_numa_interleave") {
		t.Fatalf("%+v", f)
	}
	s.Processes = []snapshot.Process{{PID: 9, Comm: "mariadbd", Engine: "mariadb", Role: "server", Instance: "/srv/disk/mysql", MemsAllowed: []int{0, 1},
		NUMA: []snapshot.NodeMem{{Node: 0, TotalKB: 100}, {Node: 1, TotalKB: 110}}}}
	quiet(t, id, s, WorkloadOLTP, DBMySQL)
	// Bound to one node: not judged. One node: not applicable.
	s.Processes[0].MemsAllowed = []int{1}
	if rep := run(t, id, s, WorkloadOLTP, DBMySQL); len(rep.NotApplicable) != 1 {
		t.Errorf("%+v", rep)
	}
}
