package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestHugepagesTooFew(t *testing.T) {
	const id = "memory.hugepages-too-few"
	sga := func(huge bool, total, free int64) *snapshot.Snapshot {
		s := host()
		s.Processes = []snapshot.Process{{PID: 100, Comm: "ora_pmon_ORCL", Engine: "oracle", UID: 54321, MemsAllowed: []int{0, 1}}}
		s.Memory.SysVShm = []snapshot.ShmSegment{{ShmID: 1, SizeBytes: 24 << 30, UID: 54321, CPID: 100, Huge: ptr(huge)}}
		s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: total, Free: free, Default: true}, {SizeKB: 1 << 20}}
		for i := range s.Topology.Nodes {
			s.Topology.Nodes[i].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048, Total: total / 2, Free: free / 2}}
		}
		return s
	}
	t.Run("no pool for a 24 GiB SGA: page count per node", func(t *testing.T) {
		f := fires(t, id, sga(false, 0, 0), WorkloadOLTP, DBOracle)
		if f.Setting != "vm.nr_hugepages" || f.Recommended != "vm.nr_hugepages ≥ 12288 (12288 more); per node on nodes 0-1: 6144 each" ||
			f.Fix.Runtime[0] != "sysctl -w vm.nr_hugepages=12288" || len(f.Fix.Runtime) != 3 || !strings.Contains(f.Why, "13 %") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("pool with room but SGA in small pages: the database setting", func(t *testing.T) {
		f := fires(t, id, sga(false, 20000, 20000), WorkloadOLTP, DBOracle)
		if f.Setting != "oracle:use_large_pages" || f.Recommended != "ONLY" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("SGA in hugepages passes", func(t *testing.T) {
		quiet(t, id, sga(true, 12300, 12), WorkloadOLTP, DBOracle)
	})
	t.Run("alert log: fewer pages allocated than expected", func(t *testing.T) {
		s := sga(true, 12300, 12)
		s.Memory.SysVShm = nil
		exp, alloc := int64(20000), int64(12288)
		set := &artifacts.Set{AlertLogs: []*artifacts.AlertLog{{File: "alert_ORCL.log", Startups: []*artifacts.Startup{{
			SGA: &artifacts.SGADump{Line: 42, PageSizes: []artifacts.SGAPageSize{{PageSizeKB: 2048, Expected: &exp, Allocated: &alloc}}}}}}}}
		r, _ := Lookup(id)
		rep := RunRules([]Rule{r}, &Input{Snap: s, Workload: WorkloadOLTP, DB: DBOracle, Artifacts: set})
		if len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Evidence, "alert_ORCL.log:42") ||
			!strings.HasPrefix(rep.Findings[0].Recommended, "vm.nr_hugepages ≥ 20000") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("no database shared memory: not applicable", func(t *testing.T) {
		s := sga(false, 0, 0)
		s.Memory.SysVShm = nil
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("hugepages absent: cannot check", func(t *testing.T) {
		s := sga(false, 0, 0)
		s.Memory.Hugepages = nil
		absent(s, "memory.hugepages", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "memory.hugepages")
	})
}
