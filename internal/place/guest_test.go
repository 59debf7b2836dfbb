package place

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// checkGuests checks the kvm-guest properties of a plan on top of
// checkPlan's: whole cores, one host CPU per vCPU, memory (numatune,
// hugepages, cells) on the vCPUs' nodes only, emulator threads off every
// guest's vCPU cores, and no CPU in two places.
func checkGuests(t *testing.T, s *snapshot.Snapshot, spec *Spec, r *Result) {
	t.Helper()
	checkPlan(t, s, spec, r)
	if !r.Feasible {
		for _, ip := range r.Instances {
			if ip.Guest != nil {
				t.Errorf("%s: infeasible plan still places the guest", ip.Name)
			}
		}
		return
	}
	cpuNode, hasMem, _ := nodeOf(s)
	siblings := map[int][]int{}
	for _, c := range s.Topology.CPUs {
		siblings[c.ID] = c.Siblings
	}
	owner := map[int]string{} // exclusive CPUs: pinned guests, bound instances, emulator cores
	claim := func(cpu int, who string) {
		if o, ok := owner[cpu]; ok && o != who {
			t.Errorf("CPU %d in both %s and %s", cpu, o, who)
		}
		owner[cpu] = who
	}
	vcpuCores := map[int]bool{} // every CPU of a core holding a vCPU of a guaranteed guest
	for i, ip := range r.Instances {
		in := spec.Instances[i]
		if !in.Guest() {
			if ip.Group != "" && !ip.Caged && ip.Class == "guaranteed" {
				for _, c := range ip.CPUs {
					claim(c, ip.Name)
				}
			}
			continue
		}
		g := ip.Guest
		if g == nil {
			t.Fatalf("%s: feasible kvm-guest without its placement", ip.Name)
		}
		if g.Domain != in.DomainName() || g.VCPUs != in.CPUs || len(g.Pins) != in.CPUs {
			t.Errorf("%s: domain %q vcpus %d pins %d, want %q %d", ip.Name, g.Domain, g.VCPUs, len(g.Pins), in.DomainName(), in.CPUs)
		}
		if g.MemoryKB != r.pages(in)*r.HugepageSizeKB || float64(g.MemoryKB) < in.MemoryGB*1024*1024 {
			t.Errorf("%s: guest RAM %d KiB for %v GB in %d pages", ip.Name, g.MemoryKB, in.MemoryGB, r.pages(in))
		}
		if fmt.Sprint(g.Nodeset) != fmt.Sprint(ip.Mems) {
			t.Errorf("%s: numatune nodeset %v, mems %v", ip.Name, g.Nodeset, ip.Mems)
		}
		for _, h := range ip.Hugepages {
			if !contains(ip.Mems, h.Node) {
				t.Errorf("%s: pages on node %d outside its nodes %v", ip.Name, h.Node, ip.Mems)
			}
		}
		if !in.Guaranteed() {
			for _, p := range g.Pins {
				if fmt.Sprint(p.CPUs) != fmt.Sprint(ip.CPUs) {
					t.Errorf("%s: floating vCPU %d on %v, not the shared set %v", ip.Name, p.VCPU, p.CPUs, ip.CPUs)
				}
			}
			continue
		}
		if g.MemoryMode != "strict" {
			t.Errorf("%s: numatune %s for a pinned guest", ip.Name, g.MemoryMode)
		}
		used := map[int]bool{}
		for v, p := range g.Pins {
			if p.VCPU != v || len(p.CPUs) != 1 || !contains(ip.CPUs, p.CPUs[0]) || used[p.CPUs[0]] {
				t.Errorf("%s: vcpupin %+v is not 1:1 onto its CPUs %v", ip.Name, p, ip.CPUs)
				continue
			}
			used[p.CPUs[0]] = true
		}
		// whole cores, and every CPU of them is the guest's
		for _, c := range ip.CPUs {
			claim(c, ip.Name)
			for _, sib := range siblings[c] {
				if !contains(ip.CPUs, sib) {
					t.Errorf("%s: CPU %d without its sibling %d", ip.Name, c, sib)
				}
				vcpuCores[sib] = true
			}
		}
		// no idle core: the cores the vCPUs need, or one per node when
		// memory needed more nodes than the vCPUs did
		cores := map[int]bool{}
		nodes := map[int]bool{}
		for _, c := range ip.CPUs {
			cores[siblings[c][0]] = true
			nodes[cpuNode[c]] = true
		}
		tpc := len(ip.CPUs) / len(cores)
		if need := max((in.CPUs+tpc-1)/tpc, len(nodes)); len(cores) != need {
			t.Errorf("%s: %d cores (%d CPUs) for %d vCPUs on %d nodes", ip.Name, len(cores), len(ip.CPUs), in.CPUs, len(nodes))
		}
		// cells: host nodes among mems, vCPUs on that node's CPUs, RAM sums up
		var sum int64
		seen := map[int]bool{}
		for _, c := range g.Cells {
			sum += c.MemoryKB
			if !contains(ip.Mems, c.HostNode) || !hasMem[c.HostNode] {
				t.Errorf("%s: cell %d on node %d, mems %v", ip.Name, c.ID, c.HostNode, ip.Mems)
			}
			for _, v := range c.VCPUs {
				seen[v] = true
				cpu := g.Pins[v].CPUs[0]
				if n := cpuNode[cpu]; hasMem[n] && n != c.HostNode {
					t.Errorf("%s: vCPU %d (host CPU %d, node %d) in cell %d of node %d", ip.Name, v, cpu, n, c.ID, c.HostNode)
				}
			}
		}
		if len(g.Cells) > 0 && (sum != g.MemoryKB || len(seen) != in.CPUs) {
			t.Errorf("%s: cells hold %d KiB and %d vCPUs of %d KiB and %d", ip.Name, sum, len(seen), g.MemoryKB, in.CPUs)
		}
		if len(g.Cells) == 1 || len(g.Cells) == 0 && len(ip.Mems) > 1 {
			t.Errorf("%s: %d cells for mems %v", ip.Name, len(g.Cells), ip.Mems)
		}
		tp := g.Topology
		if tp == nil || tp.Sockets*tp.Cores*tp.Threads != in.CPUs {
			t.Errorf("%s: topology %+v for %d vCPUs", ip.Name, tp, in.CPUs)
		}
		// the emulator threads run on the guest's nodes
		for _, c := range g.EmulatorCPUs {
			if !contains(ip.Mems, cpuNode[c]) && hasMem[cpuNode[c]] {
				t.Errorf("%s: emulator CPU %d on node %d, off its nodes %v", ip.Name, c, cpuNode[c], ip.Mems)
			}
		}
	}
	for _, ec := range r.Emulator {
		for _, c := range ec.CPUs {
			claim(c, "emulator core of node "+fmt.Sprint(ec.Node))
			if cpuNode[c] != ec.Node {
				t.Errorf("emulator core %v is not on node %d", ec.CPUs, ec.Node)
			}
		}
	}
	for _, ip := range r.Instances {
		g := ip.Guest
		if g == nil || ip.Class != "guaranteed" || g.EmulatorOnVCPUs {
			continue
		}
		for _, c := range g.EmulatorCPUs {
			if vcpuCores[c] {
				t.Errorf("%s: emulator CPU %d is on a core holding vCPUs", ip.Name, c)
			}
		}
	}
	// the shared sets (best-effort, caged) hold no exclusive CPU
	for _, ip := range r.Instances {
		if ip.Class == "guaranteed" && (ip.Group != "" || ip.Guest != nil) && !ip.Caged {
			continue
		}
		for _, c := range ip.CPUs {
			if o, ok := owner[c]; ok {
				t.Errorf("%s (shared) holds CPU %d of %s", ip.Name, c, o)
			}
		}
	}
}

// fewestNodes is the smallest number of nodes of an empty host that hold
// k CPU threads in whole cores and p free pages on their memory nodes, by
// brute force over node subsets.
func fewestNodes(r *Result, k int, p int64) int {
	t := r.topo
	n := len(t.nodes)
	best, bestRemote := -1, 0
	for mask := 1; mask < 1<<n; mask++ {
		var set []int
		cpus := 0
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				if len(t.nodes[i].cores) == 0 {
					cpus = -1 << 30 // a CPU-less node is never in a CPU set (its memory is nobody's local memory)
				}
				set = append(set, i)
				for _, c := range t.nodes[i].cores {
					cpus += len(c.cpus)
				}
			}
		}
		mems, remote := t.memsOf(set)
		var avail int64
		for _, m := range mems {
			avail += t.nodes[m].pool + t.nodes[m].grow
		}
		if cpus < max(k, len(set)) || avail < p || len(mems) == 0 {
			continue
		}
		// the planner's order: fewer memoryless nodes (remote memory) first, then fewer nodes
		if best < 0 || remote < bestRemote || remote == bestRemote && len(set) < best {
			best, bestRemote = len(set), remote
		}
	}
	return best
}

func randomGuestSpec(rng *rand.Rand, threads int) *Spec {
	s := randomSpec(rng, threads)
	for i := range s.Instances {
		if rng.Intn(2) == 0 {
			s.Instances[i].Engine = EngineKVMGuest
			s.Instances[i].MemoryGB = float64(1 + rng.Intn(12))
			if rng.Intn(3) == 0 {
				s.Instances[i].Domain = fmt.Sprintf("vm-%d.db", i)
			}
		}
	}
	return s
}

func TestGuestPlacementProperties(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	feasible := map[string]int{}
	iters := 600
	if testing.Short() {
		iters = 200
	}
	for iter := 0; iter < iters; iter++ {
		s, _ := randomHost(rng)
		spec := randomGuestSpec(rng, s.Topology.Threads)
		r := Plan(s, spec)
		checkGuests(t, s, spec, r)
		if r.Feasible {
			feasible[spec.Strategy]++
		} else if len(r.Errors) == 0 {
			t.Fatal("infeasible without a reason")
		}
		a, _ := json.Marshal(r)
		if b, _ := json.Marshal(Plan(s, spec)); string(a) != string(b) {
			t.Fatalf("two plans of the same input differ:\n%s\n%s", a, b)
		}
		// fewest nodes: one guest alone on the host
		for _, in := range spec.Instances {
			if !in.Guest() || !in.Guaranteed() || len(s.Topology.Nodes) > 12 {
				continue
			}
			one := &Spec{Strategy: "binding", Instances: []Instance{in}}
			r1 := Plan(s, one)
			want := fewestNodes(r1, in.CPUs, r1.pages(in))
			if !r1.Feasible {
				if want > 0 {
					t.Errorf("%s alone: infeasible (%v) though %d node(s) hold it", in.Name, r1.Errors, want)
				}
				continue
			}
			nodes := map[int]bool{}
			for _, c := range r1.Instances[0].CPUs {
				nodes[r1.topo.cpuNodeIdx()[c]] = true
			}
			if len(nodes) != want {
				t.Errorf("%s alone (%d vCPUs, %d pages): on %d nodes %v, the fewest is %d", in.Name, in.CPUs, r1.pages(in), len(nodes), r1.Instances[0].Mems, want)
			}
		}
		if t.Failed() {
			j, _ := json.MarshalIndent(spec, "", " ")
			t.Fatalf("iteration %d, spec %s\nplan text:\n%s", iter, j, textView(r))
		}
	}
	for _, st := range []string{"binding", "caging", "mix"} {
		if feasible[st] == 0 {
			t.Errorf("no feasible %s plan with guests in the sample", st)
		}
	}
	t.Logf("feasible plans: %v", feasible)
}

// host240 is an 8-node, 240-thread host: 4 sockets of 2 sub-NUMA nodes,
// 15 cores × 2 threads per node, 256 GB per node, SLIT 10/11 in a socket,
// 21 to the next socket, 31 across.
func host240() *snapshot.Snapshot {
	d := make([][]int, 8)
	for i := range d {
		d[i] = make([]int, 8)
		for j := range d[i] {
			switch {
			case i == j:
				d[i][j] = 10
			case i/2 == j/2:
				d[i][j] = 11
			case i/4 == j/4:
				d[i][j] = 21
			default:
				d[i][j] = 31
			}
		}
	}
	return mkHost(hostSpec{ids: seq(8), cores: rep(8, 15), smt: true, memGB: rep64(8, 256), dist: d})
}

func TestGuestsOn240CPUs8Nodes(t *testing.T) {
	s := host240()
	if s.Topology.Threads != 240 {
		t.Fatalf("%d threads", s.Topology.Threads)
	}
	// seed 003's 1, 2 and 4 VMs, each a node's worth (28 vCPUs: 14 of
	// the 15 cores, the 15th for the emulator threads), then one that
	// spans a socket's two nodes and a best-effort one.
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "vm1", Engine: EngineKVMGuest, CPUs: 28, MemoryGB: 96, Class: "guaranteed"},
		{Name: "vm2", Engine: EngineKVMGuest, CPUs: 28, MemoryGB: 96, Class: "guaranteed"},
		{Name: "vm3", Engine: EngineKVMGuest, CPUs: 28, MemoryGB: 96, Class: "guaranteed"},
		{Name: "vm4", Engine: EngineKVMGuest, CPUs: 28, MemoryGB: 96, Class: "guaranteed"},
		{Name: "big", Engine: EngineKVMGuest, CPUs: 48, MemoryGB: 200, Class: "guaranteed", Domain: "big-db.example"},
		{Name: "erp", Engine: "oracle", CPUs: 16, MemoryGB: 64, Class: "guaranteed"},
		{Name: "test", Engine: EngineKVMGuest, CPUs: 4, MemoryGB: 8, Class: "best-effort"},
		{Name: "rep", Engine: "postgres", CPUs: 4, MemoryGB: 4, Class: "best-effort"},
	}}
	r := Plan(s, spec)
	checkGuests(t, s, spec, r)
	if !r.Feasible {
		t.Fatalf("infeasible: %v", r.Errors)
	}
	big := r.Instances[4].Guest
	if len(big.Cells) != 2 || r.Instances[4].Mems[1]-r.Instances[4].Mems[0] != 1 || r.Instances[4].Mems[0]%2 != 0 {
		t.Errorf("big: cells %+v on mems %v, want the two nodes of one socket", big.Cells, r.Instances[4].Mems)
	}
	if tp := big.Topology; tp.Threads != 2 || tp.Sockets != 2 || tp.Cores != 12 {
		t.Errorf("big: topology %+v, want 2 sockets × 12 cores × 2 threads; cells %+v", tp, big.Cells)
	}
	for i := 0; i < 4; i++ {
		ip := r.Instances[i]
		if len(ip.Mems) != 1 || ip.Guest.EmulatorOnVCPUs || len(ip.Guest.EmulatorCPUs) != 2 {
			t.Errorf("%s: mems %v emulator %v", ip.Name, ip.Mems, ip.Guest.EmulatorCPUs)
		}
	}
	text := string(textView(r))
	for _, want := range []string{"guest big (domain big-db.example): 48 vCPUs", "; cell 1: vCPUs 24-47", "emulator core: node", "0-3→"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// TestGuestsOnFixtureHosts places a guest that fills a node, one that
// spans two, a best-effort guest and a database on every fixture host
// (real trees: odd node numbering, memoryless and CPU-less nodes, nosmt,
// numa=off, Intel and round-robin numbering), under each strategy.
func TestGuestsOnFixtureHosts(t *testing.T) {
	hosts, err := os.ReadDir("../../testdata/hosts")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range hosts {
		dir := filepath.Join("../../testdata/hosts", h.Name())
		if !h.IsDir() || strings.HasPrefix(h.Name(), "sosreport") {
			continue
		}
		s := facts.Collect(facts.Root{Dir: dir}, facts.Options{Kind: "root", Path: h.Name()})
		if len(s.Topology.CPUs) == 0 {
			continue
		}
		n++
		perNode := s.Topology.Threads
		if len(s.Topology.Nodes) > 0 {
			perNode = len(s.Topology.Nodes[0].CPUs)
		}
		for _, st := range []string{"binding", "caging", "mix"} {
			spec := &Spec{Strategy: st, Instances: []Instance{
				{Name: "fill", Engine: EngineKVMGuest, CPUs: max(1, perNode-2), MemoryGB: 1, Class: "guaranteed"},
				{Name: "small", Engine: EngineKVMGuest, CPUs: 1, MemoryGB: 0.5, Class: "guaranteed"},
				{Name: "db", Engine: "postgres", CPUs: 2, MemoryGB: 0.25, Class: "guaranteed"},
				{Name: "be", Engine: EngineKVMGuest, CPUs: 2, MemoryGB: 0.25, Class: "best-effort"},
			}}
			r := Plan(s, spec)
			checkGuests(t, s, spec, r)
			if !r.Feasible {
				t.Logf("%s %s: infeasible: %v", h.Name(), st, r.Errors)
				continue
			}
			for _, ip := range r.Instances {
				if ip.Guest != nil {
					checkFragments(t, h.Name()+"/"+ip.Name, ip.Guest)
				}
			}
		}
	}
	if n < 8 {
		t.Errorf("only %d fixture hosts with CPUs", n)
	}
}

// checkFragments parses a guest's fragments as libvirt would see them in a
// domain and checks they say what the placement says.
func checkFragments(t *testing.T, who string, g *Guest) {
	t.Helper()
	var d struct {
		Memory  int64 `xml:"memory"`
		VCPU    int   `xml:"vcpu"`
		Backing struct {
			Pages []struct {
				Size int64  `xml:"size,attr"`
				Unit string `xml:"unit,attr"`
			} `xml:"hugepages>page"`
		} `xml:"memoryBacking"`
		Pins []struct {
			VCPU   int    `xml:"vcpu,attr"`
			CPUSet string `xml:"cpuset,attr"`
		} `xml:"cputune>vcpupin"`
		Emulator struct {
			CPUSet string `xml:"cpuset,attr"`
		} `xml:"cputune>emulatorpin"`
		NUMA struct {
			Memory struct {
				Mode    string `xml:"mode,attr"`
				Nodeset string `xml:"nodeset,attr"`
			} `xml:"memory"`
			Memnodes []struct {
				Cell    int    `xml:"cellid,attr"`
				Nodeset string `xml:"nodeset,attr"`
			} `xml:"memnode"`
		} `xml:"numatune"`
		Cells []struct {
			ID     int    `xml:"id,attr"`
			CPUs   string `xml:"cpus,attr"`
			Memory int64  `xml:"memory,attr"`
		} `xml:"cpu>numa>cell"`
	}
	if err := xml.Unmarshal([]byte("<domain>\n"+g.Fragments()+"</domain>"), &d); err != nil {
		t.Fatalf("%s: fragments are not XML: %v\n%s", who, err, g.Fragments())
	}
	if d.Memory != g.MemoryKB || d.VCPU != g.VCPUs || len(d.Backing.Pages) != 1 || d.Backing.Pages[0].Size != g.PageKB {
		t.Errorf("%s: memory %d vcpu %d pages %+v", who, d.Memory, d.VCPU, d.Backing.Pages)
	}
	if len(d.Pins) != len(g.Pins) || d.Emulator.CPUSet != cpulist.Format(g.EmulatorCPUs) {
		t.Errorf("%s: %d vcpupins, emulatorpin %q", who, len(d.Pins), d.Emulator.CPUSet)
	}
	for i, p := range d.Pins {
		if p.VCPU != g.Pins[i].VCPU || p.CPUSet != cpulist.Format(g.Pins[i].CPUs) {
			t.Errorf("%s: vcpupin %+v, want %+v", who, p, g.Pins[i])
		}
	}
	if d.NUMA.Memory.Mode != g.MemoryMode || d.NUMA.Memory.Nodeset != cpulist.Format(g.Nodeset) || len(d.NUMA.Memnodes) != len(g.Cells) || len(d.Cells) != len(g.Cells) {
		t.Errorf("%s: numatune %+v cells %+v", who, d.NUMA, d.Cells)
	}
}

func TestGuestInfeasibleSaysWhy(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, smt: true, memGB: []int64{16, 16}})
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "wide", Engine: EngineKVMGuest, CPUs: 20, MemoryGB: 2, Class: "guaranteed"},
		{Name: "fat", Engine: EngineKVMGuest, CPUs: 2, MemoryGB: 40, Class: "guaranteed"},
		{Name: "ok", Engine: EngineKVMGuest, CPUs: 4, MemoryGB: 2, Class: "guaranteed"},
	}}
	r := Plan(s, spec)
	checkGuests(t, s, spec, r)
	if r.Feasible {
		t.Fatal("feasible")
	}
	var all []string
	for _, e := range r.Errors {
		all = append(all, e.Instance+": "+e.Message)
	}
	got := strings.Join(all, "\n")
	for _, want := range []string{"wide: needs 20 CPU threads in whole cores", "fat: needs 20480 hugepages of 2048 kB", "short by"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	// a vCPU count the host has, memory it has, but not on the same nodes
	s = mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 1}, memGB: []int64{1, 64}})
	spec = &Spec{Strategy: "binding", Instances: []Instance{{Name: "split", Engine: EngineKVMGuest, CPUs: 4, MemoryGB: 20, Class: "guaranteed"}}}
	r = Plan(s, spec)
	checkGuests(t, s, spec, r)
	if !r.Feasible {
		// 4 CPUs on node 0 with 0.5 GB free, 20 GB only on node 1: both nodes
		t.Fatalf("infeasible: %v", r.Errors)
	}
	if len(r.Instances[0].Guest.Cells) != 2 {
		t.Errorf("split: %+v", r.Instances[0].Guest)
	}
	// caging after the guests: the caged instances share what is left
	s = mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, memGB: []int64{16, 16}})
	spec = &Spec{Strategy: "caging", Instances: []Instance{
		{Name: "vm", Engine: EngineKVMGuest, CPUs: 4, MemoryGB: 2, Class: "guaranteed"},
		{Name: "a", Engine: "oracle", CPUs: 2, Class: "guaranteed"},
		{Name: "b", Engine: "oracle", CPUs: 3, Class: "best-effort"},
	}}
	r = Plan(s, spec)
	checkGuests(t, s, spec, r)
	if r.Feasible || !strings.Contains(r.Errors[0].Message, "(of 8, after the pinned guests' cores)") {
		t.Errorf("caging on the 3 threads left: %+v", r.Errors)
	}
}

func TestGuestSpec(t *testing.T) {
	base := "strategy: binding\ninstances:\n  - name: db1\n    engine: kvm-guest\n    cpus: 8\n    memory_gb: 16\n    class: guaranteed\n"
	s, err := ParseSpec("g.yaml", []byte(base+"    domain: db1.prod\n"))
	if err != nil || s.Instances[0].DomainName() != "db1.prod" || !s.Instances[0].Guest() {
		t.Fatalf("%v %+v", err, s)
	}
	cases := []struct{ in, want string }{
		{base + "    domain: -rf\n", `g.yaml:8: db1: domain "-rf"`},
		{base + "    domain: a/b\n", `g.yaml:8: db1: domain "a/b"`},
		{strings.Replace(base, "memory_gb: 16", "memory_gb: 0", 1), "g.yaml:6: db1: memory_gb 0: a kvm-guest needs its RAM"},
		{strings.Replace(base, "kvm-guest", "oracle", 1) + "    domain: x\n", "g.yaml:8: db1: domain: only a kvm-guest"},
		{base + strings.Replace(base[len("strategy: binding\ninstances:\n"):], "name: db1", "name: db2\n    domain: db1", 1), `g.yaml:9: db2: domain "db1": already placed by the guest on line 3`},
	}
	for _, c := range cases {
		if _, err := ParseSpec("g.yaml", []byte(c.in)); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestGuestGoldens writes the artifacts of seed 003's guest layouts (1, 2
// and 4 VMs on a 4-node host like its "numactl --hardware" one, plus a
// guest spanning two nodes next to a bound database) and compares them
// with testdata/guests/.
func TestGuestGoldens(t *testing.T) {
	// 003, "Memory Tuning – Finding NUMA layout": 4 nodes, 64 CPUs, SLIT
	// 10/21 (numbered node by node here; the fixture hosts cover odd
	// numberings), 64 GB per node.
	s := mkHost(hostSpec{ids: []int{0, 1, 2, 3}, cores: []int{8, 8, 8, 8}, smt: true, memGB: []int64{64, 64, 64, 64},
		dist: [][]int{{10, 21, 21, 21}, {21, 10, 21, 21}, {21, 21, 10, 21}, {21, 21, 21, 10}}})
	vm := func(name string, cpus int, gb float64) Instance {
		return Instance{Name: name, Engine: EngineKVMGuest, CPUs: cpus, MemoryGB: gb, Class: "guaranteed"}
	}
	cases := map[string]*Spec{
		"1vm":   {Strategy: "binding", Instances: []Instance{vm("vm1", 14, 24)}},
		"2vm":   {Strategy: "binding", Instances: []Instance{vm("vm1", 14, 24), vm("vm2", 14, 24)}},
		"4vm":   {Strategy: "binding", Instances: []Instance{vm("vm1", 14, 24), vm("vm2", 14, 24), vm("vm3", 14, 24), vm("vm4", 14, 24)}},
		"mixed": {Strategy: "mix", Instances: []Instance{vm("wide", 24, 40), {Name: "erp", Engine: "oracle", CPUs: 8, MemoryGB: 8, Class: "guaranteed"}, {Name: "scratch", Engine: EngineKVMGuest, CPUs: 3, MemoryGB: 2, Class: "best-effort", Domain: "scratch-vm"}}},
	}
	got := map[string][]byte{}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := Plan(s, cases[n])
		checkGuests(t, s, cases[n], r)
		if !r.Feasible {
			t.Fatalf("%s: infeasible: %v", n, r.Errors)
		}
		for f, c := range r.Artifacts("v2", textView(r)) {
			got[n+"/"+f] = []byte(c)
		}
		j, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got[n+"/plan.json"] = append(j, '\n')
	}
	golden.Check(t, golden.Set{Dir: "testdata/guests", Hint: "go test ./internal/place -run TestGuestGoldens -update"}, got)
}

// TestFragmentsReadByTheAuditParser reads every guest's fragments, put in a
// domain, with the parser `dbhost audit --libvirt` uses
// (artifacts.ParseDomain, written apart from this package): a second,
// independent reading of what the plan says.
func TestFragmentsReadByTheAuditParser(t *testing.T) {
	s := host240()
	spec := &Spec{Strategy: "mix", Instances: []Instance{
		{Name: "wide", Engine: EngineKVMGuest, CPUs: 48, MemoryGB: 200, Class: "guaranteed", Domain: "wide.db"},
		{Name: "odd", Engine: EngineKVMGuest, CPUs: 7, MemoryGB: 3, Class: "guaranteed"},
		{Name: "erp", Engine: "oracle", CPUs: 16, MemoryGB: 64, Class: "guaranteed"},
		{Name: "float", Engine: EngineKVMGuest, CPUs: 4, MemoryGB: 8, Class: "best-effort"},
	}}
	r := Plan(s, spec)
	checkGuests(t, s, spec, r)
	if !r.Feasible {
		t.Fatalf("infeasible: %v", r.Errors)
	}
	for _, ip := range r.Instances {
		g := ip.Guest
		if g == nil {
			continue
		}
		doc := "<domain type='kvm'>\n  <name>" + g.Domain + "</name>\n" + g.Fragments() + "</domain>\n"
		d, errs := artifacts.ParseDomain([]byte(doc))
		if len(errs) > 0 {
			t.Fatalf("%s: %v\n%s", ip.Name, errs, doc)
		}
		if d.Name != g.Domain || d.VCPUs != g.VCPUs || d.MemoryKB == nil || *d.MemoryKB != g.MemoryKB {
			t.Errorf("%s: name %q vcpus %d memory %v", ip.Name, d.Name, d.VCPUs, d.MemoryKB)
		}
		if d.MemoryBacking == nil || !d.MemoryBacking.Hugepages || len(d.MemoryBacking.Pages) != 1 || d.MemoryBacking.Pages[0].SizeKB != g.PageKB {
			t.Errorf("%s: memoryBacking %+v", ip.Name, d.MemoryBacking)
		}
		if len(d.CPUTune.VCPUPins) != len(g.Pins) || d.CPUTune.EmulatorPin == nil || fmt.Sprint(d.CPUTune.EmulatorPin.IDs) != fmt.Sprint(g.EmulatorCPUs) {
			t.Errorf("%s: cputune %+v", ip.Name, d.CPUTune)
		}
		for i, p := range d.CPUTune.VCPUPins {
			if p.VCPU != g.Pins[i].VCPU || fmt.Sprint(p.CPUSet.IDs) != fmt.Sprint(g.Pins[i].CPUs) {
				t.Errorf("%s: vcpupin %+v, want %+v", ip.Name, p, g.Pins[i])
			}
		}
		if nt := d.NUMATune; nt == nil || nt.Mode != g.MemoryMode || nt.Nodeset == nil || fmt.Sprint(nt.Nodeset.IDs) != fmt.Sprint(g.Nodeset) || len(nt.MemNodes) != len(g.Cells) {
			t.Errorf("%s: numatune %+v", ip.Name, d.NUMATune)
		}
		if g.Topology == nil {
			if d.CPU != nil {
				t.Errorf("%s: a floating guest's <cpu> was written: %+v", ip.Name, d.CPU)
			}
			continue
		}
		if d.CPU == nil || d.CPU.Topology == nil || d.CPU.Topology.Sockets*d.CPU.Topology.Cores*d.CPU.Topology.Threads != g.VCPUs || len(d.CPU.Cells) != len(g.Cells) {
			t.Fatalf("%s: cpu %+v", ip.Name, d.CPU)
		}
		var sum int64
		for i, c := range d.CPU.Cells {
			sum += c.MemoryKB
			if c.ID != g.Cells[i].ID || fmt.Sprint(c.CPUs.IDs) != fmt.Sprint(g.Cells[i].VCPUs) || d.NUMATune.MemNodes[i].CellID != c.ID ||
				fmt.Sprint(d.NUMATune.MemNodes[i].Nodeset.IDs) != fmt.Sprint([]int{g.Cells[i].HostNode}) {
				t.Errorf("%s: cell %+v memnode %+v, want %+v", ip.Name, c, d.NUMATune.MemNodes[i], g.Cells[i])
			}
		}
		if len(d.CPU.Cells) > 0 && sum != g.MemoryKB {
			t.Errorf("%s: cells hold %d KiB of %d", ip.Name, sum, g.MemoryKB)
		}
	}
}
