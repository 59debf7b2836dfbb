package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestOracleCagingSums(t *testing.T) {
	const id = "db.oracle-caging-sums"
	// Three instances on an 8-thread host: 6 + 4 + 1 = 11 > 8; CDB2 has no
	// plan (caging off); CDB3 has cpu_count 1.
	fs := artFires(t, runArt(t, id, host(), artSet(t, "initCDB1.ora", "initCDB2.ora", "initCDB3.ora"), DBOracle))
	var sum, plan, low bool
	for _, f := range fs {
		switch {
		case strings.HasPrefix(f.Current, "sum(cpu_count) = 11 over 3 instances, host has 8"):
			sum = strings.Contains(f.Evidence, "CDB2 cpu_count=4 (initCDB2.ora:5) [not caged: no resource_manager_plan]") && len(f.Fix.Runtime) == 3 &&
				f.Fix.Runtime[0] == "ALTER SYSTEM SET cpu_count=4 SCOPE=BOTH SID='CDB1';"
		case f.Setting == "oracle:resource_manager_plan":
			plan = strings.Contains(f.Current, "CDB2") && strings.Contains(f.Fix.Runtime[0], "SID='CDB2'")
		case f.Setting == "oracle:cpu_count" && strings.HasPrefix(f.Current, "1 "):
			low = strings.Contains(f.Evidence, "initCDB3.ora:4")
		}
	}
	if !sum || !plan || !low || len(fs) != 3 {
		t.Fatalf("sum %v plan %v low %v: %+v", sum, plan, low, fs)
	}

	// One caged instance within the threads: passes.
	artQuiet(t, runArt(t, id, host(), artSet(t, "initCDB1.ora"), DBOracle), "passed")

	// A RAC pfile counts once: its smallest cpu_count (2) when the local
	// instance is unknown (6 + 2 = 8, fine), its local instance's (6) when known.
	// (The pfile's processor_group_name left out: unbound, it shares the host.)
	rac, err := os.ReadFile(filepath.Join("testdata", "artifacts", "initBDT12c1.ora"))
	if err != nil {
		t.Fatal(err)
	}
	unbound := "initBDT12c1.ora=" + strings.Replace(string(rac), "*.processor_group_name='oracle'\n", "", 1)
	artQuiet(t, runArt(t, id, host(), artSet(t, "initCDB1.ora", unbound), DBOracle), "passed")
	s := host()
	s.Processes = []snapshot.Process{{PID: 10, Comm: "ora_pmon_BDT12c1_1", Engine: "oracle", Role: "pmon", Instance: "BDT12c1_1"}}
	fs = artFires(t, runArt(t, id, s, artSet(t, "initCDB1.ora", unbound), DBOracle))
	if !strings.HasPrefix(fs[0].Current, "sum(cpu_count) = 12 over 2 instances") {
		t.Fatalf("%+v", fs)
	}
	// Bound (processor_group_name 'oracle') and caged: 001's mix, summed
	// against its group's cpuset, not the host's 8 threads.
	artQuiet(t, runArt(t, id, s, artSet(t, "initCDB1.ora", "initBDT12c1.ora"), DBOracle), "passed")

	// cpu_count = 0 is Oracle's "derive it": neither below 2 nor caged.
	artQuiet(t, runArt(t, id, host(), artSet(t, "initZ.ora=*.db_name=Z\n*.cpu_count=0\n"), DBOracle), "passed")
	// No artifacts, or another database: not applicable.
	artQuiet(t, runArt(t, id, host(), nil, DBOracle), "n/a")
	artQuiet(t, runArt(t, id, host(), artSet(t, "initCDB2.ora"), DBPostgres), "n/a")
	// Unknown CPU count: the sum is not compared (no guess), the rest still checked.
	s = host()
	s.Topology.CPUsOnline, s.Topology.CPUs = nil, nil
	absent(s, "topology.cpus", "unreadable")
	r := artQuiet(t, runArt(t, id, s, artSet(t, "initCDB1.ora", "initX.ora=*.cpu_count=4\n*.resource_manager_plan=DEFAULT_PLAN\n"), DBOracle), "passed")
	if !strings.Contains(r, "not compared") {
		t.Fatal(r)
	}
}

// TestOracleCagingSumsRACMerged: the two instances of a RAC spfile without a
// plan give one finding naming both.
func TestOracleCagingSumsRACMerged(t *testing.T) {
	fs := artFires(t, runArt(t, "db.oracle-caging-sums", host(), artSet(t, "initRAC.ora=*.db_name=R\n*.cluster_database=true\n"+
		"R1.instance_number=1\nR2.instance_number=2\n*.cpu_count=4\n"), DBOracle))
	if len(fs) != 1 || !strings.Contains(fs[0].Current, "(instances R1, R2): caging is off") {
		t.Fatalf("%+v", fs)
	}
}

// TestOracleCagingSumsBinding: issue 27 item 3. processor_group_name is
// binding: no plan asked for (that would turn it into caging); caged
// instances sharing a processor group are summed against its cpuset.
func TestOracleCagingSumsBinding(t *testing.T) {
	const id = "db.oracle-caging-sums"
	// 001's binding: processor_group_name and cpu_count, no plan.
	bound := "initB1.ora=*.db_name=B1\n*.processor_group_name='oracle'\n*.cpu_count=9\n"
	r := artQuiet(t, runArt(t, id, host(), artSet(t, bound), DBOracle), "passed")
	wantIn(t, "passed", r, "bound to processor group oracle", "binding, not caging")
	// The same without the group: cpu_count alone is caging switched off.
	fs := artFires(t, runArt(t, id, host(), artSet(t, "initB1.ora=*.db_name=B1\n*.cpu_count=9\n"), DBOracle))
	if fs[0].Setting != "oracle:resource_manager_plan" {
		t.Fatalf("%+v", fs)
	}
	// Bound with cpu_count 1 and no plan: not caged, so no "at least 2".
	artQuiet(t, runArt(t, id, host(), artSet(t, "initB1.ora=*.db_name=B1\n*.processor_group_name='oracle'\n*.cpu_count=1\n"), DBOracle), "passed")

	// Two instances caged in one 9-CPU group (cgconfig.conf): 6 + 6 > 9,
	// although the 8-thread host's sum is not theirs to judge.
	cg := "cgconfig.conf=group shared {\n    cpuset {\n        cpuset.mems = \"0\";\n        cpuset.cpus = \"1-9\";\n    }\n}\n"
	c1 := "initC1.ora=*.db_name=C1\n*.processor_group_name='shared'\n*.cpu_count=6\n*.resource_manager_plan='DEFAULT_PLAN'\n"
	c2 := "initC2.ora=*.db_name=C2\n*.processor_group_name='shared'\n*.cpu_count=6\n*.resource_manager_plan='DEFAULT_PLAN'\n"
	h := numaHost(8, 20)
	fs = artFires(t, runArt(t, id, h, artSet(t, c1, c2, cg), DBOracle))
	if len(fs) != 1 || !strings.Contains(fs[0].Current, "sum(cpu_count) = 12 over 2 instances caged in processor group shared, whose cpuset has 9 CPUs") ||
		!strings.Contains(fs[0].Evidence, "cgconfig.conf:4: group shared cpuset.cpus = 1-9") {
		t.Fatalf("%+v", fs)
	}
	// 4 + 4 in the 9-CPU group passes; the group's cpuset from the host's cgroups.
	c2small := strings.Replace(c2, "cpu_count=6", "cpu_count=3", 1)
	c1small := strings.Replace(c1, "cpu_count=6", "cpu_count=4", 1)
	cpus := "1-9"
	h.Cgroups.Groups = append(h.Cgroups.Groups, snapshot.CgroupGroup{Path: "/shared", Version: 1, CPUs: &cpus})
	r = artQuiet(t, runArt(t, id, h, artSet(t, c1small, c2small), DBOracle), "passed")
	wantIn(t, "passed", r, "sum(cpu_count) = 7 ≤ 9 CPUs of processor group shared")
	// The group's cpuset unknown: not compared, no guess.
	r = artQuiet(t, runArt(t, id, host(), artSet(t, c1, c2), DBOracle), "passed")
	wantIn(t, "passed", r, "processor group shared not compared: its cpuset is unknown")
}
