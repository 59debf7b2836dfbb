package rules

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestGoldenFixtures audits the committed fixture snapshots
// (testdata/golden/*.json, generated from testdata/hosts by internal/fixture)
// and checks that each fixture's story produces the findings a DBA expects,
// and nothing contradicts it.
func TestGoldenFixtures(t *testing.T) {
	cases := []struct {
		name, workload string
		want, not      []string
	}{
		{"laptop-2s", WorkloadOLTP, []string{"memory.thp-enabled", "cpu.governor-not-performance", "cpu.deep-cstates-latency"}, []string{"numa.disabled-at-boot", "virt.guest"}},
		{"interleaved-4n", WorkloadOLTP, []string{"numa.balancing-with-db-shm:info", "numa.cpu-irq-imbalance"}, []string{"numa.disabled-at-boot", "memory.hugepages-too-few"}},
		{"numa-off", WorkloadMixed, []string{"numa.disabled-at-boot:critical"}, nil},
		{"cgroup-v1", WorkloadOLTP, []string{"cgroup.cpuset-mems-not-local:critical", "numa.db-memory-remote"}, []string{"numa.disabled-at-boot"}},
		{"cgroup-v2", WorkloadOLTP, []string{"virt.guest:info"}, []string{"cpu.governor-not-performance", "cpu.deep-cstates-latency", "cgroup.cpuset-mems-not-local"}},
		{"sosreport-db1", WorkloadMixed, nil, []string{"numa.disabled-at-boot", "memory.hugepages-too-few"}},
		// Issue 25: kernels, firmware and captures that lay the topology out
		// differently are read right; none is "NUMA disabled" or "SMT off".
		{"el7-hascpu-blank", WorkloadOLTP, []string{"numa.topology-contradiction:info"}, []string{"numa.disabled-at-boot", "cpu.smt-off"}},
		{"mask-only", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "cpu.smt-off", "numa.topology-contradiction"}},
		{"power9-lpar", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "cpu.smt-off", "numa.topology-contradiction"}},
		{"magny-cours", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "numa.topology-contradiction"}},
		{"arm-kunpeng", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "cpu.smt-off", "numa.topology-contradiction"}},
		{"guest-noids", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "cpu.smt-off", "numa.topology-contradiction"}},
		{"bios-overlap", WorkloadOLTP, []string{"numa.topology-contradiction:info"}, []string{"numa.disabled-at-boot"}},
		// Issue 25's kinds of memory node: CPU-less GPU, NVM, CXL, HBM and
		// far-tier nodes and a 2LM cache are no fault of the host.
		{"power9-gpu", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "numa.topology-contradiction", "cpu.smt-off"}},
		{"pmem-kmem", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "numa.topology-contradiction"}},
		{"cxl-guest", WorkloadOLTP, []string{"virt.guest:info"}, []string{"numa.disabled-at-boot", "numa.topology-contradiction"}},
		{"twolm", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "numa.topology-contradiction"}},
		{"hbm-flat", WorkloadOLTP, nil, []string{"numa.disabled-at-boot", "numa.topology-contradiction"}},
		// Hybrid CPUs: a database confined to the efficiency cores is a
		// finding; one that may use the performance cores is not.
		{"ecore-pinned", WorkloadOLTP, []string{"cpu.db-efficiency-cores-only:warning"}, []string{"numa.disabled-at-boot"}},
		{"adl-desktop", WorkloadOLTP, nil, []string{"cpu.db-efficiency-cores-only", "numa.disabled-at-boot"}},
		{"hybrid-server", WorkloadOLTP, nil, []string{"cpu.db-efficiency-cores-only", "numa.disabled-at-boot"}},
		{"arm-biglittle", WorkloadOLTP, nil, []string{"cpu.db-efficiency-cores-only", "numa.disabled-at-boot"}},
		// Issue 26, "Missing": 000's Superdome X storage with its three faults;
		// its 16-path LUN over four blades is fine (checked in TestSuperdomeStorage).
		{"superdome-3par", WorkloadDSS, []string{"io.multipath-paths-one-node:warning", "io.pcie-link-downtrained:warning", "numa.storage-irq-off-node:warning"},
			[]string{"numa.disabled-at-boot", "io.max-sectors-multipath"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := snapshot.Load(filepath.Join("..", "..", "testdata", "golden", c.name+".json"))
			if err != nil {
				t.Fatalf("fixture snapshot: %v", err)
			}
			db, _ := DetectDB(s, nil)
			rep := Run(&Input{Snap: s, Workload: c.workload, DB: db})
			got := map[string]string{}
			for _, f := range rep.Findings {
				got[f.ID] = f.Severity
			}
			for _, w := range c.want {
				id, sev, _ := strings.Cut(w, ":")
				if g, ok := got[id]; !ok || sev != "" && g != sev {
					t.Errorf("want %s, got %v", w, got)
				}
			}
			for _, n := range c.not {
				if _, ok := got[n]; ok {
					t.Errorf("%s fired: %+v", n, rep.Findings)
				}
			}
			if strings.Contains("power9-gpu pmem-kmem cxl-guest twolm hbm-flat", c.name) {
				for _, f := range rep.Findings {
					if f.Severity != SevInfo {
						t.Errorf("%s: %s %s on a host whose files show no fault: %s", c.name, f.Severity, f.ID, f.Evidence)
					}
				}
			}
			for _, cc := range rep.CannotCheck {
				if strings.Contains(cc.Reason, "internal error") {
					t.Error(cc.Reason)
				}
			}
		})
	}
}

// goldenSnapshots loads every committed fixture snapshot (testdata/golden,
// one per fixture host: new hosts are picked up as they are added).
func goldenSnapshots(t *testing.T) map[string]*snapshot.Snapshot {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture snapshots in testdata/golden: %v", err)
	}
	out := map[string]*snapshot.Snapshot{}
	for _, f := range files {
		s, err := snapshot.Load(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = s
	}
	return out
}

// TestFindingSourcesAreTheRules: over every fixture, workload and database,
// a finding cites only sources its rule lists (so the seed test covers every
// citation a finding can carry), and names the rule's own thresholds.
func TestFindingSourcesAreTheRules(t *testing.T) {
	for name, s := range goldenSnapshots(t) {
		for _, w := range Workloads {
			for _, db := range DBs {
				rep := Run(&Input{Snap: s, Workload: w, DB: db})
				for _, f := range rep.Findings {
					r, _ := Lookup(f.ID)
					for _, src := range f.Sources {
						if !containsSource(r.Sources, src) {
							t.Errorf("%s %s/%s: %s cites %+v, not among its rule's sources", name, w, db, f.ID, src)
						}
					}
					if len(r.Thresholds) > 0 && !strings.Contains(f.Why, OwnThreshold) {
						t.Errorf("%s %s/%s: %s does not name its own thresholds: %s", name, w, db, f.ID, f.Why)
					}
				}
			}
		}
	}
}

func containsSource(list []Source, s Source) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
