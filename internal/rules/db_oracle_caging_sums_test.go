package rules

import (
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
	artQuiet(t, runArt(t, id, host(), artSet(t, "initCDB1.ora", "initBDT12c1.ora"), DBOracle), "passed")
	s := host()
	s.Processes = []snapshot.Process{{PID: 10, Comm: "ora_pmon_BDT12c1_1", Engine: "oracle", Role: "pmon", Instance: "BDT12c1_1"}}
	fs = artFires(t, runArt(t, id, s, artSet(t, "initCDB1.ora", "initBDT12c1.ora"), DBOracle))
	if !strings.HasPrefix(fs[0].Current, "sum(cpu_count) = 12 over 2 instances") {
		t.Fatalf("%+v", fs)
	}

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
