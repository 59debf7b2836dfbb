package lab

import (
	"fmt"
	"regexp"
	"strings"
)

// Scenarios is the lab suite, in the order scripts/lab runs it.
func Scenarios() []*Scenario {
	return append([]*Scenario{
		{
			Name: "one-node", Doc: "1 socket, 2 CPUs, no SRAT: the kernel's single node 0",
			Sockets: 1, Cores: 2, Threads: 1,
			Nodes: []Node{{ID: 0, CPUs: []int{0, 1}, MemMB: 384}},
		},
		twoNode(),
		{
			Name: "four-node-slit", Doc: "4 sockets = 4 nodes with a ring SLIT 10/21/31",
			Sockets: 4, Cores: 2, Threads: 1,
			Nodes: []Node{
				{ID: 0, CPUs: []int{0, 1}, MemMB: 192},
				{ID: 1, CPUs: []int{2, 3}, MemMB: 128},
				{ID: 2, CPUs: []int{4, 5}, MemMB: 160},
				{ID: 3, CPUs: []int{6, 7}, MemMB: 224},
			},
			Distances: [][]int{
				{10, 21, 31, 21},
				{21, 10, 21, 31},
				{31, 21, 10, 21},
				{21, 31, 21, 10},
			},
		},
		eightNodeOdd(),
		eightNodePlainNUMA(),
		{
			Name: "memoryless-cpuless", Doc: "node 1 has CPUs but no memory, node 2 memory but no CPUs; per-node hugepage writes read back",
			Sockets: 2, Cores: 2, Threads: 1,
			Nodes: []Node{
				{ID: 0, CPUs: []int{0, 1}, MemMB: 256},
				{ID: 1, CPUs: []int{2, 3}},
				{ID: 2, MemMB: 192},
			},
			Guest: hugepageProbe,
			Check: checkHugepageProbe(map[int]int64{0: 4, 1: 0, 2: 4}),
		},
		{
			Name: "smt", Doc: "2 sockets × 2 cores × 2 threads on Skylake-Server: SMT siblings and core ids",
			Sockets: 2, Cores: 2, Threads: 2, CPUModel: "Skylake-Server",
			Nodes: []Node{
				{ID: 0, CPUs: []int{0, 1, 2, 3}, MemMB: 256},
				{ID: 1, CPUs: []int{4, 5, 6, 7}, MemMB: 256},
			},
		},
		olderKernel(),
	}, append(append(applyScenarios(), placeScenarios()...), benchScenarios()...)...) // apply_scenarios.go, place_scenarios.go, bench_scenarios.go
}

// twoNode: 2 sockets = 2 nodes of different sizes, hugepages=16 at boot.
func twoNode() *Scenario {
	return &Scenario{
		Name: "two-node", Doc: "2 sockets = 2 nodes, default SLIT 10/20, boot-time hugepages=16 split 8/8 by the kernel",
		Sockets: 2, Cores: 2, Threads: 1,
		Nodes: []Node{
			{ID: 0, CPUs: []int{0, 1}, MemMB: 256},
			{ID: 1, CPUs: []int{2, 3}, MemMB: 320},
		},
		KernelArgs:       []string{"hugepages=16"},
		HugepagesPerNode: map[int]int64{0: 8, 1: 8},
	}
}

// olderKernel boots Debian 11's Linux 5.10 (Scenario.Kernel) on the
// two-node layout: the topology checks of every scenario, and what differs
// from this machine's kernel (docs/snapshot.md, "Kernel eras").
func olderKernel() *Scenario {
	s := twoNode()
	s.Name = "older-kernel-5-10"
	s.Doc = "Debian 11's Linux 5.10 on two-node's layout: topology, and the 5.10 layout read (sched knobs in /proc/sys)"
	s.Kernel = "bullseye"
	s.Check = checkOlderKernel
	return s
}

// checkOlderKernel: the guest ran 5.10, and dbhost read what 5.10 has and
// 6.x does not: the scheduler tunables still in /proc/sys (moved to debugfs
// in 5.13; absent on this machine's kernel).
func checkOlderKernel(r *Result) error {
	s := r.Snapshot
	var bad []string
	if !strings.HasPrefix(s.Host.Kernel, "5.10.") {
		bad = append(bad, fmt.Sprintf("host.kernel: expected 5.10.*, got %q", s.Host.Kernel))
	}
	for _, k := range []string{"kernel.sched_migration_cost_ns", "kernel.sched_min_granularity_ns", "kernel.sched_wakeup_granularity_ns"} {
		if _, ok := s.Sysctl[k]; !ok {
			bad = append(bad, fmt.Sprintf("sysctl %s: expected read (in /proc/sys before 5.13), got absent", k))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	return nil
}

// eightNodeOdd is 8 nodes where node 4 holds CPU 0 and CPU 15, which -numa
// cannot express (Linux would renumber the node holding CPU 0 as node 0):
// SRAT and SLIT come from this package. SLIT: 10 local, 16 within a pair of
// nodes (0-1, 2-3, ...), 22 within a half (0-3, 4-7), 32 across.
func eightNodeOdd() *Scenario {
	s := &Scenario{
		Name: "eight-node-odd", Doc: "8 nodes, node 4 = CPUs 0 and 15, own SRAT/SLIT via -acpitable",
		Sockets: 8, Cores: 2, Threads: 1, OwnACPI: true,
	}
	next := 1
	for id := 0; id < 8; id++ {
		n := Node{ID: id, MemMB: 128 + 32*id} // distinct sizes: a swapped node shows
		if id == 4 {
			n.CPUs = []int{0, 15}
		} else {
			n.CPUs = []int{next, next + 1}
			next += 2
		}
		s.Nodes = append(s.Nodes, n)
	}
	s.Distances = make([][]int, 8)
	for i := range s.Distances {
		s.Distances[i] = make([]int, 8)
		for j := range s.Distances[i] {
			switch {
			case i == j:
				s.Distances[i][j] = 10
			case i/2 == j/2:
				s.Distances[i][j] = 16
			case i/4 == j/4:
				s.Distances[i][j] = 22
			default:
				s.Distances[i][j] = 32
			}
		}
	}
	return s
}

// eightNodePlainNUMA is the negative control of eight-node-odd: the same
// layout through plain -numa. Linux names nodes in the order their CPUs
// appear, so the node holding CPU 0 becomes node 0, and the lab must say so.
func eightNodePlainNUMA() *Scenario {
	s := eightNodeOdd()
	s.Name = "eight-node-plain-numa"
	s.Doc = "negative control: eight-node-odd through plain -numa; Linux renumbers, the lab must report it"
	s.OwnACPI = false
	s.WantMismatch = "node 0 cpus: expected [1 2], got [0 15]"
	return s
}

// hugepageProbe writes 4 to every node's 2 MB nr_hugepages, reads it back,
// and puts it back to 0: "node N write=RC read=V". On a memoryless node the
// kernel accepts the write and keeps 0.
const hugepageProbe = `for d in /sys/devices/system/node/node[0-9]*; do
	n=${d##*node}
	f=$d/hugepages/hugepages-2048kB/nr_hugepages
	if [ ! -e $f ]; then echo "node $n nofile"; continue; fi
	echo 4 > $f; rc=$?
	echo "node $n write=$rc read=$(cat $f)"
	echo 0 > $f
done
# cgroup v2: a cpuset naming only the memoryless node 1 falls back to the
# parent's memory nodes in cpuset.mems.effective.
cg=/sys/fs/cgroup
echo +cpuset > $cg/cgroup.subtree_control && mkdir $cg/lab && echo 1 > $cg/lab/cpuset.mems
echo "cpuset mems=1 write=$? mems=$(cat $cg/lab/cpuset.mems) effective=$(cat $cg/lab/cpuset.mems.effective) root=$(cat $cg/cpuset.mems.effective)"
rmdir $cg/lab
# Files left in $LAB_OUT come back as Result.Files.
cat /sys/devices/system/node/node1/meminfo > $LAB_OUT/node1-meminfo
`

// Probe is hugepageProbe's output: per node the write's exit status and the
// value read back, and the key=value fields of its "cpuset" line.
type Probe struct {
	Nodes  map[int][2]int64
	Cpuset map[string]string
}

// parseHugepageProbe reads hugepageProbe's "node N write=RC read=V" and
// "cpuset k=v ..." lines; other lines are ignored.
func parseHugepageProbe(out string) (*Probe, error) {
	p := &Probe{Nodes: map[int][2]int64{}, Cpuset: map[string]string{}}
	for i, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "node "):
			var node int
			var rc, v int64
			var rest string
			if n, _ := fmt.Sscanf(l, "node %d write=%d read=%d%s", &node, &rc, &v, &rest); n != 3 || node < 0 {
				return nil, fmt.Errorf("line %d: %q: expected \"node N write=RC read=V\"", i+1, trunc(l, 60))
			}
			if _, dup := p.Nodes[node]; dup {
				return nil, fmt.Errorf("line %d: node %d twice", i+1, node)
			}
			p.Nodes[node] = [2]int64{rc, v}
		case strings.HasPrefix(l, "cpuset "):
			for _, f := range strings.Fields(l)[1:] {
				k, v, ok := strings.Cut(f, "=")
				if !ok || k == "" {
					return nil, fmt.Errorf("line %d: %q: expected key=value", i+1, trunc(f, 40))
				}
				p.Cpuset[k] = v
			}
		}
	}
	return p, nil
}

// checkHugepageProbe wants every write accepted (rc 0), the given counts read
// back, and the cgroup naming only memoryless node 1 to fall back to the
// root's memory nodes.
func checkHugepageProbe(want map[int]int64) func(*Result) error {
	return func(r *Result) error {
		got, err := parseHugepageProbe(r.Guest)
		if err != nil {
			return err
		}
		var bad []string
		for n, v := range want {
			g, ok := got.Nodes[n]
			switch {
			case !ok:
				bad = append(bad, fmt.Sprintf("node %d: no result", n))
			case g[0] != 0 || g[1] != v:
				bad = append(bad, fmt.Sprintf("node %d: expected write=0 read=%d, got write=%d read=%d", n, v, g[0], g[1]))
			}
		}
		if len(got.Nodes) != len(want) {
			bad = append(bad, fmt.Sprintf("%d nodes answered, expected %d", len(got.Nodes), len(want)))
		}
		if m := string(r.Files["node1-meminfo"]); !regexp.MustCompile(`(?m)^Node 1 MemTotal:\s+0 kB$`).MatchString(m) {
			bad = append(bad, fmt.Sprintf("node1-meminfo from $LAB_OUT: expected \"Node 1 MemTotal: 0 kB\", got %q", trunc(m, 120)))
		}
		c := got.Cpuset
		if c["write"] != "0" || c["mems"] != "1" || c["effective"] == "" || c["effective"] != c["root"] {
			bad = append(bad, fmt.Sprintf("cpuset: expected write=0 mems=1 effective=<root's>, got %v", c))
		}
		if len(bad) > 0 {
			return fmt.Errorf("%s\nguest output:\n%s", strings.Join(bad, "; "), r.Guest)
		}
		return nil
	}
}
