package place

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/jsonfmt"
	"github.com/dbhost/dbhost/internal/snapshot"
)

const examplesDir = "../../examples/place"

// bdtHost is the 8-node host of seed 001 (bdt): lscpu's CPU lists (node 4
// holds CPU 0), numa_memory.sh's MemTotal/MemFree and hugepage pools, and
// the SLIT "node distances" table. lscpu says "Thread(s) per core: 2",
// "Core(s) per socket: 10", "Socket(s): 8": each node's list is its socket's
// 10 first threads then their 10 siblings (1-10 with 41-50; node 4's 0,81-89
// with 120-129), paired in order as Linux numbers them (001 does not show the
// sibling lists; the pairing is the enumeration's, the count is lscpu's). NICs as in seed 000 Scenario 3: one per
// socket pair, each in its own subnet. cgroup v1 (RHEL 6.5).
func bdtHost() *snapshot.Snapshot {
	lists := []string{"1-10,41-50", "11-20,51-60", "21-30,61-70", "31-40,71-80", "0,81-89,120-129", "90-99,130-139", "100-109,140-149", "110-119,150-159"}
	memFree := []int64{49000636, 50503228, 18163112, 47859560, 43286800, 50348004, 31591648, 48524064}
	hpTotal := []int64{39300, 39300, 39300, 39300, 39300, 39300, 39299, 39299}
	hpFree := []int64{39044, 39044, 39045, 39045, 39045, 39045, 39044, 39044}
	slit := [][]int{
		{10, 13, 12, 12, 22, 22, 22, 22},
		{13, 10, 12, 12, 22, 22, 22, 22},
		{12, 12, 10, 13, 22, 22, 22, 22},
		{12, 12, 13, 10, 22, 22, 22, 22},
		{22, 22, 22, 22, 10, 13, 12, 12},
		{22, 22, 22, 22, 13, 10, 12, 12},
		{22, 22, 22, 22, 12, 12, 10, 13},
		{22, 22, 22, 22, 12, 12, 13, 10},
	}
	s := &snapshot.Snapshot{SchemaVersion: snapshot.SchemaVersion, Sysctl: map[string]string{}, Absent: []snapshot.Absence{}, Processes: []snapshot.Process{}}
	s.Source = snapshot.Source{Kind: "root", Collector: "example: seed 001 (bdt) host"}
	s.Host.Hostname = "bdt-8n"
	s.Memory.Meminfo = map[string]int64{"Hugepagesize": 2048}
	s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: 314398, Free: 312356, Default: true}}
	for i, l := range lists {
		cpus, _ := cpulist.Parse(l)
		total := int64(136052736)
		if i == 4 {
			total = 136024568
		}
		free, used := memFree[i], total-memFree[i]
		s.Topology.Nodes = append(s.Topology.Nodes, snapshot.Node{
			ID: i, Online: true, HasCPU: true, HasMemory: true, CPUs: cpus, Distances: slit[i],
			MemTotalKB: &total, MemFreeKB: &free, MemUsedKB: &used,
			Hugepages: []snapshot.NodeHugepages{{SizeKB: 2048, Total: hpTotal[i], Free: hpFree[i]}},
		})
		half := len(cpus) / 2
		for c := 0; c < half; c++ {
			a, b := cpus[c], cpus[half+c]
			for _, cpu := range []int{a, b} {
				s.Topology.CPUs = append(s.Topology.CPUs, snapshot.CPU{ID: cpu, Online: true, Node: i, Socket: i, Core: c, Siblings: []int{a, b}})
			}
		}
	}
	sortCPUs(s.Topology.CPUs)
	for _, c := range s.Topology.CPUs {
		s.Topology.CPUsOnline = append(s.Topology.CPUsOnline, c.ID)
	}
	s.Topology.Sockets, s.Topology.Cores, s.Topology.Threads, s.Topology.NUMAEnabled = 8, 80, 160, true
	n0, n4 := 0, 4
	s.Network.Interfaces = []snapshot.Interface{
		{Name: "eno24", Kind: "physical", NUMANode: &n0, IPv4: []string{"11.1.1.1/24"}},
		{Name: "eno376", Kind: "physical", NUMANode: &n4, IPv4: []string{"15.1.1.1/24"}},
	}
	s.Cgroups.Version = "v1"
	return s
}

func loadExample(t *testing.T, name string) *Spec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(examplesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec(name, b)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestBdtHostFile keeps examples/place/bdt-host.json (the --snapshot the
// examples are run against) equal to bdtHost.
func TestBdtHostFile(t *testing.T) {
	b, err := snapshot.Marshal(bdtHost())
	if err != nil {
		t.Fatal(err)
	}
	// Compared as snapshots, not bytes: the JSON layout belongs to package snapshot.
	golden.Check(t, golden.Set{Dir: examplesDir, Match: func(rel string) bool { return rel == "bdt-host.json" },
		Equal: func(rel string, want, got []byte) bool {
			have, err := snapshot.Parse(rel, want)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				return false
			}
			now, _ := snapshot.Parse(rel, got)
			return reflect.DeepEqual(have, now)
		},
		Hint: "go test ./internal/place -run TestBdtHostFile -update"}, map[string][]byte{"bdt-host.json": b})
}

// TestCustomerCases checks bdt's four cases: the facts each plan must show,
// then the whole expected plan kept beside the spec.
func TestCustomerCases(t *testing.T) {
	host := bdtHost()
	cases := []struct {
		spec     string
		feasible bool
		check    func(t *testing.T, r *Result)
	}{
		{"case1-caging.yaml", true, func(t *testing.T, r *Result) {
			for _, ip := range r.Instances {
				if len(ip.CPUs) != 160 || !reflect.DeepEqual(ip.Mems, seq(8)) || !ip.Caged {
					t.Errorf("%s: caged instances see every CPU and node: %d CPUs mems %v", ip.Name, len(ip.CPUs), ip.Mems)
				}
				if len(ip.Hugepages) != 8 {
					t.Errorf("%s: SGA interleaved over the 8 nodes, got %v", ip.Name, ip.Hugepages)
				}
			}
			if r.Instances[0].CPUCount != 16 || r.Instances[1].CPUCount != 48 {
				t.Errorf("cpu_count: %d %d", r.Instances[0].CPUCount, r.Instances[1].CPUCount)
			}
		}},
		{"case2-binding.yaml", true, func(t *testing.T, r *Result) {
			// pay1 (20) fills exactly one node; pay2 and pay3 share none of its CPUs.
			if len(r.Instances[0].Mems) != 1 || len(r.Instances[0].CPUs) != 20 {
				t.Errorf("pay1: %v on %v, want one whole node", r.Instances[0].CPUs, r.Instances[0].Mems)
			}
			if len(r.Groups) != 4 {
				t.Errorf("want one cgroup per paying database + one shared: %v", r.Groups)
			}
			if r.Instances[3].Group != r.Instances[4].Group || r.Instances[3].Group != GroupPrefix+"besteffort" {
				t.Errorf("non-paying instances share one group: %q %q", r.Instances[3].Group, r.Instances[4].Group)
			}
		}},
		{"case2-mix.yaml", true, func(t *testing.T, r *Result) {
			g := r.Instances[0]
			if len(g.CPUs) != 24 || len(g.Mems) != 2 {
				t.Fatalf("guaranteed set: %v mems %v, want 24 CPUs on 2 nodes", g.CPUs, g.Mems)
			}
			a, b := g.Mems[0], g.Mems[1]
			if r.topo.dist[r.topo.index(a)][r.topo.index(b)] != 12 {
				t.Errorf("guaranteed set on nodes %v: want a near pair (distance 12), never 22", g.Mems)
			}
			for _, ip := range r.Instances[:3] {
				if !reflect.DeepEqual(ip.CPUs, g.CPUs) || !ip.Caged {
					t.Errorf("%s: not caged inside the one guaranteed cpuset", ip.Name)
				}
			}
			be := r.Instances[3]
			if inList(be.CPUs, g.CPUs[0]) {
				t.Error("best-effort set overlaps the guaranteed one")
			}
			// 001: "Put the non-paying into another cgroup (no overlap with the paying one) without caging."
			if be.Caged || be.Group != GroupPrefix+"besteffort" {
				t.Errorf("%s: caged %v in %q, want its own cgroup without caging", be.Name, be.Caged, be.Group)
			}
			ora := r.oracleParams(be)
			if strings.Contains(ora, "*.cpu_count=") || strings.Contains(ora, "*.resource_manager_plan=") || strings.Contains(ora, "_enable_NUMA_support") {
				t.Errorf("%s: a non-paying database is not caged and keeps 001's default NUMA support:\n%s", be.Name, ora)
			}
		}},
		{"case3-binding-option1.yaml", true, func(t *testing.T, r *Result) {
			// the non-paying cgroup: CPU Total − 24 paid = 136 threads; the paying ones unbound.
			if len(r.Groups) != 1 || r.Groups[0].Name != GroupPrefix+"besteffort" || len(r.Groups[0].CPUs) != 136 {
				t.Fatalf("groups %+v: want one non-paying cgroup of 160 − 24 = 136 CPUs", r.Groups)
			}
			for _, ip := range r.Instances {
				if ip.Caged {
					t.Errorf("%s: caged; option 1 binds only", ip.Name)
				}
				if ip.Guaranteed() && (ip.Group != "" || len(ip.CPUs) != 160) {
					t.Errorf("%s: paying database bound to %q %d CPUs, want every CPU", ip.Name, ip.Group, len(ip.CPUs))
				}
				if !ip.Guaranteed() && ip.Group != r.Groups[0].Name {
					t.Errorf("%s: non-paying database in %q", ip.Name, ip.Group)
				}
				ora := r.oracleParams(ip)
				if strings.Contains(ora, "*.cpu_count=") || strings.Contains(ora, "*.resource_manager_plan=") {
					t.Errorf("%s: option 1 cages nobody:\n%s", ip.Name, ora)
				}
			}
		}},
		{"case3-caging-option1.yaml", true, func(t *testing.T, r *Result) {
			if len(r.Groups) != 0 {
				t.Errorf("caging creates no cgroup: %v", r.Groups)
			}
			for _, ip := range r.Instances {
				if ip.Caged == ip.Guaranteed() {
					t.Errorf("%s (%s): caged %v; option 1 cages the non-paying databases only", ip.Name, ip.Class, ip.Caged)
				}
				ora := r.oracleParams(ip)
				if ip.Guaranteed() == strings.Contains(ora, "*.resource_manager_plan=") {
					t.Errorf("%s: init parameters:\n%s", ip.Name, ora)
				}
			}
		}},
		{"case4-binding.yaml", true, func(t *testing.T, r *Result) {
			// cust2's 60 CPUs: 3 nodes of one socket group (distances 12/13), never across 22.
			m := r.Instances[1].Mems
			if len(m) != 3 {
				t.Fatalf("cust2: mems %v, want 3 nodes", m)
			}
			for _, x := range m {
				for _, y := range m {
					if r.topo.dist[r.topo.index(x)][r.topo.index(y)] == 22 {
						t.Errorf("cust2 mixes far nodes %d and %d", x, y)
					}
				}
			}
		}},
		{"case4-caging-infeasible.yaml", false, func(t *testing.T, r *Result) {
			if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "best-effort instances is 24; only 160 threads − 140 guaranteed = 20 remain") || !strings.Contains(r.Errors[0].Message, "over by 4") {
				t.Errorf("errors: %v", r.Errors)
			}
		}},
	}
	// Every case's plan as dbhost place --format json prints it; the checks
	// below run on the same result.
	got := map[string][]byte{}
	results := make([]*Result, len(cases))
	for i, c := range cases {
		spec := loadExample(t, c.spec)
		results[i] = Plan(host, spec)
		checkPlan(t, host, spec, results[i])
		b, err := jsonfmt.Marshal(results[i])
		if err != nil {
			t.Fatal(err)
		}
		got[strings.TrimSuffix(c.spec, ".yaml")+".plan.json"] = b
	}
	for i, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			r := results[i]
			if r.Feasible != c.feasible {
				t.Fatalf("feasible %v, want %v: %v", r.Feasible, c.feasible, r.Errors)
			}
			c.check(t, r)
		})
	}
	// examples/place holds one expected plan per case beside its spec, no
	// other: a *.plan.json whose case is gone is stale.
	golden.Check(t, golden.Set{Dir: examplesDir, Match: func(rel string) bool { return strings.HasSuffix(rel, ".plan.json") },
		Hint: "go test ./internal/place -run TestCustomerCases -update"}, got)
}
