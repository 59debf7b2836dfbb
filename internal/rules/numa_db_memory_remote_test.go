package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestDBMemoryRemote(t *testing.T) {
	const id = "numa.db-memory-remote"
	proc := func(cpus []int, n0, n1 int64) *snapshot.Snapshot {
		s := host()
		s.Processes = []snapshot.Process{{PID: 4242, Comm: "postgres", Engine: "postgres", CPUsAllowed: cpus,
			NUMA: []snapshot.NodeMem{{Node: 0, TotalKB: n0}, {Node: 1, TotalKB: n1}}}}
		return s
	}
	t.Run("bound to node 0 with memory on node 1 fires", func(t *testing.T) {
		f := fires(t, id, proc([]int{0, 1, 2, 3}, 1<<20, 7<<20), WorkloadOLTP, DBPostgres)
		if !strings.HasPrefix(f.Current, "88 % of 8.0 GiB") || !strings.Contains(f.Fix.Runtime[0], "migratepages 4242 1 0") ||
			f.Setting != "process:postgres[4242] memory nodes" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("local memory passes", func(t *testing.T) {
		quiet(t, id, proc([]int{0, 1, 2, 3}, 7<<20, 1<<20), WorkloadOLTP, DBPostgres)
	})
	t.Run("unbound process is not judged", func(t *testing.T) {
		quiet(t, id, proc([]int{0, 1, 2, 3, 4, 5, 6, 7}, 1<<20, 7<<20), WorkloadOLTP, DBPostgres)
	})
	t.Run("other engine's processes are ignored", func(t *testing.T) {
		if rep := quiet(t, id, proc([]int{0, 1, 2, 3}, 1<<20, 7<<20), WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("numa_maps not read: cannot check", func(t *testing.T) {
		s := proc([]int{0, 1, 2, 3}, 0, 0)
		s.Processes[0].NUMA = nil
		cannot(t, id, s, WorkloadOLTP, DBPostgres, "run as root")
	})
}
