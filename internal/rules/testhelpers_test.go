package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Small snapshot builders for rule tests. A rule test builds the smallest
// snapshot that makes its rule fire, and one that does not, and calls run.

// host returns a healthy 2-socket, 2-node host: 4 CPUs per node, SLIT 10/21,
// 64 GiB per node, no DB processes, sysctls at common defaults.
func host() *snapshot.Snapshot {
	s := &snapshot.Snapshot{
		SchemaVersion: snapshot.SchemaVersion,
		Host: snapshot.Host{Hostname: "db1", Kernel: "5.14.0-427.el9.x86_64", OS: "Red Hat Enterprise Linux 9.4",
			OSID: "rhel", CmdlineArgs: map[string]string{}},
		Sysctl: map[string]string{
			"kernel.numa_balancing":     "0",
			"vm.zone_reclaim_mode":      "0",
			"vm.swappiness":             "10",
			"vm.dirty_ratio":            "40",
			"vm.dirty_background_ratio": "10",
		},
		Absent:    []snapshot.Absence{},
		Processes: []snapshot.Process{},
	}
	mem := int64(64 << 20)
	for n := 0; n < 2; n++ {
		cpus := []int{n * 4, n*4 + 1, n*4 + 2, n*4 + 3}
		dist := []int{21, 21}
		dist[n] = 10
		m := mem
		s.Topology.Nodes = append(s.Topology.Nodes, snapshot.Node{ID: n, Online: true, HasCPU: true, HasMemory: true,
			CPUs: cpus, Distances: dist, MemTotalKB: &m})
		for _, c := range cpus {
			s.Topology.CPUs = append(s.Topology.CPUs, snapshot.CPU{ID: c, Online: true, Node: n, Socket: n, Core: c % 4})
			s.Topology.CPUsOnline = append(s.Topology.CPUsOnline, c)
		}
	}
	s.Topology.Sockets, s.Topology.Cores, s.Topology.Threads, s.Topology.NUMAEnabled = 2, 8, 8, true
	return s
}

// absent records a fact as absent, as the collector would.
func absent(s *snapshot.Snapshot, fact, reason string) {
	s.Absent = append(s.Absent, snapshot.Absence{Fact: fact, Path: "/x", Reason: reason})
}

func ptr[T any](v T) *T { return &v }

// run runs one registered rule on s with the given workload and db.
func run(t *testing.T, id string, s *snapshot.Snapshot, workload, db string) Report {
	t.Helper()
	r, ok := Lookup(id)
	if !ok {
		t.Fatalf("rule %s is not registered", id)
	}
	rep := RunRules([]Rule{r}, &Input{Snap: s, Workload: workload, DB: db})
	vetChanges(t, rep)
	vetPasses(t, rep)
	vetFixLines(t, rep)
	return rep
}

// vetFixLines fails the test when a finding offers a line of a file as a
// Runtime or Persistent command (issue 26 item 10: that is an Edit).
func vetFixLines(t *testing.T, rep Report) {
	t.Helper()
	for _, f := range rep.Findings {
		for _, l := range append(append([]string{}, f.Fix.Runtime...), f.Fix.Persistent...) {
			for _, re := range fileLineForms {
				if re.MatchString(l) {
					t.Errorf("%s: a file line offered as a command (%s): %q", f.ID, re, l)
					break
				}
			}
		}
	}
}

// vetPasses fails the test when a check passed without naming what it
// read (the engine turned it into could not check: NoEvidence), so that
// every pass path a rule test reaches carries its evidence (issue 26).
func vetPasses(t *testing.T, rep Report) {
	t.Helper()
	for _, c := range rep.CannotCheck {
		if strings.Contains(c.Reason, NoEvidence) {
			t.Errorf("%s passed without naming what it read: %s", c.ID, c.Reason)
		}
	}
	for _, p := range rep.Passed {
		if p.Evidence == "" {
			t.Errorf("%s passed without evidence", p.ID)
		}
	}
}

// vetChanges fails the test when a change a rule made is not one its
// declaration (emits.go) allows, or carries another risk than the
// declared one: a saved plan holding it would be refused by apply --plan.
func vetChanges(t *testing.T, rep Report) {
	t.Helper()
	var all []change.Change
	for _, f := range rep.Findings {
		all = append(all, f.Changes...)
	}
	all = append(append(all, rep.Holds...), rep.Unbooted...)
	for _, c := range all {
		if c.Kind == change.TunedProfile {
			continue
		}
		risk, err := VetChange(c)
		if err != nil {
			t.Errorf("a change the rule made is refused by the catalog (emits.go): %v", err)
		} else if risk != c.Risk {
			t.Errorf("%s %s: the rule's risk %q is not its declared risk %q (emits.go)", c.Kind, c.Key, c.Risk, risk)
		}
	}
}

// fires asserts that rule id produced at least one finding and returns the first.
func fires(t *testing.T, id string, s *snapshot.Snapshot, workload, db string) Finding {
	t.Helper()
	rep := run(t, id, s, workload, db)
	if len(rep.Findings) == 0 {
		t.Fatalf("%s did not fire; passed=%v cannot=%v n/a=%v", id, rep.Passed, rep.CannotCheck, rep.NotApplicable)
	}
	f := rep.Findings[0]
	if f.ID != id || f.Setting == "" || f.Current == "" || f.Recommended == "" || f.Evidence == "" || len(f.Sources) == 0 {
		t.Fatalf("%s: incomplete finding %+v", id, f)
	}
	return f
}

// quiet asserts that rule id produced no finding and returns the report.
func quiet(t *testing.T, id string, s *snapshot.Snapshot, workload, db string) Report {
	t.Helper()
	rep := run(t, id, s, workload, db)
	if len(rep.Findings) > 0 {
		t.Fatalf("%s fired unexpectedly: %+v", id, rep.Findings)
	}
	return rep
}

// cannot asserts that rule id could not check and that the reason mentions want.
func cannot(t *testing.T, id string, s *snapshot.Snapshot, workload, db, want string) {
	t.Helper()
	rep := quiet(t, id, s, workload, db)
	if len(rep.CannotCheck) != 1 {
		t.Fatalf("%s: want cannot-check, got passed=%v n/a=%v", id, rep.Passed, rep.NotApplicable)
	}
	if want != "" && !strings.Contains(rep.CannotCheck[0].Reason, want) {
		t.Fatalf("%s: cannot-check reason %q does not mention %q", id, rep.CannotCheck[0].Reason, want)
	}
}
