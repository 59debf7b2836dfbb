package place

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// nodeOf maps CPU → node and node → memory facts of a snapshot.
func nodeOf(s *snapshot.Snapshot) (cpuNode map[int]int, hasMem map[int]bool, avail map[int]int64) {
	cpuNode, hasMem, avail = map[int]int{}, map[int]bool{}, map[int]int64{}
	for _, n := range s.Topology.Nodes {
		for _, c := range n.CPUs {
			cpuNode[c] = n.ID
		}
		hasMem[n.ID] = n.HasMemory
		if n.HasMemory {
			for _, h := range n.Hugepages {
				if h.SizeKB == 2048 {
					avail[n.ID] = h.Free + *n.MemFreeKB/2048
				}
			}
		}
	}
	return
}

func checkPlan(t *testing.T, s *snapshot.Snapshot, spec *Spec, r *Result) {
	t.Helper()
	cpuNode, hasMem, avail := nodeOf(s)
	if r.Feasible != (len(r.Errors) == 0) {
		t.Fatalf("feasible %v with %d errors", r.Feasible, len(r.Errors))
	}
	if len(r.Instances) != len(spec.Instances) {
		t.Fatalf("%d instances planned for %d", len(r.Instances), len(spec.Instances))
	}
	used := map[int]int64{}
	owner := map[int]string{}
	for i, ip := range r.Instances {
		in := spec.Instances[i]
		if ip.Name != in.Name {
			t.Fatalf("instance %d is %s, want %s (spec order)", i, ip.Name, in.Name)
		}
		for _, h := range ip.Hugepages {
			used[h.Node] += h.Pages
			if !hasMem[h.Node] {
				t.Errorf("%s: pages on memoryless node %d", ip.Name, h.Node)
			}
		}
		if !r.Feasible {
			continue
		}
		var pages int64
		for _, h := range ip.Hugepages {
			pages += h.Pages
		}
		if pages != r.pages(in) {
			t.Errorf("%s: %d pages planned, %d needed", ip.Name, pages, r.pages(in))
		}
		if len(ip.CPUs) == 0 {
			t.Errorf("%s: feasible plan without CPUs", ip.Name)
		}
		if spec.Strategy == "binding" && in.Guaranteed() {
			if len(ip.CPUs) < in.CPUs {
				t.Errorf("%s: %d CPUs for %d", ip.Name, len(ip.CPUs), in.CPUs)
			}
			for _, c := range ip.CPUs {
				if o, ok := owner[c]; ok {
					t.Errorf("CPU %d in both %s and %s", c, o, ip.Name)
				}
				owner[c] = ip.Name
			}
		}
		if spec.Strategy != "caging" {
			// mems are exactly the memory nodes of the CPUs, plus for
			// memoryless CPU nodes their nearest memory node.
			want := map[int]bool{}
			remote := false
			for _, c := range ip.CPUs {
				if hasMem[cpuNode[c]] {
					want[cpuNode[c]] = true
				} else {
					remote = true
				}
			}
			for n := range want {
				if !contains(ip.Mems, n) {
					t.Errorf("%s: mems %v lack node %d of its CPUs", ip.Name, ip.Mems, n)
				}
			}
			if !remote && len(ip.Mems) != len(want) {
				t.Errorf("%s: mems %v are not the nodes of its CPUs %v", ip.Name, ip.Mems, ip.CPUs)
			}
			for _, m := range ip.Mems {
				if !hasMem[m] {
					t.Errorf("%s: mems %v hold memoryless node %d", ip.Name, ip.Mems, m)
				}
			}
			// whole cores: every sibling of a CPU is in the set
			in := map[int]bool{}
			for _, c := range ip.CPUs {
				in[c] = true
			}
			for _, c := range s.Topology.CPUs {
				if in[c.ID] {
					for _, sib := range c.Siblings {
						if !in[sib] {
							t.Errorf("%s: CPU %d without its sibling %d", ip.Name, c.ID, sib)
						}
					}
				}
			}
		}
		if spec.Strategy == "caging" && ip.CPUCount < 2 && !in.Guest() {
			t.Errorf("%s: caged with cpu_count %d", ip.Name, ip.CPUCount)
		}
	}
	for n, u := range used {
		if u > avail[n] {
			t.Errorf("node %d: %d pages planned, %d available", n, u, avail[n])
		}
	}
	if spec.Strategy == "mix" && r.Feasible {
		var g, b []int
		for _, grp := range r.Groups {
			if strings.HasSuffix(grp.Name, "guaranteed") {
				g = grp.CPUs
			} else {
				b = grp.CPUs
			}
		}
		for _, c := range g {
			if contains(b, c) {
				t.Errorf("mix: CPU %d in both the guaranteed and the best-effort set", c)
			}
		}
	}
}

func contains(a []int, v int) bool {
	for _, x := range a {
		if x == v {
			return true
		}
	}
	return false
}

func TestPlanProperties(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	feasible := map[string]int{}
	for iter := 0; iter < 600; iter++ {
		s, _ := randomHost(rng)
		spec := randomSpec(rng, s.Topology.Threads)
		r := Plan(s, spec)
		checkPlan(t, s, spec, r)
		if r.Feasible {
			feasible[spec.Strategy]++
		} else if len(r.Errors) == 0 {
			t.Fatal("infeasible without a reason")
		}
		// deterministic
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(Plan(s, spec))
		if string(a) != string(b) {
			t.Fatalf("two plans of the same input differ:\n%s\n%s", a, b)
		}
		if t.Failed() {
			j, _ := json.MarshalIndent(spec, "", " ")
			t.Fatalf("iteration %d, spec %s\nplan %s", iter, j, a)
		}
	}
	for _, st := range []string{"binding", "caging", "mix"} {
		if feasible[st] == 0 {
			t.Errorf("no feasible %s plan in the sample: the property test tests nothing", st)
		}
	}
	t.Logf("feasible plans: %v", feasible)
}

func TestBindingPacksIntoOneNodeAndNearestNodes(t *testing.T) {
	// 4 nodes of 4 cores, SMT: 8 threads per node. Distances: 0-1 near (12), 2,3 far (32).
	d := [][]int{{10, 12, 32, 32}, {12, 10, 32, 32}, {32, 32, 10, 12}, {32, 32, 12, 10}}
	s := mkHost(hostSpec{ids: []int{0, 1, 2, 3}, cores: []int{4, 4, 4, 4}, smt: true, memGB: []int64{64, 64, 64, 64}, dist: d})
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "a", Engine: "oracle", CPUs: 8, MemoryGB: 8, Class: "guaranteed"},
		{Name: "b", Engine: "oracle", CPUs: 3, MemoryGB: 1, Class: "guaranteed"},
		{Name: "c", Engine: "postgres", CPUs: 12, MemoryGB: 1, Class: "guaranteed"},
	}}
	r := Plan(s, spec)
	checkPlan(t, s, spec, r)
	if !r.Feasible {
		t.Fatalf("infeasible: %v", r.Errors)
	}
	// c (largest) spans 2 near nodes: 0 and 1, never 0 and 2.
	if got := r.Instances[2].Mems; !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("c: mems %v, want [0 1] (the near pair)", got)
	}
	// a fills one node whole; b rounds 3 up to 2 cores = 4 threads.
	if len(r.Instances[0].Mems) != 1 || len(r.Instances[0].CPUs) != 8 {
		t.Errorf("a: %v on %v, want 8 CPUs on one node", r.Instances[0].CPUs, r.Instances[0].Mems)
	}
	if len(r.Instances[1].CPUs) != 4 || r.Instances[1].CPUCount != 4 {
		t.Errorf("b: %v cpu_count %d, want 4 threads (2 whole cores)", r.Instances[1].CPUs, r.Instances[1].CPUCount)
	}
}

func TestInfeasibleSaysWhatIsShort(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, memGB: []int64{8, 8}})
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "big", Engine: "oracle", CPUs: 6, MemoryGB: 1, Class: "guaranteed"},
		{Name: "huge", Engine: "oracle", CPUs: 2, MemoryGB: 100, Class: "guaranteed"},
		{Name: "be", Engine: "mysql", CPUs: 2, Class: "best-effort"},
	}}
	r := Plan(s, spec)
	if r.Feasible {
		t.Fatal("feasible")
	}
	all := ""
	for _, e := range r.Errors {
		all += e.Instance + ": " + e.Message + "\n"
	}
	for _, want := range []string{"huge: needs 51200 hugepages", "short by"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors lack %q:\n%s", want, all)
		}
	}
	for _, ip := range r.Instances {
		if len(ip.CPUs) != 0 {
			t.Errorf("infeasible plan still places %s", ip.Name)
		}
	}
}

func TestCagingRules(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, memGB: []int64{8, 8}})
	spec := &Spec{Strategy: "caging", Instances: []Instance{
		{Name: "one", Engine: "oracle", CPUs: 1, Class: "guaranteed"},
		{Name: "g", Engine: "oracle", CPUs: 6, Class: "guaranteed"},
		{Name: "be", Engine: "oracle", CPUs: 3, Class: "best-effort"},
	}}
	r := Plan(s, spec)
	msgs := ""
	for _, e := range r.Errors {
		msgs += e.Instance + ": " + e.Message + "\n"
	}
	for _, want := range []string{"one: cpu_count 1", "only 8 threads − 7 guaranteed = 1 remain", "over by 2"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("errors lack %q:\n%s", want, msgs)
		}
	}
	spec.Instances[0].CPUs = 2
	spec.Instances[2].CPUs = 2
	spec.Instances[1].CPUs = 2
	spec.Instances = append(spec.Instances, Instance{Name: "x", Engine: "postgres", CPUs: 2, Class: "best-effort"}, Instance{Name: "y", Engine: "postgres", CPUs: 2, Class: "best-effort"})
	r = Plan(s, spec)
	if r.Feasible {
		t.Fatal("5 instances caged on 8 threads: want infeasible (at most threads/2 = 4)")
	}
}

func TestMemorylessNodeGetsNearestMemory(t *testing.T) {
	d := [][]int{{10, 20, 30}, {20, 10, 15}, {30, 15, 10}}
	s := mkHost(hostSpec{ids: []int{0, 1, 2}, cores: []int{2, 4, 0}, memGB: []int64{4, 0, 16}, dist: d})
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "a", Engine: "oracle", CPUs: 2, MemoryGB: 1, Class: "guaranteed"},
		{Name: "b", Engine: "oracle", CPUs: 4, MemoryGB: 1, Class: "guaranteed"},
	}}
	r := Plan(s, spec)
	checkPlan(t, s, spec, r)
	if !r.Feasible {
		t.Fatalf("infeasible: %v", r.Errors)
	}
	// b needs 4 CPUs: node 1 (memoryless, memory from node 2 at 15) or nodes 0+... a takes node 0.
	b := r.Instances[1]
	if !reflect.DeepEqual(b.Mems, []int{2}) {
		t.Errorf("b: mems %v, want [2] (nearest memory of memoryless node 1)", b.Mems)
	}
	found := false
	for _, w := range r.Warnings {
		found = found || w.Instance == "b" && strings.Contains(w.Message, "memoryless")
	}
	if !found {
		t.Errorf("no remote-memory warning for b: %v", r.Warnings)
	}
}

func BenchmarkPlan16Nodes512CPUs64Instances(b *testing.B) {
	s := mkHost(hostSpec{ids: seq(16), cores: rep(16, 16), smt: true, memGB: rep64(16, 256)})
	spec := &Spec{Strategy: "binding"}
	for i := 0; i < 64; i++ {
		cl := "guaranteed"
		if i%8 == 7 {
			cl = "best-effort"
		}
		spec.Instances = append(spec.Instances, Instance{Name: "db" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Engine: "oracle", CPUs: 2 + i%7, MemoryGB: float64(4 + i%5), Class: cl})
	}
	if r := Plan(s, spec); !r.Feasible {
		b.Fatalf("infeasible: %v", r.Errors)
	}
	for b.Loop() {
		Plan(s, spec)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func rep(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func rep64(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// BenchmarkPlanSpanning is a harder search: 16 nodes, 512 threads, 64
// instances of which 8 need 2 nodes each.
func BenchmarkPlanSpanning(b *testing.B) {
	s := mkHost(hostSpec{ids: seq(16), cores: rep(16, 16), smt: true, memGB: rep64(16, 256)})
	spec := &Spec{Strategy: "binding"}
	for i := 0; i < 64; i++ {
		cpus := 1 + i%2
		if i < 8 {
			cpus = 36 + 2*i // 36–50 threads: 2 nodes of 32
		}
		spec.Instances = append(spec.Instances, Instance{Name: "db" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Engine: "oracle", CPUs: cpus, MemoryGB: 8, Class: "guaranteed"})
	}
	if r := Plan(s, spec); !r.Feasible {
		b.Fatalf("infeasible: %v", r.Errors)
	}
	for b.Loop() {
		Plan(s, spec)
	}
}

func TestNoNUMAHostIsOneNode(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0}, cores: []int{4}, smt: true, memGB: []int64{8}})
	s.Topology.Nodes = nil // CONFIG_NUMA=n: no /sys/devices/system/node
	s.Memory.Meminfo["MemFree"] = 4 << 20
	s.Memory.Hugepages[0].Total, s.Memory.Hugepages[0].Free = 100, 100
	spec := &Spec{Strategy: "binding", Instances: []Instance{{Name: "a", Engine: "postgres", CPUs: 4, MemoryGB: 1, Class: "guaranteed"}, {Name: "b", Engine: "mysql", CPUs: 2, Class: "best-effort"}}}
	r := Plan(s, spec)
	if !r.Feasible || r.Nodes != 1 || !reflect.DeepEqual(r.Instances[0].Mems, []int{0}) || len(r.Instances[0].CPUs) != 4 {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(string(textView(r)), "no NUMA nodes: planned as one node") {
		t.Errorf("no note:\n%s", textView(r))
	}
	// no CPUs at all: an error, not a crash
	s.Topology.CPUs, s.Topology.CPUsOnline = nil, nil
	if r := Plan(s, spec); r.Feasible || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "no online CPUs") {
		t.Errorf("%+v", r.Errors)
	}
	// hugepage size unknown with memory asked: said so
	s2 := mkHost(hostSpec{ids: []int{0}, cores: []int{2}, memGB: []int64{8}})
	s2.Memory.Hugepages, s2.Memory.Meminfo = nil, nil
	if r := Plan(s2, spec); r.Feasible || !strings.Contains(r.Errors[0].Message, "hugepage size is unknown") {
		t.Errorf("%+v", r.Errors)
	}
}

// Issue 25: a CPU-less node of GPU, NVM, HBM or far-tier memory is never a
// database's memory, even when it is the nearest to a memoryless CPU node
// (POWER9: coherent GPU memory at 15) or caging interleaves over every
// memory node; a snapshot without kinds (Kind "") keeps the old meaning.
func TestNeverBindsToDeviceMemory(t *testing.T) {
	d := [][]int{{10, 20, 30}, {20, 10, 15}, {30, 15, 10}}
	for _, kind := range []string{snapshot.NodeKindMovable, snapshot.NodeKindPMEM, snapshot.NodeKindHBM, snapshot.NodeKindFar, snapshot.NodeKindCXL, snapshot.NodeKindUnknown} {
		t.Run(kind, func(t *testing.T) {
			s := mkHost(hostSpec{ids: []int{0, 1, 252}, cores: []int{2, 4, 0}, memGB: []int64{64, 0, 16}, dist: d})
			s.Topology.Nodes[0].Kind, s.Topology.Nodes[1].Kind, s.Topology.Nodes[2].Kind = snapshot.NodeKindDRAM, snapshot.NodeKindCPUOnly, kind
			s.Topology.Nodes[2].KindEvidence = []string{"a file"}
			spec := &Spec{Strategy: "binding", Instances: []Instance{
				{Name: "a", Engine: "oracle", CPUs: 2, MemoryGB: 1, Class: "guaranteed"},
				{Name: "b", Engine: "oracle", CPUs: 4, MemoryGB: 1, Class: "guaranteed"},
			}}
			r := Plan(s, spec)
			if !r.Feasible {
				t.Fatalf("infeasible: %v", r.Errors)
			}
			for _, ip := range r.Instances {
				if slices.Contains(ip.Mems, 252) {
					t.Errorf("%s: mems %v include node 252 (%s)", ip.Name, ip.Mems, kind)
				}
			}
			if b := r.Instances[1]; !reflect.DeepEqual(b.Mems, []int{0}) {
				t.Errorf("b: mems %v, want [0], the nearest DRAM", b.Mems)
			}
			if !slices.ContainsFunc(r.Warnings, func(w Problem) bool { return strings.Contains(w.Message, "node 252: its memory is") }) {
				t.Errorf("warnings %v do not say why node 252 is not used", r.Warnings)
			}
			spec.Strategy = "caging"
			r = Plan(s, spec)
			for _, ip := range r.Instances {
				if slices.Contains(ip.Mems, 252) {
					t.Errorf("caging %s: mems %v include node 252", ip.Name, ip.Mems)
				}
				for _, hp := range ip.Hugepages {
					if hp.Node == 252 {
						t.Errorf("caging %s: hugepages on node 252: %+v", ip.Name, ip.Hugepages)
					}
				}
			}
		})
	}
}

// Issue 25, on the fixture hosts' snapshots: binding and caging on a
// POWER9 with GPU memory nodes, a PMEM host, a CXL-tiered guest and an
// HBM flat-mode host put every instance's memory on DRAM nodes only.
func TestFixtureHostsBindDRAMOnly(t *testing.T) {
	for host, dram := range map[string][]int{"power9-gpu": {0, 8}, "pmem-kmem": {0, 1}, "cxl-guest": {0, 1}, "hbm-flat": {0, 1}} {
		s, err := snapshot.Load("../../testdata/golden/" + host + ".json")
		if err != nil {
			t.Fatal(err)
		}
		for _, strategy := range []string{"binding", "caging"} {
			spec := &Spec{Strategy: strategy, Instances: []Instance{
				{Name: "a", Engine: "oracle", CPUs: 2, MemoryGB: 1, Class: "guaranteed"},
				{Name: "b", Engine: "postgres", CPUs: 2, MemoryGB: 1, Class: "guaranteed"},
			}}
			r := Plan(s, spec)
			if !r.Feasible {
				t.Errorf("%s %s: infeasible: %v", host, strategy, r.Errors)
				continue
			}
			for _, ip := range r.Instances {
				for _, m := range ip.Mems {
					if !slices.Contains(dram, m) {
						t.Errorf("%s %s: %s mems %v: node %d is not DRAM", host, strategy, ip.Name, ip.Mems, m)
					}
				}
				for _, hp := range ip.Hugepages {
					if !slices.Contains(dram, hp.Node) {
						t.Errorf("%s %s: %s hugepages on node %d", host, strategy, ip.Name, hp.Node)
					}
				}
			}
		}
	}
}
