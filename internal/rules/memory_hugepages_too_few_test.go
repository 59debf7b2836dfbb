package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/change"
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
		if len(f.Changes) == 0 || f.Changes[0].Rule != id || f.Changes[0].Kind == change.BootArg || !strings.HasSuffix(f.Changes[0].Key, "nr_hugepages") {
			t.Fatalf("%+v", f.Changes)
		}
		if f.Setting != "vm.nr_hugepages" || f.Recommended != "vm.nr_hugepages ≥ 12288 (12288 more); per node: node0 6144, node1 6144" ||
			f.Fix.Runtime[1] != "echo 6144 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages" ||
			f.Fix.Edits[0].String() != "edit "+SysctlDropIn+": add vm.nr_hugepages = 12288" || !strings.Contains(f.Fix.Persistent[0], "hugepages=0:6144,1:6144") ||
			!strings.Contains(f.Fix.Edits[1].String(), "edit /etc/security/limits.d/99-oracle.conf: add oracle soft memlock 25165824") || !strings.Contains(f.Why, "13 %") {
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
	t.Run("bound to a node whose pool is exhausted", func(t *testing.T) {
		s := sga(false, 30000, 12300) // globally enough free pages ...
		s.Processes[0].MemsAllowed = []int{0}
		s.Topology.Nodes[0].Hugepages[0].Free = 0 // ... but none on node 0, where the instance may allocate
		s.Topology.Nodes[1].Hugepages[0].Free = 12300
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		// node 0 has 15000 pages, all used: it needs the SGA's 12288 more; node 1 is left alone.
		if f.Setting != "vm.nr_hugepages" || !strings.Contains(f.Evidence, "only on node(s) 0: 0 free pages") ||
			f.Recommended != "vm.nr_hugepages ≥ 42288 (12288 more); per node: node0 27288" || len(f.Fix.Runtime) != 1 {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("postgresql.conf shared_buffers without hugepages", func(t *testing.T) {
		s := host()
		s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Default: true}}
		c, errs := artifacts.ParsePGConf([]byte("# tuned by hand\nshared_buffers = 8GB\nhuge_pages = try\n"))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		c.File = "postgresql.conf"
		for i := range c.Entries {
			c.Entries[i].File = "postgresql.conf"
		}
		r, _ := Lookup(id)
		rep := RunRules([]Rule{r}, &Input{Snap: s, Workload: WorkloadOLTP, DB: DBPostgres, Artifacts: &artifacts.Set{PGConfs: []*artifacts.PGConf{c}}})
		// Not shared_buffers alone (4096 pages: a huge_pages = on server would
		// not start): 8 GiB + 2.5 % + wal_buffers 16 MiB + 16 MiB + 64 KiB × 100.
		if len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Evidence, "postgresql.conf:2: shared_buffers = 8GB") ||
			!strings.HasPrefix(rep.Findings[0].Recommended, "vm.nr_hugepages ≥ 4218") {
			t.Fatalf("%+v", rep)
		}
		// PostgreSQL's own count, when the file carries it, is taken as is.
		c2, _ := artifacts.ParsePGConf([]byte("shared_buffers = 8GB\nshared_memory_size_in_huge_pages = 4150\n"))
		rep = RunRules([]Rule{r}, &Input{Snap: s, Workload: WorkloadOLTP, DB: DBPostgres, Artifacts: &artifacts.Set{PGConfs: []*artifacts.PGConf{c2}}})
		if len(rep.Findings) != 1 || !strings.HasPrefix(rep.Findings[0].Recommended, "vm.nr_hugepages ≥ 4150") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("each segment takes whole pages", func(t *testing.T) {
		// Three 1 MiB segments need three 2 MiB pages, not the two their total would give.
		s := sga(false, 0, 0)
		s.Memory.SysVShm = nil
		for n := int64(1); n <= 3; n++ {
			s.Memory.SysVShm = append(s.Memory.SysVShm, snapshot.ShmSegment{ShmID: n, SizeBytes: 1 << 20, UID: 54321, CPID: 100, Huge: ptr(false)})
		}
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if !strings.HasPrefix(f.Recommended, "vm.nr_hugepages ≥ 3 (3 more)") || !strings.Contains(f.Evidence, "3 pages of 2.0 MiB, each segment rounded up") {
			t.Fatalf("%+v", f)
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

// Issue 25: a database whose Mems_allowed includes coherent GPU memory
// (POWER9, node 252) or an NVDIMM onlined as RAM gets hugepages sized on
// its DRAM nodes only: no per-node pool is proposed on node 252.
func TestHugepagesTooFewNeverOnDeviceMemory(t *testing.T) {
	for _, kind := range []string{snapshot.NodeKindMovable, snapshot.NodeKindPMEM} {
		t.Run(kind, func(t *testing.T) {
			s := host()
			s.Topology.Nodes[0].Kind, s.Topology.Nodes[1].Kind = snapshot.NodeKindDRAM, snapshot.NodeKindDRAM
			s.Topology.Nodes = append(s.Topology.Nodes, snapshot.Node{ID: 252, Online: true, HasMemory: true, CPUs: []int{}, Kind: kind,
				KindEvidence: []string{"a file"}, MemTotalKB: ptr(int64(16 << 20)), MemFreeKB: ptr(int64(16 << 20))})
			s.Processes = []snapshot.Process{{PID: 100, Comm: "ora_pmon_ORCL", Engine: "oracle", UID: 54321, MemsAllowed: []int{0, 1, 252}}}
			s.Memory.SysVShm = []snapshot.ShmSegment{{ShmID: 1, SizeBytes: 24 << 30, UID: 54321, CPID: 100, Huge: ptr(false)}}
			s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: 0, Free: 0, Default: true}, {SizeKB: 1 << 20}}
			for i := range s.Topology.Nodes {
				s.Topology.Nodes[i].Hugepages = []snapshot.NodeHugepages{{SizeKB: 2048}}
			}
			f := fires(t, "memory.hugepages-too-few", s, WorkloadOLTP, DBOracle)
			if !strings.HasSuffix(f.Recommended, "per node: node0 6144, node1 6144") {
				t.Errorf("recommended %q: the SGA's pages on DRAM nodes 0 and 1 only", f.Recommended)
			}
			for _, c := range f.Changes {
				if strings.Contains(c.Key, "node252") {
					t.Errorf("change %+v sizes hugepages on node 252 (%s)", c, kind)
				}
			}
		})
	}
}
