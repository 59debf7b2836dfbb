package facts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
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
	extra := readCPUs(c, t)
	readNodes(c, t)
	assignCPUNodes(c, t)
	derivePackages(t, extra)
	recountTopology(t)
}

// cpuExtra is what readCPU learns besides the snapshot's CPU: which files
// its facts came from, and the package's CPU set (core_siblings).
type cpuExtra struct {
	onlineFrom   string // "cpu/online", "cpuN/online", "cpu/present", "cpuN directory"
	siblingsFrom string // the sibling file read, "" when none
	pkgSet       []int  // core_siblings (package_cpus); nil when unread
	pkgSetFrom   string
	pkgUnknown   string // why physical_package_id gave no package ("-1", "absent")
}

// readCPUs reads every cpuN directory. A CPU is online as cpu/online says;
// without that file (kernels before 2.6.29, some captures) as its own
// cpuN/online says, a CPU without one (cpu0 on x86) being online; without
// either, when cpu/present lists it (Documentation/ABI/testing/
// sysfs-devices-system-cpu).
func readCPUs(c *Collector, t *snapshot.Topology) []cpuExtra {
	onlineList, onlineErr := c.Root.ReadString(sysCPU + "/online")
	var online []int
	haveOnline := false
	if onlineErr == nil {
		var err error
		if online, err = cpulist.Parse(onlineList); err != nil {
			c.Absent("topology.cpus_online", sysCPU+"/online", parseErr(1, "%v", err))
		} else {
			haveOnline = true
		}
	}
	t.CPUsOnline = online
	if t.CPUsOnline == nil {
		t.CPUsOnline = []int{}
	}
	if p, err := c.Root.ReadString(sysCPU + "/possible"); err == nil {
		t.CPUsPossible, _ = cpulist.Parse(p)
	}
	var present []int
	havePresent := false
	if p, err := c.Root.ReadString(sysCPU + "/present"); err == nil {
		if l, err := cpulist.Parse(p); err == nil {
			present, havePresent = l, true
		}
	}
	if s, err := c.Root.ReadString(sysCPU + "/smt/active"); err == nil {
		b := s == "1"
		t.SMTActive = &b
	}
	names, err := c.Root.ReadDirNames(sysCPU)
	ids := numberedEntries(names, "cpu")
	if err != nil || len(ids) == 0 {
		if err != nil {
			c.Absent("topology.cpus", sysCPU, err)
		} else {
			c.AbsentReason("topology.cpus", sysCPU, "no cpuN directories")
		}
		if !haveOnline && onlineErr != nil {
			c.Absent("topology.cpus_online", sysCPU+"/online", onlineErr)
		}
		return nil
	}
	t.CPUs = make([]snapshot.CPU, len(ids))
	extra := make([]cpuExtra, len(ids))
	missing := make([]int, cpuWorkers(len(ids)))
	var wg sync.WaitGroup
	panicked := false
	ol := onlineSource{list: online, haveList: haveOnline, present: present, havePresent: havePresent}
	for w := range missing {
		lo, hi := chunk(len(ids), len(missing), w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.recoverWorker("topology", &panicked, "topology.cpus")
			testPanic("worker:topology")
			for i := lo; i < hi; i++ {
				var ok bool
				t.CPUs[i], extra[i], ok = readCPU(c, ids[i], ol)
				if !ok {
					missing[w]++
				}
			}
		}()
	}
	wg.Wait()
	if panicked {
		t.CPUs = nil // absent (recoverWorker): unread entries would be CPU 0
		return nil
	}
	if !haveOnline {
		// The online list from what each CPU said.
		t.CPUsOnline = []int{}
		by := map[string][]int{}
		for i, cp := range t.CPUs {
			if cp.Online {
				t.CPUsOnline = append(t.CPUsOnline, cp.ID)
			}
			by[extra[i].onlineFrom] = append(by[extra[i].onlineFrom], cp.ID)
		}
		why := "no " + sysCPU + "/online"
		if onlineErr != nil && !errors.Is(onlineErr, fs.ErrNotExist) {
			why = sysCPU + "/online unreadable: " + Reason(onlineErr)
		}
		for _, from := range slices.Sorted(maps.Keys(by)) {
			t.Sources = append(t.Sources, snapshot.TopologySource{Fact: "cpus.online", File: from, Why: why, Items: by[from]})
		}
	}
	sources := map[[2]string][]int{}
	for i, e := range extra {
		if e.siblingsFrom != "" && e.siblingsFrom != "thread_siblings_list" {
			k := [2]string{"cpus.siblings", e.siblingsFrom}
			sources[k] = append(sources[k], t.CPUs[i].ID)
		}
	}
	for _, k := range sortedPairs(sources) {
		t.Sources = append(t.Sources, snapshot.TopologySource{Fact: k[0], File: "cpuN/topology/" + k[1],
			Why: "no cpuN/topology/thread_siblings_list", Items: sources[k]})
	}
	missingTopo := 0
	for _, m := range missing {
		missingTopo += m
	}
	if missingTopo > 0 {
		c.AbsentReason("topology.cpus.socket", sysCPU+"/cpuN/topology",
			fmt.Sprintf("%d online CPUs have no readable topology (socket/core unknown)", missingTopo))
	}
	return extra
}

// onlineSource is where a CPU's online state comes from (readCPUs).
type onlineSource struct {
	list, present         []int
	haveList, havePresent bool
}

// siblingFiles are the files naming a CPU's SMT siblings, in the order
// they are read: the list, then the mask (every kernel since 2.6.x), then
// the names of Linux 5.3 (core_cpus*, which the older names alias).
var siblingFiles = []struct {
	name string
	mask bool
}{{"thread_siblings_list", false}, {"thread_siblings", true}, {"core_cpus_list", false}, {"core_cpus", true}}

// packageFiles name the CPUs of a CPU's package: core_siblings* in every
// kernel, package_cpus* since 5.3.
var packageFiles = []struct {
	name string
	mask bool
}{{"core_siblings_list", false}, {"core_siblings", true}, {"package_cpus_list", false}, {"package_cpus", true}}

// readCPU reads one CPU's online state and topology; ok is false when an
// online CPU's topology could not be read (neither its ids nor its SMT
// siblings).
func readCPU(c *Collector, id int, ol onlineSource) (cp snapshot.CPU, e cpuExtra, ok bool) {
	dir := sysCPU + "/cpu" + strconv.Itoa(id)
	cp = snapshot.CPU{ID: id, Node: -1, Socket: -1, Core: -1, Siblings: []int{}}
	switch s, err := c.Root.ReadString(dir + "/online"); {
	case ol.haveList:
		cp.Online, e.onlineFrom = contains(ol.list, id), "cpu/online"
	case err == nil:
		cp.Online, e.onlineFrom = s != "0", "cpuN/online"
	case ol.havePresent:
		cp.Online, e.onlineFrom = contains(ol.present, id), "cpu/present"
	default:
		cp.Online, e.onlineFrom = true, "cpuN directory"
	}
	top := dir + "/topology"
	pkg, err1 := c.readInt(top + "/physical_package_id")
	core, err2 := c.readInt(top + "/core_id")
	switch {
	case err1 != nil:
		e.pkgUnknown = "no physical_package_id"
	case pkg < 0:
		e.pkgUnknown = "physical_package_id is " + strconv.FormatInt(pkg, 10)
	default:
		cp.Socket = int(pkg)
	}
	if err2 == nil && core >= 0 {
		cp.Core = int(core)
	}
	if d, err := c.readInt(top + "/die_id"); err == nil && d > 0 {
		cp.Die = int(d)
	}
	for _, f := range siblingFiles {
		if l, ok := readCPUSet(c, top+"/"+f.name, f.mask); ok && len(l) > 0 {
			cp.Siblings, e.siblingsFrom = l, f.name
			break
		}
	}
	for _, f := range packageFiles {
		if l, ok := readCPUSet(c, top+"/"+f.name, f.mask); ok && len(l) > 0 {
			e.pkgSet, e.pkgSetFrom = l, f.name
			break
		}
	}
	known := (err1 == nil && err2 == nil) || e.siblingsFrom != ""
	return cp, e, known || !cp.Online
}

// readCPUSet reads a CPU list or mask file; ok is false when it is absent
// or malformed.
func readCPUSet(c *Collector, p string, mask bool) ([]int, bool) {
	s, err := c.Root.ReadString(p)
	if err != nil {
		return nil, false
	}
	var l []int
	if mask {
		l, err = cpulist.ParseMask(s)
	} else {
		l, err = cpulist.Parse(s)
	}
	return l, err == nil
}

// derivePackages gives each CPU without a physical_package_id (absent, or
// -1 as PowerVM LPARs and some hypervisors print it) the package its
// core_siblings (package_cpus) name, numbered by their first CPU; and
// records where the package ids and those sets disagree.
func derivePackages(t *snapshot.Topology, extra []cpuExtra) {
	if len(extra) != len(t.CPUs) {
		return
	}
	// Distinct package sets, ordered by their lowest CPU.
	type set struct {
		key   string
		first int
	}
	seen := map[string]int{}
	var sets []set
	for _, e := range extra {
		if e.pkgSet == nil {
			continue
		}
		k := cpulist.Format(e.pkgSet)
		if _, ok := seen[k]; !ok {
			seen[k] = len(sets)
			sets = append(sets, set{k, e.pkgSet[0]})
		}
	}
	sort.Slice(sets, func(i, j int) bool { return sets[i].first < sets[j].first })
	index := map[string]int{}
	for i, s := range sets {
		index[s.key] = i
	}
	derived := map[string][]int{}
	idsOfSet := map[string]map[int]bool{}
	for i := range t.CPUs {
		cp, e := &t.CPUs[i], extra[i]
		if e.pkgSet == nil {
			continue
		}
		k := cpulist.Format(e.pkgSet)
		if cp.Socket >= 0 {
			if idsOfSet[k] == nil {
				idsOfSet[k] = map[int]bool{}
			}
			idsOfSet[k][cp.Socket] = true
			continue
		}
		if e.pkgUnknown != "" {
			cp.Socket = index[k]
			derived[e.pkgUnknown+"|"+e.pkgSetFrom] = append(derived[e.pkgUnknown+"|"+e.pkgSetFrom], cp.ID)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(derived)) {
		why, from, _ := strings.Cut(k, "|")
		t.Sources = append(t.Sources, snapshot.TopologySource{Fact: "cpus.socket", File: "cpuN/topology/" + from,
			Why: why + ": the package is the set of CPUs " + from + " names, numbered by its first CPU", Items: derived[k]})
	}
	// One package id per set, one set per package id.
	setsOfID := map[int]map[string]bool{}
	for k, ids := range idsOfSet {
		for id := range ids {
			if setsOfID[id] == nil {
				setsOfID[id] = map[string]bool{}
			}
			setsOfID[id][k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(idsOfSet)) {
		if len(idsOfSet[k]) > 1 {
			t.Contradictions = append(t.Contradictions, snapshot.Contradiction{Fact: "cpus.socket", Kind: "kernel",
				Files: []string{"cpuN/topology/physical_package_id", "cpuN/topology/core_siblings"},
				Detail: fmt.Sprintf("CPUs %s are one package by core_siblings but have physical_package_id %s",
					k, intSetText(idsOfSet[k])),
				Believed: "cpuN/topology/physical_package_id"})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(setsOfID)) {
		if len(setsOfID[id]) > 1 {
			t.Contradictions = append(t.Contradictions, snapshot.Contradiction{Fact: "cpus.socket", Kind: "kernel",
				Files: []string{"cpuN/topology/physical_package_id", "cpuN/topology/core_siblings"},
				Detail: fmt.Sprintf("physical_package_id %d is given to CPUs whose core_siblings differ (%s)",
					id, strings.Join(slices.Sorted(maps.Keys(setsOfID[id])), " / ")),
				Believed: "cpuN/topology/physical_package_id"})
		}
	}
}

// countCores counts physical cores and online threads. A core is a set of
// SMT siblings (thread_siblings): core_id repeats within a package on AMD
// Magny-Cours (two dies, no die_id before Linux 5.2) and Itanium, so
// (package, core_id) would merge distinct cores. CPUs without a sibling set
// count by (package, die, core_id).
func countCores(t *snapshot.Topology) {
	cores := map[string]bool{}
	t.Threads = 0
	for _, cp := range t.CPUs {
		if cp.Online {
			t.Threads++
		}
		switch {
		case len(cp.Siblings) > 0:
			cores["s"+cpulist.Format(cp.Siblings)] = true
		case cp.Socket >= 0 && cp.Core >= 0:
			cores[fmt.Sprintf("i%d/%d/%d", cp.Socket, cp.Die, cp.Core)] = true
		}
	}
	t.Cores = len(cores)
}

func sortedPairs(m map[[2]string][]int) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0]+"\x00"+out[i][1] < out[j][0]+"\x00"+out[j][1] })
	return out
}

func intSetText(m map[int]bool) string {
	return cpulist.Format(slices.Sorted(maps.Keys(m)))
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
	var maskNodes, unread, hasCPUWrong []int
	online, haveOnline := readList("online")
	hasCPU, haveHasCPU := readList("has_cpu")
	hasCPUText := cpulist.Format(hasCPU)
	hasMem, haveHasMem := readList("has_memory")
	for _, id := range ids {
		dir := fmt.Sprintf("%s/node%d", sysNode, id)
		n := snapshot.Node{ID: id, Online: !haveOnline || contains(online, id), CPUs: []int{}, Hugepages: []snapshot.NodeHugepages{}}
		fact := fmt.Sprintf("topology.nodes[%d]", id)
		if l, ok := readCPUSet(c, dir+"/cpulist", false); ok {
			n.CPUs = l
		} else if l, ok := readCPUSet(c, dir+"/cpumap", true); ok {
			n.CPUs = l
			maskNodes = append(maskNodes, id)
		} else {
			// The absence names the list, the file read first.
			c.list(fact+".cpus", dir+"/cpulist")
			unread = append(unread, id)
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
		// nodeN/cpulist is the more specific file: node/has_cpu empty or a
		// lone newline while the node lists CPUs (3.10.0-1160.el7) is the
		// state file's fault.
		n.HasCPU = len(n.CPUs) > 0
		if contains(unread, id) && haveHasCPU {
			n.HasCPU = contains(hasCPU, id)
		} else if haveHasCPU && contains(hasCPU, id) != n.HasCPU {
			hasCPUWrong = append(hasCPUWrong, id)
		}
		n.HasMemory = n.MemTotalKB != nil && *n.MemTotalKB > 0
		if haveHasMem {
			n.HasMemory = contains(hasMem, id)
		}
		t.Nodes = append(t.Nodes, n)
	}
	if len(maskNodes) > 0 {
		t.Sources = append(t.Sources, snapshot.TopologySource{Fact: "nodes.cpus", File: "nodeN/cpumap",
			Why: "no readable nodeN/cpulist", Items: maskNodes})
	}
	if len(hasCPUWrong) > 0 {
		t.Contradictions = append(t.Contradictions, snapshot.Contradiction{Fact: "nodes.has_cpu", Kind: "kernel",
			Files:    []string{sysNode + "/has_cpu", sysNode + "/nodeN/cpulist"},
			Detail:   fmt.Sprintf("has_cpu is %q but the nodes' CPU lists say nodes %s %s CPUs", hasCPUText, cpulist.Format(hasCPUWrong), hasCPUVerb(t, hasCPUWrong)),
			Believed: sysNode + "/nodeN/cpulist"})
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

// hasCPUVerb says what the nodes' lists say of the nodes has_cpu got wrong.
func hasCPUVerb(t *snapshot.Topology, ids []int) string {
	with, without := 0, 0
	for _, n := range t.Nodes {
		if contains(ids, n.ID) {
			if n.HasCPU {
				with++
			} else {
				without++
			}
		}
	}
	switch {
	case without == 0:
		return "have"
	case with == 0:
		return "have no"
	}
	return "differ on"
}

// assignCPUNodes gives each CPU its node. A CPU listed by several nodes is a
// firmware fault (a BIOS whose SRAT gives every node every CPU): it is
// recorded, and the CPU's own cpuN/nodeM link (the more specific file)
// decides; without one the nodes' CPU lists are not believed at all.
func assignCPUNodes(c *Collector, t *snapshot.Topology) {
	listedBy := map[int][]int{}
	for _, n := range t.Nodes {
		for _, id := range n.CPUs {
			listedBy[id] = append(listedBy[id], n.ID)
		}
	}
	var overlap []int
	for _, id := range slices.Sorted(maps.Keys(listedBy)) {
		if len(listedBy[id]) > 1 {
			overlap = append(overlap, id)
		}
	}
	if len(overlap) == 0 {
		for i := range t.CPUs {
			if ns, ok := listedBy[t.CPUs[i].ID]; ok {
				t.CPUs[i].Node = ns[0]
			}
		}
		return
	}
	// The node link of each CPU directory.
	link := map[int]int{}
	for _, cp := range t.CPUs {
		names, err := c.Root.ReadDirNames(fmt.Sprintf("%s/cpu%d", sysCPU, cp.ID))
		if err != nil {
			continue
		}
		if ns := numberedEntries(names, "node"); len(ns) == 1 {
			link[cp.ID] = ns[0]
		}
	}
	nodesOf := map[string][]int{}
	for _, id := range overlap {
		k := fmt.Sprint(listedBy[id])
		nodesOf[k] = append(nodesOf[k], id)
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(nodesOf)) {
		parts = append(parts, fmt.Sprintf("CPUs %s in nodes %s", cpulist.Format(nodesOf[k]),
			cpulist.Format(listedBy[nodesOf[k][0]])))
	}
	con := snapshot.Contradiction{Fact: "nodes.cpus", Kind: "firmware",
		Files: []string{sysNode + "/nodeN/cpulist", sysCPU + "/cpuN/nodeM"},
		Detail: "the nodes' CPU lists overlap: " + strings.Join(parts, "; ") +
			" (the ACPI SRAT gives CPUs to several proximity domains)"}
	allLinked := true
	for _, id := range overlap {
		if _, ok := link[id]; !ok {
			allLinked = false
		}
	}
	if allLinked {
		con.Believed = sysCPU + "/cpuN/nodeM"
		for i := range t.Nodes {
			n := &t.Nodes[i]
			keep := []int{}
			for _, id := range n.CPUs {
				if l, ok := link[id]; !ok || l == n.ID {
					keep = append(keep, id)
				}
			}
			n.CPUs = keep
			n.HasCPU = len(keep) > 0
		}
		for i := range t.CPUs {
			if l, ok := link[t.CPUs[i].ID]; ok {
				t.CPUs[i].Node = l
			} else if ns, ok := listedBy[t.CPUs[i].ID]; ok {
				t.CPUs[i].Node = ns[0]
			}
		}
	} else {
		for i := range t.Nodes {
			t.Nodes[i].CPUs = []int{}
			c.AbsentReason(fmt.Sprintf("topology.nodes[%d].cpus", t.Nodes[i].ID), fmt.Sprintf("%s/node%d/cpulist", sysNode, t.Nodes[i].ID),
				"contradictory: the nodes' CPU lists overlap and the CPUs have no node links to decide (a firmware fault)")
		}
	}
	t.Contradictions = append(t.Contradictions, con)
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

// deriveNUMADisabled records evidence that NUMA is off or hidden: numa=off
// or numa=fake on the boot line, or one node directory holding the CPUs of
// several packages (the kernel sees one node where the hardware has
// several: numa=off, or the firmware interleaving memory). An absence is no
// evidence: nodes without readable CPU lists, CPUs without a package, or
// node and package files that contradict each other say nothing here.
func deriveNUMADisabled(c *Collector) {
	t := &c.Snap.Topology
	t.NUMADisabled = nil
	if v, ok := c.Snap.Host.CmdlineArgs["numa"]; ok && v == "off" {
		t.NUMADisabled = append(t.NUMADisabled, "kernel command line has numa=off")
	}
	if v, ok := c.Snap.Host.CmdlineArgs["numa"]; ok && strings.HasPrefix(v, "fake=") {
		t.NUMADisabled = append(t.NUMADisabled, "kernel command line has numa="+v+" (emulated nodes)")
	}
	if n, pk, ok := t.NodeSpanningPackages(); ok {
		t.NUMADisabled = append(t.NUMADisabled, fmt.Sprintf("node %d holds CPUs of %d packages (%s): its cpulist %s",
			n.ID, len(pk), cpulist.Format(pk), cpulist.Format(n.CPUs)))
	}
}
