package facts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() {
	register("topology", StageBase, readTopology, "topology")
	register("topology-numa-off", StageDerived, deriveNUMADisabled, "topology.numa_disabled")
}

const (
	sysNode = "/sys/devices/system/node"
	sysCPU  = "/sys/devices/system/cpu"
)

// parseDistances parses a node's SLIT row ("10 21 31 21").
func parseDistances(s string) ([]int, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return nil, parseErr(1, "expected distances, got an empty line")
	}
	out := make([]int, len(f))
	for i, w := range f {
		v, err := strconv.Atoi(w)
		if err != nil || v < 0 || v > 255 {
			return nil, parseErr(1, "expected a distance 0-255, got %q", trunc(w, 20))
		}
		out[i] = v
	}
	return out, nil
}

// nodeDirs lists node ids from the nodeN entries of a directory.
func numberedEntries(names []string, prefix string) []int {
	var ids []int
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, prefix); ok {
			if id, err := strconv.Atoi(rest); err == nil && id >= 0 {
				ids = append(ids, id)
			}
		}
	}
	sort.Ints(ids)
	return ids
}

// list reads a kernel list file; nil and an absence when it cannot.
func (c *Collector) list(fact, p string) []int {
	s, err := c.Root.ReadString(p)
	if err != nil {
		c.Absent(fact, p, err)
		return nil
	}
	ids, err := cpulist.Parse(s)
	if err != nil {
		c.Absent(fact, p, parseErr(1, "%v", err))
		return nil
	}
	return ids
}

func contains(ids []int, id int) bool {
	i := sort.SearchInts(ids, id)
	return i < len(ids) && ids[i] == id
}

func readTopology(c *Collector) {
	t := &c.Snap.Topology
	t.Nodes = []snapshot.Node{}
	t.CPUs = []snapshot.CPU{}
	readCPUs(c, t)
	readNodes(c, t)
	cpuNode := map[int]int{}
	for _, n := range t.Nodes {
		for _, id := range n.CPUs {
			cpuNode[id] = n.ID
		}
	}
	sockets := map[int]bool{}
	cores := map[[3]int]bool{}
	for i := range t.CPUs {
		cp := &t.CPUs[i]
		if n, ok := cpuNode[cp.ID]; ok {
			cp.Node = n
		}
		if cp.Socket >= 0 {
			sockets[cp.Socket] = true
			if cp.Core >= 0 {
				cores[[3]int{cp.Socket, cp.Die, cp.Core}] = true
			}
		}
		if cp.Online {
			t.Threads++
		}
	}
	t.Sockets = len(sockets)
	t.Cores = len(cores)
}

func readCPUs(c *Collector, t *snapshot.Topology) {
	t.CPUsOnline = c.list("topology.cpus_online", sysCPU+"/online")
	if t.CPUsOnline == nil {
		t.CPUsOnline = []int{}
	}
	if p, err := c.Root.ReadString(sysCPU + "/possible"); err == nil {
		t.CPUsPossible, _ = cpulist.Parse(p)
	}
	if s, err := c.Root.ReadString(sysCPU + "/smt/active"); err == nil {
		b := s == "1"
		t.SMTActive = &b
	}
	names, err := c.Root.ReadDirNames(sysCPU)
	if err != nil {
		c.Absent("topology.cpus", sysCPU, err)
		return
	}
	ids := numberedEntries(names, "cpu")
	if len(ids) == 0 {
		c.AbsentReason("topology.cpus", sysCPU, "no cpuN directories")
		return
	}
	t.CPUs = make([]snapshot.CPU, len(ids))
	missing := make([]int, cpuWorkers(len(ids)))
	var wg sync.WaitGroup
	panicked := false
	for w := range missing {
		lo, hi := chunk(len(ids), len(missing), w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.recoverWorker("topology", &panicked, "topology.cpus")
			testPanic("worker:topology")
			for i := lo; i < hi; i++ {
				var ok bool
				t.CPUs[i], ok = readCPU(c, ids[i], t.CPUsOnline)
				if !ok {
					missing[w]++
				}
			}
		}()
	}
	wg.Wait()
	if panicked {
		t.CPUs = nil // absent (recoverWorker): unread entries would be CPU 0
		return
	}
	missingTopo := 0
	for _, m := range missing {
		missingTopo += m
	}
	if missingTopo > 0 {
		c.AbsentReason("topology.cpus.socket", sysCPU+"/cpuN/topology",
			fmt.Sprintf("%d online CPUs have no readable topology (socket/core unknown)", missingTopo))
	}
}

// readCPU reads one CPU's online state and topology; ok is false when an
// online CPU's topology could not be read.
func readCPU(c *Collector, id int, online []int) (cp snapshot.CPU, ok bool) {
	dir := sysCPU + "/cpu" + strconv.Itoa(id)
	cp = snapshot.CPU{ID: id, Node: -1, Socket: -1, Core: -1, Siblings: []int{}}
	cp.Online = contains(online, id)
	if s, err := c.Root.ReadString(dir + "/online"); err == nil {
		cp.Online = s == "1"
	}
	top := dir + "/topology"
	pkg, err1 := c.readInt(top + "/physical_package_id")
	core, err2 := c.readInt(top + "/core_id")
	if err1 != nil || err2 != nil {
		return cp, !cp.Online
	}
	cp.Socket, cp.Core = int(pkg), int(core)
	if d, err := c.readInt(top + "/die_id"); err == nil && d > 0 {
		cp.Die = int(d)
	}
	if s, err := c.Root.ReadString(top + "/thread_siblings_list"); err == nil {
		if sib, err := cpulist.Parse(s); err == nil {
			cp.Siblings = sib
		}
	}
	return cp, true
}

func readNodes(c *Collector, t *snapshot.Topology) {
	names, err := c.Root.ReadDirNames(sysNode)
	if err != nil {
		c.Absent("topology.nodes", sysNode, err)
		return
	}
	ids := numberedEntries(names, "node")
	if len(ids) == 0 {
		c.AbsentReason("topology.nodes", sysNode, "no nodeN directories")
		return
	}
	t.NUMAEnabled = true
	readList := func(name string) ([]int, bool) {
		s, err := c.Root.ReadString(sysNode + "/" + name)
		if err != nil {
			return nil, false
		}
		l, err := cpulist.Parse(s)
		return l, err == nil
	}
	online, haveOnline := readList("online")
	hasCPU, haveHasCPU := readList("has_cpu")
	hasMem, haveHasMem := readList("has_memory")
	for _, id := range ids {
		dir := fmt.Sprintf("%s/node%d", sysNode, id)
		n := snapshot.Node{ID: id, Online: !haveOnline || contains(online, id), CPUs: []int{}, Hugepages: []snapshot.NodeHugepages{}}
		fact := fmt.Sprintf("topology.nodes[%d]", id)
		if l := c.list(fact+".cpus", dir+"/cpulist"); l != nil {
			n.CPUs = l
		}
		if s, err := c.Root.ReadString(dir + "/distance"); err != nil {
			c.Absent(fact+".distances", dir+"/distance", err)
		} else if d, err := parseDistances(s); err != nil {
			c.Absent(fact+".distances", dir+"/distance", err)
		} else {
			n.Distances = d
		}
		if b, err := c.Root.ReadFile(dir + "/meminfo"); err != nil {
			c.Absent(fact+".meminfo", dir+"/meminfo", err)
		} else if m, nodeID, err := parseMeminfo(bytes.NewReader(b)); err != nil {
			c.Absent(fact+".meminfo", dir+"/meminfo", err)
		} else if nodeID != -1 && nodeID != id {
			c.AbsentReason(fact+".meminfo", dir+"/meminfo", fmt.Sprintf("malformed: lines say node %d", nodeID))
		} else {
			n.Meminfo = m
			if v, ok := m["MemTotal"]; ok {
				n.MemTotalKB = &v
			}
			if v, ok := m["MemFree"]; ok {
				n.MemFreeKB = &v
			}
			if v, ok := m["MemUsed"]; ok {
				n.MemUsedKB = &v
			}
		}
		n.Hugepages = readNodeHugepages(c, fact, dir+"/hugepages", n.Meminfo)
		n.HasCPU = len(n.CPUs) > 0
		if haveHasCPU {
			n.HasCPU = contains(hasCPU, id)
		}
		n.HasMemory = n.MemTotalKB != nil && *n.MemTotalKB > 0
		if haveHasMem {
			n.HasMemory = contains(hasMem, id)
		}
		t.Nodes = append(t.Nodes, n)
	}
	// The distance rows must be square and ordered like the nodes.
	for i := range t.Nodes {
		if d := t.Nodes[i].Distances; d != nil && len(d) != len(t.Nodes) {
			c.AbsentReason(fmt.Sprintf("topology.nodes[%d].distances", t.Nodes[i].ID), fmt.Sprintf("%s/node%d/distance", sysNode, t.Nodes[i].ID),
				fmt.Sprintf("malformed: %d distances for %d nodes", len(d), len(t.Nodes)))
			t.Nodes[i].Distances = nil
		}
	}
}

// defaultHugepageKB is /proc/meminfo's Hugepagesize (0 when unknown).
func defaultHugepageKB(c *Collector) int64 {
	b, err := c.Root.ReadFile(procMeminfo)
	if err != nil {
		return 0
	}
	m, _, err := parseMeminfo(bytes.NewReader(b))
	if err != nil {
		return 0
	}
	return m["Hugepagesize"]
}

// hugepageSizeKB parses "hugepages-2048kB".
func hugepageSizeKB(name string) (int64, bool) {
	s, ok := strings.CutPrefix(name, "hugepages-")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, "kB")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && v > 0
}

// readNodeHugepages reads a node's hugepages-<size>kB pools. Kernels
// before 2.6.33 (without RHEL 6's backport) have no per-node directory: the
// default size's pool then comes from the node's meminfo HugePages_* lines
// (the size from /proc/meminfo's Hugepagesize), other sizes stay unknown.
func readNodeHugepages(c *Collector, fact, dir string, meminfo map[string]int64) []snapshot.NodeHugepages {
	out := []snapshot.NodeHugepages{}
	names, err := c.Root.ReadDirNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		total, ok1 := meminfo["HugePages_Total"]
		free, ok2 := meminfo["HugePages_Free"]
		surp, ok3 := meminfo["HugePages_Surp"]
		if size := defaultHugepageKB(c); ok1 && ok2 && ok3 && size > 0 {
			c.AbsentReason(fact+".hugepages", dir, "not present on this host: no per-node hugepages directory (Linux 2.6.33+): "+
				"the default size's pool is from the node's meminfo, other sizes are unknown")
			return append(out, snapshot.NodeHugepages{SizeKB: size, Total: total, Free: free, Surplus: surp})
		}
	}
	if err != nil {
		c.Absent(fact+".hugepages", dir, err)
		return out
	}
	for _, name := range names {
		size, ok := hugepageSizeKB(name)
		if !ok {
			continue
		}
		d := path.Join(dir, name)
		total, e1 := c.readInt(d + "/nr_hugepages")
		free, e2 := c.readInt(d + "/free_hugepages")
		surp, e3 := c.readInt(d + "/surplus_hugepages")
		if e1 != nil || e2 != nil || e3 != nil {
			c.AbsentReason(fmt.Sprintf("%s.hugepages[%dkB]", fact, size), d, "counters unreadable")
			continue
		}
		out = append(out, snapshot.NodeHugepages{SizeKB: size, Total: total, Free: free, Surplus: surp})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SizeKB < out[j].SizeKB })
	return out
}

// deriveNUMADisabled records evidence that NUMA is off or hidden.
func deriveNUMADisabled(c *Collector) {
	t := &c.Snap.Topology
	t.NUMADisabled = nil
	if v, ok := c.Snap.Host.CmdlineArgs["numa"]; ok && v == "off" {
		t.NUMADisabled = append(t.NUMADisabled, "kernel command line has numa=off")
	}
	if v, ok := c.Snap.Host.CmdlineArgs["numa"]; ok && strings.HasPrefix(v, "fake=") {
		t.NUMADisabled = append(t.NUMADisabled, "kernel command line has numa="+v+" (emulated nodes)")
	}
	withCPU := 0
	for _, n := range t.Nodes {
		if n.HasCPU {
			withCPU++
		}
	}
	if t.Sockets > 1 && len(t.Nodes) > 0 && withCPU < t.Sockets {
		t.NUMADisabled = append(t.NUMADisabled, fmt.Sprintf("%d NUMA node(s) with CPUs for %d sockets", withCPU, t.Sockets))
	}
}
