package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Test helpers of the AWR rules: the reports of internal/artifacts/testdata/awr
// (written for the tests after the documented layouts, numbers from the
// seeds' cases) and a runner with or without a host.

func awrTestReport(t *testing.T, name string) *artifacts.AWRReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "artifacts", "testdata", "awr", name))
	if err != nil {
		t.Fatal(err)
	}
	r, errs := artifacts.ParseAWR(b)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", name, errs)
	}
	r.File = name
	return r
}

// awrRun runs one rule on reports, with the host snap (nil: no host).
func awrRun(t *testing.T, id string, snap *snapshot.Snapshot, reps ...*artifacts.AWRReport) Report {
	t.Helper()
	r, ok := Lookup(id)
	if !ok {
		t.Fatalf("rule %s is not registered", id)
	}
	if !r.HostOptional {
		t.Fatalf("%s is not a report diagnosis", id)
	}
	rep := RunRules([]Rule{r}, &Input{Snap: snap, Workload: WorkloadOLTP, DB: DBOracle, Artifacts: &artifacts.Set{AWR: reps}})
	vetPasses(t, rep)
	return rep
}

// awrFires asserts that the rule fired (a complete finding of its id) and
// returns the first finding.
func awrFires(t *testing.T, id string, snap *snapshot.Snapshot, reps ...*artifacts.AWRReport) Finding {
	t.Helper()
	f := artFires(t, awrRun(t, id, snap, reps...))[0]
	if f.ID != id {
		t.Fatalf("finding of %s, want %s", f.ID, id)
	}
	return f
}

// awrOutcome asserts which list the rule's result is in ("passed",
// "cannot", "n/a") and that its reason mentions want.
func awrOutcome(t *testing.T, id, list, want string, snap *snapshot.Snapshot, reps ...*artifacts.AWRReport) {
	t.Helper()
	if reason := artQuiet(t, awrRun(t, id, snap, reps...), list); !strings.Contains(reason, want) {
		t.Fatalf("%s: %s reason %q does not mention %q", id, list, reason, want)
	}
}

func wantIn(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s does not mention %q:\n%s", what, w, s)
		}
	}
}

// oracleProc is one Oracle process of instance sid on the given CPUs and memory nodes.
func oracleProc(pid int, sid string, cpus, mems []int) snapshot.Process {
	return snapshot.Process{PID: pid, Comm: "ora_pmon_" + sid, Engine: "oracle", Role: "pmon", Instance: sid, UID: 54321, PPID: 1,
		CPUsAllowed: cpus, MemsAllowed: mems}
}

// Every report diagnosis is scoped to Oracle, runs without a host and
// leaves the audit alone when no report is given.
func TestAWRRulesCatalog(t *testing.T) {
	rs := AWRRules()
	if len(rs) < 10 {
		t.Fatalf("%d report rules", len(rs))
	}
	for _, r := range rs {
		if !strings.Contains(r.ID, ".awr-") || len(r.DBs) != 1 || r.DBs[0] != DBOracle {
			t.Errorf("%s: a report rule's id holds awr- and it applies to oracle", r.ID)
		}
		rep := RunRules([]Rule{r}, &Input{Snap: host(), Workload: WorkloadOLTP, DB: DBOracle})
		if len(rep.NotApplicable) != 1 || !strings.Contains(rep.NotApplicable[0].Reason, "no AWR or Statspack report") {
			t.Errorf("%s without a report: %+v", r.ID, rep)
		}
		rep = RunRules([]Rule{r}, &Input{Workload: WorkloadOLTP, DB: DBOracle, Artifacts: &artifacts.Set{AWR: []*artifacts.AWRReport{{File: "empty"}}}})
		for _, c := range rep.CannotCheck {
			if strings.Contains(c.Reason, "internal error") {
				t.Errorf("%s on an empty report: %s", r.ID, c.Reason)
			}
		}
		if len(rep.Findings) > 0 {
			t.Errorf("%s fired on an empty report: %+v", r.ID, rep.Findings)
		}
	}
	// Rules that are no report diagnosis still need a snapshot.
	other, _ := Lookup("memory.swappiness")
	if rep := RunRules([]Rule{other}, &Input{Workload: WorkloadOLTP, DB: DBOracle}); len(rep.CannotCheck) != 1 {
		t.Errorf("a host rule ran without a snapshot: %+v", rep)
	}
}

// Every test report through every report rule: no crash, and the
// findings are complete.
func TestAWRRulesOnEveryTestReport(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "artifacts", "testdata", "awr", "*"))
	for _, f := range files {
		r := awrTestReport(t, filepath.Base(f))
		for _, snap := range []*snapshot.Snapshot{nil, host(), {}} {
			rep := DiagnoseAWR(r, snap)
			for _, c := range rep.CannotCheck {
				if strings.Contains(c.Reason, "internal error") {
					t.Errorf("%s: %s", f, c.Reason)
				}
			}
			for _, x := range rep.Findings {
				if x.Setting == "" || x.Evidence == "" || len(x.Sources) == 0 || SeverityRank(x.Severity) == 0 {
					t.Errorf("%s: incomplete finding %+v", f, x)
				}
			}
		}
	}
}

// numaHost is a host of nodes NUMA nodes with perNode CPUs each.
func numaHost(nodes, perNode int) *snapshot.Snapshot {
	s := host()
	s.Topology.Nodes, s.Topology.CPUs, s.Topology.CPUsOnline = nil, nil, nil
	mem := int64(256 << 20)
	for n := 0; n < nodes; n++ {
		var cpus []int
		dist := make([]int, nodes)
		for k := range dist {
			dist[k] = 21
		}
		dist[n] = 10
		for c := 0; c < perNode; c++ {
			id := n*perNode + c
			cpus = append(cpus, id)
			s.Topology.CPUs = append(s.Topology.CPUs, snapshot.CPU{ID: id, Online: true, Node: n, Socket: n, Core: c})
			s.Topology.CPUsOnline = append(s.Topology.CPUsOnline, id)
		}
		m := mem
		s.Topology.Nodes = append(s.Topology.Nodes, snapshot.Node{ID: n, Online: true, HasCPU: true, HasMemory: true, CPUs: cpus, Distances: dist, MemTotalKB: &m})
	}
	s.Topology.Sockets, s.Topology.Cores, s.Topology.Threads = nodes, nodes*perNode, nodes*perNode
	return s
}

func cpuRange(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}
