package rules

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// eraFixtures are the hosts of every era (internal/fixture/eras.go).
var eraFixtures = []string{"rhel6", "rhel7", "rhel8", "rhel9", "sles12", "ubuntu2204"}

// allFixtures are every committed fixture snapshot.
var allFixtures = append([]string{"laptop-2s", "interleaved-4n", "odd-8n", "memoryless", "numa-off", "nosmt", "cgroup-v1", "cgroup-v2", "sosreport-db1"}, eraFixtures...)

func auditFixture(t *testing.T, name, workload string) (*snapshot.Snapshot, Report) {
	t.Helper()
	s, err := snapshot.Load(filepath.Join("..", "..", "testdata", "golden", name+".json"))
	if err != nil {
		t.Fatalf("fixture snapshot: %v", err)
	}
	db, _ := DetectDB(s, nil)
	return s, Run(&Input{Snap: s, Workload: workload, DB: db})
}

// TestEraFixturesReachVerdicts: on RHEL 6 and RHEL 7 (and every other era
// host) the C-state, THP, hugepage and cpuset rules judge: a finding, a
// pass or "not applicable", never "could not check".
func TestEraFixturesReachVerdicts(t *testing.T) {
	rules := []string{"cpu.deep-cstates-latency", "memory.thp-enabled", "memory.hugepages-too-few", "numa.hugepages-node-exhausted",
		"cgroup.cpuset-mems-not-local", "numa.balancing-with-db-shm"}
	for _, name := range eraFixtures {
		t.Run(name, func(t *testing.T) {
			_, rep := auditFixture(t, name, WorkloadOLTP)
			for _, c := range rep.CannotCheck {
				for _, id := range rules {
					if c.ID == id {
						t.Errorf("%s could not check: %s", id, c.Reason)
					}
				}
			}
		})
	}
	// And the verdicts are the era's: RHEL 6's deep C-states fire with a fix
	// that fits 2.6.32 (no per-state disable, GRUB legacy), THP always fires.
	_, rep := auditFixture(t, "rhel6", WorkloadOLTP)
	found := map[string]Finding{}
	for _, f := range rep.Findings {
		found[f.ID] = f
	}
	c := found["cpu.deep-cstates-latency"]
	fix := strings.Join(append(c.Fix.Runtime, c.Fix.Lines()...), "\n")
	if c.ID == "" || strings.Contains(fix, "cpupower idle-set") || !strings.Contains(fix, "/boot/grub/grub.conf") {
		t.Errorf("rhel6 C-state finding = %+v", c)
	}
	if _, ok := found["memory.thp-enabled"]; !ok {
		t.Errorf("rhel6: THP always did not fire: %v", found)
	}
}

// liveOnly are rules whose facts no captured tree holds: they may say
// "could not check" on any fixture.
var liveOnly = map[string]string{
	"network.arp-filter-multi-nic":     "interface addresses are read on the live host only",
	"network.one-subnet-per-interface": "interface addresses are read on the live host only",
	"network.rss-udp-hash":             "the NIC's UDP receive hash (ETHTOOL_GRXFH) is not collected",
	"network.rx-usecs-latency":         "interrupt coalescing (ETHTOOL_GCOALESCE) is read on the live host only",
}

// unseen are the could-not-checks of facts the snapshot holds that do not
// decide the rule (issue 26: no pass without evidence): the reason says what
// cannot be seen.
var unseen = map[string]string{
	"io.rotational-flag": "not visible from the host",        // rotational=1 without flash in the name: an array LUN or a disk
	"io.nomerges":        "which devices are raw is unknown", // a mount on a device the snapshot lacks may sit on any disk
}

// TestFixturesCheckWhatTheyHold: no rule says "could not check" on a
// fixture that holds the facts it needs. A "could not check" must name a
// fact the snapshot records as absent (the fixture's story lacks it), or
// be a live-only rule.
func TestFixturesCheckWhatTheyHold(t *testing.T) {
	for _, name := range allFixtures {
		t.Run(name, func(t *testing.T) {
			for _, w := range []string{WorkloadOLTP, WorkloadDSS, WorkloadLatency} {
				s, rep := auditFixture(t, name, w)
				for _, c := range rep.CannotCheck {
					if _, ok := liveOnly[c.ID]; ok {
						continue
					}
					if u, ok := unseen[c.ID]; ok && strings.Contains(c.Reason, u) {
						continue
					}
					named := false
					for _, a := range s.Absent {
						named = named || strings.Contains(c.Reason, a.Fact+": ")
					}
					if !named {
						t.Errorf("%s (%s): could not check, but names no absent fact: %s", c.ID, w, c.Reason)
					}
				}
			}
		})
	}
}

// TestEraAuditGoldens compares each era fixture's audit (rule, outcome,
// severity, and for a finding its setting and current value; for "could
// not check" the reason) with testdata/audit/<host>.txt (-update rewrites).
// Rule prose (why, fix, passed and not-applicable reasons) is left out so
// that rewording a rule does not churn these files.
func TestEraAuditGoldens(t *testing.T) {
	got := map[string][]byte{}
	for _, name := range eraFixtures {
		_, rep := auditFixture(t, name, WorkloadOLTP)
		var lines []string
		for _, f := range rep.Findings {
			lines = append(lines, fmt.Sprintf("%s\tfinding %s\t%s = %s", f.ID, f.Severity, f.Setting, f.Current))
		}
		for _, r := range rep.Passed {
			lines = append(lines, r.ID+"\tpassed")
		}
		for _, r := range rep.NotApplicable {
			lines = append(lines, r.ID+"\tnot applicable")
		}
		for _, r := range rep.CannotCheck {
			lines = append(lines, r.ID+"\tcould not check: "+r.Reason)
		}
		sort.Strings(lines)
		got[name+".txt"] = []byte(fmt.Sprintf("# audit of testdata/golden/%s.json, workload oltp, db %s (go test ./internal/rules -run EraAuditGoldens -update)\n%s\n",
			name, rep.DB, strings.Join(lines, "\n")))
	}
	golden.Check(t, golden.Set{Dir: filepath.Join("testdata", "audit"), Hint: "go test ./internal/rules -run EraAuditGoldens -update"}, got)
}
