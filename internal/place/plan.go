package place

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Result is the plan (the JSON contract of issue 6, plus groups, warnings
// and notes that are not part of the contract).
type Result struct {
	Strategy       string         `json:"strategy"`
	Feasible       bool           `json:"feasible"`
	Instances      []InstancePlan `json:"instances"`
	Errors         []Problem      `json:"errors"`
	Warnings       []Problem      `json:"warnings"`
	Groups         []Group        `json:"groups"`
	HugepageSizeKB int64          `json:"hugepage_size_kb"`
	Threads        int            `json:"threads"`
	Nodes          int            `json:"nodes"`
	// NUMAHidden is the evidence that the kernel hides the host's NUMA
	// nodes (numa=off, fewer nodes than sockets), Sockets then its sockets.
	Sockets    int      `json:"sockets,omitempty"`
	NUMAHidden []string `json:"numa_hidden,omitempty"`
	// Emulator are the cores kept for the kvm-guests' emulator threads.
	Emulator []EmulatorCore `json:"emulator_cores,omitempty"`
	// CoreTypes says, on a hybrid CPU, that the instances are given the
	// performance cores first (hybrid.go); "" on a host of one core type
	// or whose core types are unknown.
	CoreTypes string `json:"core_types,omitempty"`

	spec *Spec
	topo *topo
	// guest planning state: bind for a guest, emulator cores taken, and
	// each guaranteed guest's emulator CPUs.
	guestBind bool
	emuDone   bool
	emu       map[string][]int
}

// InstancePlan is where one instance runs.
type InstancePlan struct {
	Name      string          `json:"name"`
	Engine    string          `json:"engine"`
	Class     string          `json:"class"`
	CPUs      []int           `json:"cpus"`
	Mems      []int           `json:"mems"`
	CPUCount  int             `json:"cpu_count"`
	Hugepages []HugepageAlloc `json:"hugepages"`
	Group     string          `json:"group,omitempty"` // the cpuset it runs in ("" under caging)
	Caged     bool            `json:"caged"`           // cpu_count (Oracle) / CPU quota limits it
	// Guest is a kvm-guest's libvirt placement (vCPU pins, emulator,
	// numatune, cells); nil for other engines.
	Guest *Guest `json:"guest,omitempty"`
}

// Guaranteed reports whether the instance is a paying (guaranteed) one.
func (ip InstancePlan) Guaranteed() bool { return ip.Class == "guaranteed" }

// HugepageAlloc is pages of one size on one node.
type HugepageAlloc struct {
	Node   int   `json:"node"`
	SizeKB int64 `json:"size_kb"`
	Pages  int64 `json:"pages"`
}

// Problem is one error or warning, about one instance or ("") the plan.
type Problem struct {
	Instance string `json:"instance"`
	Message  string `json:"message"`
}

// Group is one cpuset the plan creates.
type Group struct {
	Name    string   `json:"name"`
	CPUs    []int    `json:"cpus"`
	Mems    []int    `json:"mems"`
	Members []string `json:"members"`
}

// GroupPrefix starts the name of every cgroup the plan creates.
const GroupPrefix = "dbhost_"

// Plan places spec's instances on snap's host. It never fails: an impossible
// placement is a Result with Feasible false and every reason in Errors.
func Plan(snap *snapshot.Snapshot, spec *Spec) *Result {
	r := &Result{Strategy: spec.Strategy, Instances: []InstancePlan{}, Errors: []Problem{}, Warnings: []Problem{}, Groups: []Group{}, spec: spec}
	needPages := false
	for _, in := range spec.Instances {
		if in.MemoryGB > 0 {
			needPages = true
		}
	}
	t, err := newTopo(snap, spec.HugepageSizeKB, needPages)
	if err != nil {
		r.Errors = append(r.Errors, Problem{Message: err.Error()})
		return r
	}
	r.topo = t
	r.HugepageSizeKB = t.sizeKB
	r.Threads = t.threads
	r.Nodes = len(t.nodes)
	r.NUMAHidden = snap.Topology.NUMADisabled
	if len(r.NUMAHidden) > 0 {
		r.Sockets = snap.Topology.Sockets
		r.warn("", "NUMA is hidden on this host (%s): the kernel shows %s for %s, so no placement can keep an instance's memory on its CPUs' socket; remove the cause (rule numa.disabled-at-boot) and reboot to place on the real nodes",
			strings.Join(r.NUMAHidden, "; "), plural(r.Nodes, "node", "nodes"), plural(r.Sockets, "socket", "sockets"))
	}
	for _, n := range t.notes {
		r.warn("", "%s", n)
	}
	for _, in := range spec.Instances {
		ip := InstancePlan{Name: in.Name, Engine: in.Engine, Class: in.Class, CPUs: []int{}, Mems: []int{}, Hugepages: []HugepageAlloc{}}
		r.Instances = append(r.Instances, ip)
		if in.NIC != "" {
			if _, ok := t.nicNodes[in.NIC]; !ok {
				r.warn(in.Name, "nic %s: no such interface with a known NUMA node on this host; no node preferred", in.NIC)
			}
			if m := t.masterOf(in.NIC); m != "" {
				r.warn(in.Name, "nic %s is a slave of %s: a slave has no address of its own; its node is preferred and the listener is on %s's address", in.NIC, m, m)
			}
		}
	}
	r.planGuests()
	switch spec.Strategy {
	case "binding":
		r.planBinding()
	case "caging":
		r.planCaging(false)
	case "mix":
		r.planMix()
	case StrategyBindBestEffort:
		r.planBindBestEffort()
	case StrategyCageBestEffort:
		r.planCaging(true)
	}
	r.Feasible = len(r.Errors) == 0
	if r.Feasible {
		r.finishGuests()
		r.warnPoolGrowth()
		r.noteCoreTypes(snap)
	}
	if !r.Feasible {
		// An infeasible plan places nothing: half a plan would be applied by mistake.
		for i := range r.Instances {
			ip := &r.Instances[i]
			ip.CPUs, ip.Mems, ip.Hugepages, ip.CPUCount, ip.Group, ip.Guest = []int{}, []int{}, []HugepageAlloc{}, 0, "", nil
		}
		r.Groups = []Group{}
		r.Emulator = nil
	}
	return r
}

// warnPoolGrowth says which nodes need more hugepages than their pool has
// free: the plan counts pages the node's MemFree can add, and hugepages.sh
// grows the pool.
func (r *Result) warnPoolGrowth() {
	planned := r.plannedPages()
	for _, n := range r.topo.nodes {
		if p := planned[n.id]; p > n.pool {
			r.warn("", "node %d: %d pages of %d kB planned, its pool has %d free: hugepages.sh grows the pool by %d (%s of its MemFree)",
				n.id, p, r.topo.sizeKB, n.pool, p-n.pool, gbOf(p-n.pool, r.topo.sizeKB))
		}
	}
}

func (r *Result) fail(inst, format string, a ...any) {
	r.Errors = append(r.Errors, Problem{Instance: inst, Message: fmt.Sprintf(format, a...)})
}

func (r *Result) warn(inst, format string, a ...any) {
	r.Warnings = append(r.Warnings, Problem{Instance: inst, Message: fmt.Sprintf(format, a...)})
}

// pages is the number of hugepages of the chosen size that back in.MemoryGB.
func (r *Result) pages(in Instance) int64 {
	if in.MemoryGB <= 0 || r.topo.sizeKB <= 0 {
		return 0
	}
	kb := in.MemoryGB * 1024 * 1024
	return int64(math.Ceil(kb / float64(r.topo.sizeKB)))
}

func (r *Result) plan(name string) *InstancePlan {
	for i := range r.Instances {
		if r.Instances[i].Name == name {
			return &r.Instances[i]
		}
	}
	return nil
}

// order returns the indices of spec instances with guaranteed ones first,
// larger first, then in spec order: big sets are packed before small ones fragment the nodes.
func (r *Result) order(filter func(Instance) bool) []int {
	var idx []int
	for i, in := range r.spec.Instances {
		if filter(in) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := r.spec.Instances[idx[a]], r.spec.Instances[idx[b]]
		if ia.CPUs != ib.CPUs {
			return ia.CPUs > ib.CPUs
		}
		return r.pages(ia) > r.pages(ib)
	})
	return idx
}

// guaranteed are the guaranteed instances a strategy places (the
// guaranteed guests are pinned before it: planGuests).
func guaranteed(in Instance) bool { return in.Guaranteed() && !in.Guest() }
func bestEffort(in Instance) bool { return !in.Guaranteed() }

// alloc is a set of CPUs taken for one cpuset.
type alloc struct {
	cpus []int
	mems []int // node ids
	// memIdx are node indices of mems.
	memIdx []int
	remote bool // some CPUs' nodes have no memory: their memory is on another node
}

func gbOf(pages, sizeKB int64) string {
	return fmt.Sprintf("%.1f GB", float64(pages*sizeKB)/(1024*1024))
}

// candidate is a set of node indices for one allocation.
type candidate struct {
	nodes  []int // in fill order: seed first, then by closeness
	mems   []int // memory node indices (incl. the nearest for memoryless nodes)
	remote int   // memoryless nodes in the set
	span   int   // sum of pairwise distances over nodes
	nicD   int   // distance from the NIC's node to the nearest node in the set
	slack  int   // free CPUs left in the set after the allocation
}

func (t *topo) memsOf(nodes []int) (mems []int, remote int) {
	seen := map[int]bool{}
	for _, i := range nodes {
		m := t.nearestMem(i)
		if m != i {
			remote++
		}
		if m >= 0 && !seen[m] {
			seen[m] = true
			mems = append(mems, m)
		}
	}
	sort.Ints(mems)
	return mems, remote
}

func (t *topo) availOf(mems []int) int64 {
	var s int64
	for _, m := range mems {
		s += t.nodes[m].avail
	}
	return s
}

// chooseGreedy grows a node set from every seed node by the nearest node
// (sum of distances) until CPUs and pages suffice, and keeps the best set
// (betterCandidate). It seeds and backs up the exact search. nicIdx is -1
// when unknown.
func (t *topo) chooseGreedy(k int, p int64, nicIdx int) (*candidate, bool) {
	var best *candidate
	better := betterCandidate
	for seed := range t.nodes {
		if t.nodes[seed].freeCPUs() == 0 {
			continue
		}
		set := []int{seed}
		in := map[int]bool{seed: true}
		for {
			free := 0
			for _, i := range set {
				free += t.nodes[i].freeCPUs()
			}
			mems, remote := t.memsOf(set)
			if free >= k && (p == 0 || t.availOf(mems) >= p) {
				c := &candidate{nodes: append([]int(nil), set...), mems: mems, remote: remote, slack: free - k}
				for a := range set {
					for b := a + 1; b < len(set); b++ {
						c.span += t.dist[set[a]][set[b]]
					}
				}
				if nicIdx >= 0 {
					c.nicD = math.MaxInt32
					for _, i := range set {
						c.nicD = min(c.nicD, t.dist[nicIdx][i])
					}
				}
				if better(c, best) {
					best = c
				}
				break
			}
			// Grow by the node closest to the set (sum of distances), among
			// nodes that add free CPUs, or memory when memory is short.
			next, nextD := -1, 0
			for j := range t.nodes {
				if in[j] {
					continue
				}
				nj := t.nodes[j]
				useful := nj.freeCPUs() > 0 && (free < k || nj.hasMem && nj.avail > 0)
				if !useful {
					continue
				}
				d := 0
				for _, i := range set {
					d += t.dist[i][j]
				}
				if next < 0 || d < nextD {
					next, nextD = j, d
				}
			}
			if next < 0 {
				break
			}
			set = append(set, next)
			in[next] = true
		}
	}
	return best, best != nil
}

// betterCandidate ranks node sets: fewer memoryless nodes (no forced remote
// memory), then fewer nodes, then nearer the NIC, then the smallest sum of
// pairwise distances (never far nodes when nearer ones would do), then the
// tightest fit. Ties keep the earlier set: deterministic.
func betterCandidate(a, b *candidate) bool {
	if b == nil {
		return true
	}
	if a.remote != b.remote {
		return a.remote < b.remote
	}
	if len(a.nodes) != len(b.nodes) {
		return len(a.nodes) < len(b.nodes)
	}
	if a.nicD != b.nicD {
		return a.nicD < b.nicD
	}
	if a.span != b.span {
		return a.span < b.span
	}
	return a.slack < b.slack
}

// searchBudget bounds the node sets the exact search looks at for one
// allocation (2^16 covers every subset of a 16-node host).
const searchBudget = 1 << 17

// choose finds the best node set (betterCandidate) for k CPUs and p pages:
// an exhaustive search over sets of nodes with free CPUs, smallest sets
// first, pruned by the best set so far and seeded by a greedy choice; on a
// host too big for the budget the best set found (or the greedy one) is kept.
func (t *topo) choose(k int, p int64, nicIdx int) (*candidate, bool) {
	best, _ := t.chooseGreedy(k, p, nicIdx)
	var open []int
	free := make([]int, len(t.nodes))
	for i, n := range t.nodes {
		free[i] = n.freeCPUs()
		if free[i] > 0 {
			open = append(open, i)
		}
	}
	memless := make([]bool, len(t.nodes))
	for i, n := range t.nodes {
		memless[i] = !n.hasMem
	}
	budget := searchBudget
	set := make([]int, 0, len(open))
	var dfs func(from, size, cpus, remote, span int)
	dfs = func(from, size, cpus, remote, span int) {
		if budget <= 0 {
			return
		}
		if best != nil {
			if remote > best.remote {
				return
			}
			if remote == best.remote && size > len(best.nodes) {
				return
			}
			if remote == best.remote && size == len(best.nodes) && (nicIdx < 0 || best.nicD == 0) && span > best.span {
				return
			}
		}
		if len(set) == size {
			budget--
			if cpus < k {
				return
			}
			mems, _ := t.memsOf(set)
			if p > 0 && t.availOf(mems) < p {
				return
			}
			c := &candidate{nodes: append([]int(nil), set...), mems: mems, remote: remote, span: span, slack: cpus - k}
			if nicIdx >= 0 {
				c.nicD = math.MaxInt32
				for _, i := range set {
					c.nicD = min(c.nicD, t.dist[nicIdx][i])
				}
			}
			// fill order: the node with the most free CPUs first, then by id
			sort.SliceStable(c.nodes, func(a, b int) bool { return free[c.nodes[a]] > free[c.nodes[b]] })
			if betterCandidate(c, best) {
				best = c
			}
			return
		}
		for j := from; j < len(open); j++ {
			i := open[j]
			add := 0
			for _, x := range set {
				add += t.dist[x][i]
			}
			r := remote
			if memless[i] {
				r++
			}
			set = append(set, i)
			dfs(j+1, size, cpus+free[i], r, span+add)
			set = set[:len(set)-1]
		}
	}
	for size := 1; size <= len(open) && budget > 0; size++ {
		if best != nil && best.remote == 0 && len(best.nodes) < size {
			break
		}
		dfs(0, size, 0, 0, 0)
	}
	return best, best != nil
}

// take marks whole cores of cand's nodes taken for k CPUs: one core on each
// node first (so every node of the set holds CPUs, and mems are the nodes of
// the CPUs even when memory needed more nodes than CPUs did), then in node order.
func (t *topo) take(c *candidate, k int) []int {
	var cpus []int
	got := 0
	grab := func(i int, limit int) {
		n := t.nodes[i]
		for ci := range n.cores {
			if limit == 0 || limit < 0 && got >= k {
				return
			}
			if n.cores[ci].taken {
				continue
			}
			n.cores[ci].taken = true
			cpus = append(cpus, n.cores[ci].cpus...)
			got += len(n.cores[ci].cpus)
			limit--
		}
	}
	for _, i := range c.nodes {
		grab(i, 1)
	}
	for _, i := range c.nodes {
		grab(i, -1)
	}
	sort.Ints(cpus)
	return cpus
}

// spread puts p pages over the memory nodes (indices), as evenly as their
// available pages allow, and takes them. It returns the allocation and the
// pages it could not place.
func (t *topo) spread(mems []int, p int64) ([]HugepageAlloc, int64) {
	out := []HugepageAlloc{}
	if p <= 0 || len(mems) == 0 {
		return out, p
	}
	got := map[int]int64{}
	left := p
	for left > 0 {
		open := []int{}
		for _, m := range mems {
			if t.nodes[m].avail-got[m] > 0 {
				open = append(open, m)
			}
		}
		if len(open) == 0 {
			break
		}
		share := left / int64(len(open))
		if share == 0 {
			share = 1
		}
		for _, m := range open {
			if left == 0 {
				break
			}
			g := min(share, t.nodes[m].avail-got[m], left)
			got[m] += g
			left -= g
		}
	}
	for _, m := range mems {
		if got[m] > 0 {
			t.nodes[m].avail -= got[m]
			out = append(out, HugepageAlloc{Node: t.nodes[m].id, SizeKB: t.sizeKB, Pages: got[m]})
		}
	}
	return out, left
}

func (t *topo) ids(idx []int) []int {
	out := make([]int, 0, len(idx))
	for _, i := range idx {
		out = append(out, t.nodes[i].id)
	}
	sort.Ints(out)
	return out
}

func (t *topo) freeTotal() int {
	s := 0
	for _, n := range t.nodes {
		s += n.freeCPUs()
	}
	return s
}

func (t *topo) availTotal() int64 {
	var s int64
	for _, n := range t.nodes {
		s += n.avail
	}
	return s
}

// nicIndex is the node index of an instance's NIC, -1 when unknown.
func (r *Result) nicIndex(in Instance) int {
	if in.NIC == "" {
		return -1
	}
	if id, ok := r.topo.nicNodes[in.NIC]; ok {
		return r.topo.index(id)
	}
	return -1
}

// bind allocates one cpuset of k CPUs and p pages; on failure it explains
// precisely what is short and returns nil.
func (r *Result) bind(who string, k int, p int64, nicIdx int) (*alloc, []HugepageAlloc) {
	t := r.topo
	c, ok := t.choose(k, p, nicIdx)
	if !ok {
		free := t.freeTotal()
		switch {
		case free < k:
			r.fail(who, "needs %d CPU threads in whole cores; %d are left: short by %d", k, free, k-free)
		case t.availTotal() < p:
			r.fail(who, "needs %d hugepages of %d kB (%s); the nodes left can hold %d: short by %d (%s)",
				p, t.sizeKB, gbOf(p, t.sizeKB), t.availTotal(), p-t.availTotal(), gbOf(p-t.availTotal(), t.sizeKB))
		default:
			r.fail(who, "needs %d CPU threads and %d hugepages of %d kB on the same nodes; no set of nodes has both (%d CPUs and %d pages are free, but on different nodes)",
				k, p, t.sizeKB, free, t.availTotal())
		}
		return nil, nil
	}
	take := t.take
	if r.guestBind {
		take = t.takeBalanced
	}
	a := &alloc{cpus: take(c, k), memIdx: c.mems, mems: t.ids(c.mems), remote: c.remote > 0}
	if len(a.cpus) > k && !r.guestBind { // a guest says it with its vCPUs (pinGuest)
		r.warn(who, "%d CPU threads asked, %d given: whole cores keep SMT siblings together", k, len(a.cpus))
	}
	if a.remote {
		var ml []int
		for _, i := range c.nodes {
			if !t.nodes[i].hasMem {
				ml = append(ml, t.nodes[i].id)
			}
		}
		if len(a.mems) == 0 {
			r.fail(who, "its CPUs are on memoryless node(s) %s and no node has memory", cpulist.Format(ml))
			return nil, nil
		}
		r.warn(who, "CPUs on memoryless node(s) %s: their memory comes from node(s) %s (remote memory, forced by the topology)",
			cpulist.Format(ml), cpulist.Format(a.mems))
	}
	if nicIdx >= 0 {
		inSet := false
		for _, i := range c.nodes {
			inSet = inSet || i == nicIdx
		}
		if !inSet {
			r.warn(who, "its NIC is on node %d, outside its nodes %s: client traffic crosses nodes", t.nodes[nicIdx].id, cpulist.Format(t.ids(c.nodes)))
		}
	}
	hp, short := t.spread(a.memIdx, p)
	if short > 0 { // choose checked the total; cannot happen
		r.fail(who, "hugepages short by %d on nodes %s", short, cpulist.Format(a.mems))
	}
	return a, hp
}

func (r *Result) addGroup(name string, a *alloc, members []string) {
	r.Groups = append(r.Groups, Group{Name: name, CPUs: a.cpus, Mems: a.mems, Members: members})
}

func (r *Result) planBinding() {
	t := r.topo
	var gNeed int
	for _, in := range r.spec.Instances {
		if in.Guaranteed() {
			gNeed += in.CPUs
		}
	}
	if gNeed > t.threads {
		r.fail("", "guaranteed instances need %d CPU threads in total; the host has %d: short by %d", gNeed, t.threads, gNeed-t.threads)
	}
	for _, i := range r.order(guaranteed) {
		in := r.spec.Instances[i]
		a, hp := r.bind(in.Name, in.CPUs, r.pages(in), r.nicIndex(in))
		if a == nil {
			continue
		}
		ip := r.plan(in.Name)
		ip.CPUs, ip.Mems, ip.CPUCount, ip.Hugepages, ip.Group = a.cpus, a.mems, len(a.cpus), hp, GroupPrefix+in.Name
		r.addGroup(ip.Group, a, []string{in.Name})
		if len(a.mems) > 1 && in.Engine == "oracle" && in.MemoryGB > 0 {
			r.warn(in.Name, "bound to %d nodes with large pages: with _enable_NUMA_support at its default FALSE Oracle fills the first node's pages before the next (001, SGA distribution); its init parameters set _enable_NUMA_support=TRUE (000 Scenario 1), with Oracle Support's agreement", len(a.mems))
		}
	}
	r.bestEffortShared()
}

// bestEffortShared gives every best-effort instance the CPUs left, in one
// shared cpuset, without caging: 001 (customer case 2, binding and the
// binding + caging mix) puts the non-paying databases "into another cgroup
// (no overlap with the paying one) without caging". An Oracle instance bound
// to a processor group sizes cpu_count from its cpuset.
func (r *Result) bestEffortShared() {
	t := r.topo
	r.emulatorCores()
	be := r.order(bestEffort)
	if len(be) == 0 {
		return
	}
	var all []int
	for i, n := range t.nodes {
		if n.freeCPUs() > 0 {
			all = append(all, i)
		}
	}
	names := make([]string, 0, len(be))
	var members []string // the instances in the cpuset: guests are pinned by libvirt, not moved into it
	for _, i := range be {
		names = append(names, r.spec.Instances[i].Name)
		if !r.spec.Instances[i].Guest() {
			members = append(members, r.spec.Instances[i].Name)
		}
	}
	sort.Strings(names)
	sort.Strings(members)
	if len(all) == 0 {
		r.fail(strings.Join(names, ","), "best-effort instances have no CPU left: the guaranteed instances take all %d threads", t.threads)
		return
	}
	free := t.freeTotal()
	c := &candidate{nodes: all}
	c.mems, c.remote = t.memsOf(all)
	a := &alloc{cpus: t.take(c, free), memIdx: c.mems, mems: t.ids(c.mems), remote: c.remote > 0}
	if len(a.mems) == 0 {
		r.fail(strings.Join(names, ","), "the CPUs left for best-effort instances are on nodes without memory, and no node has memory")
		return
	}
	if a.remote {
		var ml []int
		for _, i := range all {
			if !t.nodes[i].hasMem {
				ml = append(ml, t.nodes[i].id)
			}
		}
		r.warn(strings.Join(names, ","), "the best-effort set holds CPUs of memoryless node(s) %s: their memory is remote", cpulist.Format(ml))
	}
	if len(members) > 0 {
		r.addGroup(GroupPrefix+"besteffort", a, members)
	}
	for _, i := range be {
		in := r.spec.Instances[i]
		hp, short := t.spread(a.memIdx, r.pages(in))
		if short > 0 {
			r.fail(in.Name, "needs %d hugepages of %d kB (%s) on the shared nodes %s; short by %d (%s)",
				r.pages(in), t.sizeKB, gbOf(r.pages(in), t.sizeKB), cpulist.Format(a.mems), short, gbOf(short, t.sizeKB))
		}
		ip := r.plan(in.Name)
		if in.Guest() {
			ip.CPUs, ip.Mems, ip.Hugepages, ip.CPUCount = a.cpus, a.mems, hp, in.CPUs
			continue
		}
		ip.CPUs, ip.Mems, ip.Hugepages, ip.Group = a.cpus, a.mems, hp, GroupPrefix+"besteffort"
		ip.CPUCount = len(a.cpus)
		if in.CPUs > len(a.cpus) {
			r.warn(in.Name, "asks %d CPU threads; the best-effort set has %d, shared with the other non-paying instances", in.CPUs, len(a.cpus))
		}
	}
}

// planCaging cages the instances (001's caging, customer cases 1, 2, 4 and
// case 3 option 2: every instance caged). With bestEffortOnly it is case 3
// option 1: only the non-paying instances are caged, their sum(cpu_count)
// within "CPU Total – number of paid CPU"; the paying ones are not caged and
// may use every CPU ("That way the paying databases have guaranteed at least
// the resources they paid for").
func (r *Result) planCaging(bestEffortOnly bool) {
	t := r.topo
	r.emulatorCores()
	// The caged instances share the CPUs the guaranteed guests left.
	threads, after := t.freeTotal(), ""
	if threads != t.threads {
		after = fmt.Sprintf(" (of %d, after the pinned guests' cores)", t.threads)
	}
	var gSum, bSum int
	var all []int
	for i, in := range r.spec.Instances {
		if in.Guest() && in.Guaranteed() {
			continue
		}
		if in.Guest() {
			bSum += in.CPUs
			all = append(all, i)
			continue
		}
		if in.CPUs < 2 && !(bestEffortOnly && in.Guaranteed()) {
			r.fail(in.Name, "cpu_count %d: caging needs cpu_count ≥ 2 (001: Oracle advises at least 2); short by %d", in.CPUs, 2-in.CPUs)
		}
		if in.Guaranteed() {
			gSum += in.CPUs
		} else {
			bSum += in.CPUs
		}
		all = append(all, i)
	}
	caged := len(all)
	if bestEffortOnly {
		caged = 0
		for _, i := range all {
			if !r.spec.Instances[i].Guaranteed() {
				caged++
			}
		}
	}
	if n := caged; n > threads/2 {
		r.fail("", "%d instances to cage; with cpu_count ≥ 2 at most threads/2 = %d fit (001)%s: %d too many", n, threads/2, after, n-threads/2)
	}
	if gSum > threads {
		r.fail("", "sum(cpu_count) of guaranteed instances is %d; the host has %d threads%s: CPU cannot be guaranteed, short by %d", gSum, threads, after, gSum-threads)
	} else if bSum > threads-gSum {
		r.fail("", "sum(cpu_count) of best-effort instances is %d; only %d threads%s − %d guaranteed = %d remain (001: non-paid ≤ total − paid): over by %d",
			bSum, threads, after, gSum, threads-gSum, bSum-(threads-gSum))
	}
	cpus, memIdx := t.cpusAndMemNodes(true)
	mems := t.ids(memIdx)
	if len(memIdx) > 1 {
		r.warn("", "caging sets no cpuset: the SGA / shared memory of each instance is interleaved over all %d memory nodes (001)", len(memIdx))
	}
	for _, i := range all {
		in := r.spec.Instances[i]
		ip := r.plan(in.Name)
		hp, short := t.spread(memIdx, r.pages(in))
		if short > 0 {
			r.fail(in.Name, "needs %d hugepages of %d kB (%s) interleaved over nodes %s; short by %d (%s)",
				r.pages(in), t.sizeKB, gbOf(r.pages(in), t.sizeKB), cpulist.Format(mems), short, gbOf(short, t.sizeKB))
		}
		ip.CPUs, ip.Mems, ip.CPUCount, ip.Hugepages, ip.Caged = cpus, mems, in.CPUs, hp, !in.Guest()
		if bestEffortOnly && in.Guaranteed() {
			// not caged: Oracle's cpu_count defaults to the CPUs it sees
			ip.CPUCount, ip.Caged = len(cpus), false
		}
	}
}

// planBindBestEffort is 001's customer case 3, binding option 1 (the
// author's favourite): "Put all the non-paying databases into a “CPU Total –
// number of paid CPU ” cgroup" and "Allow all the CPUs to be used by the
// paying databases (don't create a cgroup for the paying databases)". The
// paid CPUs are the sum of the guaranteed instances' cpus (the group paid
// for them whatever the number of its databases). The non-paying cgroup is
// whole cores, never more than the CPUs left after the paid ones; the paying
// instances are not bound: their SGA is interleaved over every node (001,
// observation 2).
func (r *Result) planBindBestEffort() {
	t := r.topo
	paid := 0
	var be []int
	for i, in := range r.spec.Instances {
		if in.Guaranteed() {
			paid += in.CPUs
		} else {
			be = append(be, i)
		}
	}
	if paid > t.threads {
		r.fail("", "guaranteed instances need %d CPU threads in total; the host has %d: short by %d", paid, t.threads, paid-t.threads)
		return
	}
	if len(be) > 0 {
		names := make([]string, 0, len(be))
		var p int64
		nic := -1
		for _, i := range be {
			in := r.spec.Instances[i]
			names = append(names, in.Name)
			p += r.pages(in)
			if n := r.nicIndex(in); n >= 0 && nic < 0 {
				nic = n
			}
		}
		sort.Strings(names)
		who := strings.Join(names, ",")
		k := r.wholeCoresWithin(t.threads - paid)
		if k < 1 {
			r.fail(who, "best-effort instances have no whole core left: the %d paid CPU threads leave %d of %d", paid, t.threads-paid, t.threads)
		} else if a, _ := r.bindGroup(who, k, p, nic); a != nil {
			if len(a.cpus) > t.threads-paid {
				r.fail(who, "the non-paying cpuset takes %d CPU threads in whole cores; only %d are left after the %d paid", len(a.cpus), t.threads-paid, paid)
			} else {
				r.addGroup(GroupPrefix+"besteffort", a, names)
				for _, i := range be {
					in := r.spec.Instances[i]
					hp, short := t.spread(a.memIdx, r.pages(in))
					if short > 0 {
						r.fail(in.Name, "needs %d hugepages of %d kB (%s) on the non-paying nodes %s; short by %d (%s)",
							r.pages(in), t.sizeKB, gbOf(r.pages(in), t.sizeKB), cpulist.Format(a.mems), short, gbOf(short, t.sizeKB))
					}
					ip := r.plan(in.Name)
					ip.CPUs, ip.Mems, ip.Hugepages, ip.Group, ip.CPUCount = a.cpus, a.mems, hp, GroupPrefix+"besteffort", len(a.cpus)
				}
			}
		}
	} else {
		r.warn("", "no best-effort instance: option 1 binds only the non-paying databases, so the paying ones run unbound on every CPU")
	}
	all, memIdx := t.cpusAndMemNodes(false)
	mems := t.ids(memIdx)
	if len(memIdx) > 1 {
		r.warn("", "the paying instances are not bound: the SGA / shared memory of each is interleaved over all %d memory nodes (001)", len(memIdx))
	}
	for _, in := range r.spec.Instances {
		if !in.Guaranteed() {
			continue
		}
		hp, short := t.spread(memIdx, r.pages(in))
		if short > 0 {
			r.fail(in.Name, "needs %d hugepages of %d kB (%s) interleaved over nodes %s; short by %d (%s)",
				r.pages(in), t.sizeKB, gbOf(r.pages(in), t.sizeKB), cpulist.Format(mems), short, gbOf(short, t.sizeKB))
		}
		ip := r.plan(in.Name)
		ip.CPUs, ip.Mems, ip.CPUCount, ip.Hugepages = all, mems, len(all), hp
	}
}

// wholeCoresWithin is the most CPU threads, at most n, that whole free
// cores can make when every core has the same number of threads (an SMT-2
// host: an odd n is one less); n itself otherwise.
func (r *Result) wholeCoresWithin(n int) int {
	size := 0
	for _, nd := range r.topo.nodes {
		for _, c := range nd.cores {
			switch {
			case size == 0:
				size = len(c.cpus)
			case size != len(c.cpus):
				return n
			}
		}
	}
	if size <= 1 {
		return n
	}
	return n - n%size
}

func (r *Result) planMix() {
	t := r.topo
	g := r.order(guaranteed)
	var k int
	var p int64
	names := []string{}
	for _, i := range g {
		in := r.spec.Instances[i]
		k += in.CPUs
		p += r.pages(in)
		names = append(names, in.Name)
		if in.CPUs < 2 {
			r.fail(in.Name, "cpu_count %d: caging inside the guaranteed cpuset needs cpu_count ≥ 2 (001); short by %d", in.CPUs, 2-in.CPUs)
		}
	}
	sort.Strings(names)
	if len(g) > 0 {
		if k > t.threads {
			r.fail("", "guaranteed instances need %d CPU threads in total; the host has %d: short by %d", k, t.threads, k-t.threads)
		} else {
			nic := -1
			for _, i := range g {
				if n := r.nicIndex(r.spec.Instances[i]); n >= 0 {
					nic = n
					break
				}
			}
			if a, _ := r.bindGroup(strings.Join(names, ","), k, p, nic); a != nil {
				r.addGroup(GroupPrefix+"guaranteed", a, names)
				for _, i := range g {
					in := r.spec.Instances[i]
					hp, _ := t.spread(a.memIdx, r.pages(in))
					ip := r.plan(in.Name)
					ip.CPUs, ip.Mems, ip.CPUCount, ip.Hugepages, ip.Group, ip.Caged = a.cpus, a.mems, in.CPUs, hp, GroupPrefix+"guaranteed", true
				}
			}
		}
	}
	r.bestEffortShared()
}

// bindGroup is bind without taking the pages (they are spread per instance).
func (r *Result) bindGroup(who string, k int, p int64, nic int) (*alloc, []HugepageAlloc) {
	t := r.topo
	saved := make([]int64, len(t.nodes))
	for i, n := range t.nodes {
		saved[i] = n.avail
	}
	a, _ := r.bind(who, k, p, nic)
	for i, n := range t.nodes {
		n.avail = saved[i]
	}
	return a, nil
}

// plural is "1 node", "8 nodes".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// cpusAndMemNodes lists the host's CPUs (only those of cores no instance
// took, when free), sorted, and the indexes of the nodes with memory.
func (t *topo) cpusAndMemNodes(free bool) (cpus, memIdx []int) {
	for i, n := range t.nodes {
		for _, c := range n.cores {
			if !free || !c.taken {
				cpus = append(cpus, c.cpus...)
			}
		}
		if n.hasMem {
			memIdx = append(memIdx, i)
		}
	}
	sort.Ints(cpus)
	return cpus, memIdx
}
