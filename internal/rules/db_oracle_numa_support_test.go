package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
)

func TestOracleNUMASupport(t *testing.T) {
	const id = "db.oracle-numa-support"
	alert := func(enabled bool, nodes int) *artifacts.Set {
		return &artifacts.Set{AlertLogs: []*artifacts.AlertLog{{File: "alert_ORCL.log", Startups: []*artifacts.Startup{{SID: "ORCL",
			NUMA: &artifacts.NUMAInfo{Nodes: &nodes, Enabled: &enabled, Line: 120,
				Lines: []string{"NUMA system with 2 nodes detected", "Oracle NUMA support not enabled"}}}}}}}
	}
	runWith := func(set *artifacts.Set, db string) Report {
		r, _ := Lookup(id)
		return RunRules([]Rule{r}, &Input{Snap: host(), Workload: WorkloadOLTP, DB: db, Artifacts: set})
	}
	rep := runWith(alert(false, 2), DBOracle)
	if len(rep.Findings) != 1 {
		t.Fatalf("%+v", rep)
	}
	f := rep.Findings[0]
	if f.Setting != "oracle:_enable_NUMA_support" || f.Recommended != "TRUE" || !strings.Contains(f.Evidence, "alert_ORCL.log:120") ||
		!strings.Contains(f.Fix.Persistent[0], `"_enable_NUMA_support"=TRUE SCOPE=SPFILE SID='ORCL'`) {
		t.Fatalf("%+v", f)
	}
	if rep := runWith(alert(true, 2), DBOracle); len(rep.Findings) != 0 || len(rep.Passed) != 1 {
		t.Fatalf("enabled: %+v", rep)
	}
	if rep := runWith(alert(false, 2), DBPostgres); len(rep.NotApplicable) != 1 {
		t.Fatalf("postgres: %+v", rep)
	}
	if rep := runWith(nil, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatalf("no alert log: %+v", rep)
	}
	noNUMA := &artifacts.Set{AlertLogs: []*artifacts.AlertLog{{File: "a.log", Startups: []*artifacts.Startup{{SID: "X"}}}}}
	if rep := runWith(noNUMA, DBOracle); len(rep.CannotCheck) != 1 {
		t.Fatalf("no NUMA lines: %+v", rep)
	}
}
