package bench

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
)

// Binding is where --cpu-node, --mem-node or --cpus put a bench's
// workload: its threads' CPUs (sched_setaffinity) and memory
// (set_mempolicy MPOL_BIND), inherited by the processes it starts (fio,
// pgbench), as numactl --cpunodebind/--membind or taskset would.
type Binding struct {
	CPUNode  int   // -1: not asked
	MemNode  int   // -1: not asked
	CPUs     []int // nil: every CPU
	MemNodes []int // nil: the default (local) policy
	// Observed is what the kernel shows for the last bound child
	// (/proc/PID/status Cpus_allowed_list, the policy in numa_maps).
	Observed map[string]string
}

// ResolveBinding checks --cpu-node, --mem-node and --cpus against this
// host's online nodes and CPUs: nil when none was given; an error (the
// caller's usage error, exit 2) for a node or CPU that does not exist.
// --cpu-node alone binds memory to the same node; --cpus alone binds CPUs
// only.
func ResolveBinding(cpuNode, memNode int, cpus []int) (*Binding, error) {
	if cpuNode < 0 && memNode < 0 && len(cpus) == 0 {
		return nil, nil
	}
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("--cpu-node, --mem-node and --cpus bind through Linux system calls: not on %s", runtime.GOOS)
	}
	if cpuNode >= 0 && len(cpus) > 0 {
		return nil, fmt.Errorf("--cpu-node and --cpus: give one")
	}
	nodes, err := OnlineNodes()
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	online := cpulist.Format(ids)
	b := &Binding{CPUNode: cpuNode, MemNode: memNode}
	if cpuNode >= 0 {
		n, ok := NodeByID(nodes, cpuNode)
		if !ok || len(n.CPUs) == 0 {
			return nil, fmt.Errorf("--cpu-node %d: not an online node with CPUs on this host (online nodes: %s)", cpuNode, online)
		}
		b.CPUs = n.CPUs
		if memNode < 0 {
			b.MemNode = cpuNode
		}
	}
	if len(cpus) > 0 {
		on, err := onlineCPUs()
		if err != nil {
			return nil, err
		}
		set := map[int]bool{}
		for _, c := range on {
			set[c] = true
		}
		for _, c := range cpus {
			if !set[c] {
				return nil, fmt.Errorf("--cpus %s: CPU %d is not online on this host (online: %s)", cpulist.Format(cpus), c, cpulist.Format(on))
			}
		}
		b.CPUs = cpus
	}
	if b.MemNode >= 0 {
		if _, ok := NodeByID(nodes, b.MemNode); !ok {
			return nil, fmt.Errorf("--mem-node %d: not an online node on this host (online nodes: %s)", b.MemNode, online)
		}
		b.MemNodes = []int{b.MemNode}
	}
	return b, nil
}

// Params is the binding as the result's params record it: what was asked,
// what it applies to, and what the kernel showed.
func (b *Binding) Params(appliesTo string) map[string]any {
	p := map[string]any{"applies_to": appliesTo}
	if b.CPUNode >= 0 {
		p["cpu_node"] = b.CPUNode
	}
	if b.MemNode >= 0 {
		p["mem_node"] = b.MemNode
	}
	p["cpus"] = "all (not bound)"
	if len(b.CPUs) > 0 {
		p["cpus"] = cpulist.Format(b.CPUs)
	}
	p["memory"] = "default policy (not bound)"
	if len(b.MemNodes) > 0 {
		p["memory"] = "MPOL_BIND to node " + cpulist.Format(b.MemNodes)
	}
	for k, v := range b.Observed {
		p["observed_"+k] = v
	}
	return p
}

// observe records what the kernel shows for a bound child: the CPUs it
// may run on and the memory policy of its first mapping.
func (b *Binding) observe(pid int) {
	o := map[string]string{}
	if data, err := readSmall("/proc/" + strconv.Itoa(pid) + "/status"); err == nil {
		for _, l := range splitLines(data) {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				o["cpus_allowed"] = strings.TrimSpace(v)
			}
		}
	}
	// numa_maps' first line: "ADDRESS POLICY ..." (the file can be
	// large: only its first 4 KiB are read).
	if f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/numa_maps"); err == nil {
		head, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if w := strings.Fields(strings.SplitN(string(head), "\n", 2)[0]); len(w) > 1 {
			o["mempolicy"] = w[1]
		}
	}
	b.Observed = o
}

// bindData binds the calling goroutine's thread to b (nothing for nil; the
// thread stays bound and ends with the goroutine) and returns a size-byte
// buffer for the data: under a memory binding an anonymous mapping first
// touched on the bound thread, so on the bound node; free releases it.
func bindData(b *Binding, size int) (buf []byte, free func(), err error) {
	if b == nil {
		return make([]byte, size), func() {}, nil
	}
	if err := pinThread(b.CPUs, b.MemNodes); err != nil {
		return nil, nil, err
	}
	if len(b.MemNodes) == 0 {
		return make([]byte, size), func() {}, nil
	}
	m, err := mmapAnon(size)
	if err != nil {
		return nil, nil, err
	}
	for i := 0; i < len(m); i += 4096 {
		m[i] = 0
	}
	return m, func() { _ = munmap(m) }, nil
}

// cpuCount is how many CPUs the workload may use: the bound ones, else n.
func (o Options) cpuCount(n int) int {
	if o.Bind != nil && len(o.Bind.CPUs) > 0 {
		return len(o.Bind.CPUs)
	}
	return n
}
