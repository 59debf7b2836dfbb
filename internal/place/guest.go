package place

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
)

// Guest is where a kvm-guest's vCPUs, emulator threads and RAM go: what
// libvirt's <cputune>, <numatune>, <memoryBacking> and guest <cpu><numa>
// say (Fragments) and the virsh commands that set them (Virsh).
type Guest struct {
	Domain string `json:"domain"`
	VCPUs  int    `json:"vcpus"`
	// Pins maps each vCPU to its host CPUs: one CPU each for a guaranteed
	// guest (1:1, SMT siblings of a core to consecutive vCPUs); the whole
	// shared set for a best-effort one.
	Pins []VCPUPin `json:"vcpupin"`
	// EmulatorCPUs run QEMU's emulator (and I/O) threads: a core of the
	// guest's node(s) kept off every vCPU when there is room, else the
	// guest's own CPUs (EmulatorOnVCPUs).
	EmulatorCPUs    []int `json:"emulator_cpus"`
	EmulatorOnVCPUs bool  `json:"emulator_on_vcpus"`
	// MemoryMode is numatune's mode: strict (the guest's pages are reserved
	// on its nodes) or interleave (a floating guest over several nodes).
	MemoryMode string `json:"memory_mode"`
	Nodeset    []int  `json:"nodeset"`
	MemoryKB   int64  `json:"memory_kb"` // the guest's RAM: its hugepages
	PageKB     int64  `json:"page_kb"`
	// Cells are the guest NUMA nodes when the guest spans host nodes (one
	// cell per host memory node, its vCPUs and its share of the RAM).
	Cells []Cell `json:"cells"`
	// Topology is the guest CPU topology matching the host cores (nil for
	// a floating guest: its topology is left as it is).
	Topology *CPUTopology `json:"topology,omitempty"`
	Virsh    []string     `json:"virsh"`
}

// VCPUPin is one vCPU's host CPUs.
type VCPUPin struct {
	VCPU int   `json:"vcpu"`
	CPUs []int `json:"cpus"`
}

// Cell is one guest NUMA node.
type Cell struct {
	ID       int   `json:"id"`
	VCPUs    []int `json:"vcpus"`
	MemoryKB int64 `json:"memory_kb"`
	HostNode int   `json:"host_node"`
}

// CPUTopology is the guest's <cpu><topology>.
type CPUTopology struct {
	Sockets int `json:"sockets"`
	Cores   int `json:"cores"`
	Threads int `json:"threads"`
}

// EmulatorCore is a host core kept for the emulator threads of the
// guaranteed guests whose vCPUs are on its node.
type EmulatorCore struct {
	Node   int      `json:"node"`
	CPUs   []int    `json:"cpus"`
	Guests []string `json:"guests"`
}

// cpuNodeIdx maps every CPU of the planner's view to its node index.
func (t *topo) cpuNodeIdx() map[int]int {
	m := map[int]int{}
	for i, n := range t.nodes {
		for _, c := range n.cores {
			for _, cpu := range c.cpus {
				m[cpu] = i
			}
		}
	}
	return m
}

// planGuests pins the guaranteed kvm-guests first, larger first, before any
// other instance: their vCPUs need whole cores of their own on as few and
// as near nodes as possible (seed 003, "Virt Tuning – Using NUMA": 4 VMs
// each on its node), memory strict on those nodes.
func (r *Result) planGuests() {
	for _, i := range r.order(func(in Instance) bool { return in.Guaranteed() && in.Guest() }) {
		in := r.spec.Instances[i]
		r.guestBind = true
		a, hp := r.bind(in.Name, in.CPUs, r.pages(in), r.nicIndex(in))
		r.guestBind = false
		if a == nil {
			continue
		}
		ip := r.plan(in.Name)
		ip.CPUs, ip.Mems, ip.CPUCount, ip.Hugepages = a.cpus, a.mems, in.CPUs, hp
	}
}

// emulatorCores keeps, on each node holding vCPUs of guaranteed guests,
// one free whole core for their emulator threads, once the guaranteed
// instances are placed and before best-effort or caged ones take the rest.
// A node without a free core leaves its guests' emulator threads on their
// own CPUs (a warning says so).
func (r *Result) emulatorCores() {
	if r.emuDone {
		return
	}
	r.emuDone = true
	t := r.topo
	nodeOf := t.cpuNodeIdx()
	guestsOn := map[int][]string{}
	var guests []string
	for _, in := range r.spec.Instances {
		ip := r.plan(in.Name)
		if !in.Guest() || !in.Guaranteed() || len(ip.CPUs) == 0 {
			continue
		}
		guests = append(guests, in.Name)
		seen := map[int]bool{}
		for _, c := range ip.CPUs {
			if i := nodeOf[c]; !seen[i] {
				seen[i] = true
				guestsOn[i] = append(guestsOn[i], in.Name)
			}
		}
	}
	core := map[int][]int{}
	for i, n := range t.nodes {
		if len(guestsOn[i]) == 0 {
			continue
		}
		for ci := range n.cores {
			if !n.cores[ci].taken {
				n.cores[ci].taken = true
				core[i] = n.cores[ci].cpus
				names := append([]string(nil), guestsOn[i]...)
				sort.Strings(names)
				r.Emulator = append(r.Emulator, EmulatorCore{Node: n.id, CPUs: n.cores[ci].cpus, Guests: names})
				break
			}
		}
	}
	r.emu = map[string][]int{}
	for _, name := range guests {
		ip := r.plan(name)
		var cpus []int
		seen := map[int]bool{}
		for _, c := range ip.CPUs {
			i := nodeOf[c]
			if !seen[i] {
				seen[i] = true
				cpus = append(cpus, core[i]...)
			}
		}
		sort.Ints(cpus)
		if len(cpus) == 0 {
			r.warn(name, "no free core left on node(s) %s for the emulator threads: they share the vCPUs' CPUs %s (keep a core free on the guest's node to move them off)",
				cpulist.Format(t.ids(slices.Sorted(maps.Keys(seen)))), cpulist.Format(ip.CPUs))
		}
		r.emu[name] = cpus
	}
}

// finishGuests turns each placed guest's CPUs and pages into its libvirt
// placement (Guest): the vCPU pins, the emulator CPUs, numatune, cells.
func (r *Result) finishGuests() {
	t := r.topo
	for i, in := range r.spec.Instances {
		if !in.Guest() {
			continue
		}
		ip := &r.Instances[i]
		if len(ip.CPUs) == 0 {
			continue
		}
		g := &Guest{Domain: in.DomainName(), VCPUs: in.CPUs, Pins: []VCPUPin{}, Cells: []Cell{}, PageKB: t.sizeKB, Nodeset: ip.Mems, MemoryMode: "strict"}
		for _, h := range ip.Hugepages {
			g.MemoryKB += h.Pages * h.SizeKB
		}
		if want := int64(in.MemoryGB * 1024 * 1024); g.MemoryKB > want {
			r.warn(in.Name, "memory_gb %v rounded up to whole pages of %d kB: the guest gets %d KiB", in.MemoryGB, t.sizeKB, g.MemoryKB)
		}
		if in.Guaranteed() {
			r.pinGuest(in, ip, g)
		} else {
			// A best-effort guest floats over the shared CPUs, its vCPUs
			// and emulator threads alike; its pages were spread evenly.
			for v := 0; v < in.CPUs; v++ {
				g.Pins = append(g.Pins, VCPUPin{VCPU: v, CPUs: ip.CPUs})
			}
			g.EmulatorCPUs = ip.CPUs
			if len(ip.Mems) > 1 {
				g.MemoryMode = "interleave"
			}
			if in.CPUs > len(ip.CPUs) {
				r.warn(in.Name, "%d vCPUs float over %d shared CPU threads: the guest's vCPUs wait for each other (overcommitted)", in.CPUs, len(ip.CPUs))
			}
		}
		g.Virsh = g.virsh()
		ip.Guest = g
	}
}

// pinGuest pins a guaranteed guest's vCPUs 1:1 to its CPUs, core by core
// (SMT siblings to consecutive vCPUs, so the guest topology can say
// threads=2), cell by cell (host memory node by node).
func (r *Result) pinGuest(in Instance, ip *InstancePlan, g *Guest) {
	t := r.topo
	mine := map[int]bool{}
	for _, c := range ip.CPUs {
		mine[c] = true
	}
	type hcore struct {
		cpus []int
		mem  int // host memory node id of the core
	}
	var cores []hcore
	for i, n := range t.nodes {
		m := t.nearestMem(i)
		if m < 0 {
			continue
		}
		for _, c := range n.cores {
			if mine[c.cpus[0]] {
				cores = append(cores, hcore{cpus: c.cpus, mem: t.nodes[m].id})
			}
		}
	}
	sort.SliceStable(cores, func(a, b int) bool {
		if cores[a].mem != cores[b].mem {
			return cores[a].mem < cores[b].mem
		}
		return cores[a].cpus[0] < cores[b].cpus[0]
	})
	cellOf := map[int]int{}
	pagesOn := map[int]int64{}
	for _, h := range ip.Hugepages {
		pagesOn[h.Node] += h.Pages
	}
	v := 0
	threads := 0
	sameWidth := true
	for _, c := range cores {
		if threads == 0 {
			threads = len(c.cpus)
		}
		sameWidth = sameWidth && len(c.cpus) == threads
		id, ok := cellOf[c.mem]
		if !ok {
			id = len(g.Cells)
			cellOf[c.mem] = id
			g.Cells = append(g.Cells, Cell{ID: id, VCPUs: []int{}, HostNode: c.mem, MemoryKB: pagesOn[c.mem] * t.sizeKB})
		}
		for _, cpu := range c.cpus {
			if v == in.CPUs {
				break
			}
			g.Pins = append(g.Pins, VCPUPin{VCPU: v, CPUs: []int{cpu}})
			g.Cells[id].VCPUs = append(g.Cells[id].VCPUs, v)
			v++
		}
	}
	if idle := len(ip.CPUs) - in.CPUs; idle > 0 {
		r.warn(in.Name, "%d vCPUs on %d whole cores: %d CPU thread(s) stay idle, kept from other guests so that no core is shared (an even vCPU count uses them)", in.CPUs, len(cores), idle)
	}
	for _, c := range g.Cells {
		if c.MemoryKB == 0 {
			r.warn(in.Name, "guest cell %d (host node %d) has vCPUs but none of the guest's pages: its memory is remote to them", c.ID, c.HostNode)
		}
	}
	if !sameWidth || threads == 0 || in.CPUs%threads != 0 {
		threads = 1
	}
	sockets := len(g.Cells)
	for _, c := range g.Cells {
		if len(c.VCPUs) != len(g.Cells[0].VCPUs) || len(c.VCPUs)%threads != 0 {
			sockets = 1
		}
	}
	g.Topology = &CPUTopology{Sockets: sockets, Cores: in.CPUs / (sockets * threads), Threads: threads}
	if len(g.Cells) < 2 {
		g.Cells = []Cell{}
	}
	g.EmulatorCPUs = r.emu[in.Name]
	if len(g.EmulatorCPUs) == 0 {
		g.EmulatorCPUs, g.EmulatorOnVCPUs = ip.CPUs, true
	}
}

// virsh are the commands that set the placement in the domain's persistent
// definition (--config: at the guest's next start). <memoryBacking> and the
// guest NUMA cells have no virsh command: they need the edited XML defined.
func (g *Guest) virsh() []string {
	d := change.Quote(g.Domain) // a plain word (domainRE), quoted all the same: one quoter
	out := []string{
		fmt.Sprintf("virsh setvcpus %s %d --maximum --config", d, g.VCPUs),
		fmt.Sprintf("virsh setvcpus %s %d --config", d, g.VCPUs),
	}
	if len(g.Cells) == 0 {
		// With guest NUMA cells the RAM is the cells' sum: libvirt
		// refuses setmaxmem on such a domain (the XML sets it).
		out = append(out,
			fmt.Sprintf("virsh setmaxmem %s %dKiB --config", d, g.MemoryKB),
			fmt.Sprintf("virsh setmem %s %dKiB --config", d, g.MemoryKB))
	}
	for _, p := range g.Pins {
		out = append(out, fmt.Sprintf("virsh vcpupin %s %d %s --config", d, p.VCPU, cpulist.Format(p.CPUs)))
	}
	out = append(out,
		fmt.Sprintf("virsh emulatorpin %s %s --config", d, cpulist.Format(g.EmulatorCPUs)),
		fmt.Sprintf("virsh numatune %s --mode %s --nodeset %s --config", d, g.MemoryMode, cpulist.Format(g.Nodeset)))
	return out
}

// Fragments is the domain XML that places the guest: <vcpu>, <memory>,
// <currentMemory>, <memoryBacking>, <cputune>, <numatune> and, for a
// guaranteed guest, <cpu> with its topology and (spanning guests) cells.
func (g *Guest) Fragments() string {
	var b strings.Builder
	for _, e := range g.elements() {
		b.WriteString(e.xml)
	}
	return b.String()
}

// element is one top-level child of <domain> the placement sets.
type element struct {
	name string
	xml  string // the whole element, indented two spaces, with its newline
}

func (g *Guest) elements() []element {
	var out []element
	add := func(name, format string, a ...any) {
		out = append(out, element{name: name, xml: fmt.Sprintf(format, a...)})
	}
	add("memory", "  <memory unit='KiB'>%d</memory>\n", g.MemoryKB)
	add("currentMemory", "  <currentMemory unit='KiB'>%d</currentMemory>\n", g.MemoryKB)
	add("memoryBacking", "  <memoryBacking>\n    <hugepages>\n      <page size='%d' unit='KiB'/>\n    </hugepages>\n  </memoryBacking>\n", g.PageKB)
	add("vcpu", "  <vcpu placement='static'>%d</vcpu>\n", g.VCPUs)
	var ct strings.Builder
	ct.WriteString("  <cputune>\n")
	for _, p := range g.Pins {
		fmt.Fprintf(&ct, "    <vcpupin vcpu='%d' cpuset='%s'/>\n", p.VCPU, cpulist.Format(p.CPUs))
	}
	fmt.Fprintf(&ct, "    <emulatorpin cpuset='%s'/>\n  </cputune>\n", cpulist.Format(g.EmulatorCPUs))
	add("cputune", "%s", ct.String())
	var nt strings.Builder
	fmt.Fprintf(&nt, "  <numatune>\n    <memory mode='%s' nodeset='%s'/>\n", g.MemoryMode, cpulist.Format(g.Nodeset))
	for _, c := range g.Cells {
		fmt.Fprintf(&nt, "    <memnode cellid='%d' mode='strict' nodeset='%d'/>\n", c.ID, c.HostNode)
	}
	nt.WriteString("  </numatune>\n")
	add("numatune", "%s", nt.String())
	if g.Topology != nil {
		add("cpu", "  <cpu>\n%s  </cpu>\n", g.cpuChildren("    "))
	}
	return out
}

// cpuChildren are the <topology> and <numa> children of <cpu>, each line
// prefixed by indent.
func (g *Guest) cpuChildren(indent string) string {
	if g.Topology == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s<topology sockets='%d' cores='%d' threads='%d'/>\n", indent, g.Topology.Sockets, g.Topology.Cores, g.Topology.Threads)
	if len(g.Cells) > 0 {
		fmt.Fprintf(&b, "%s<numa>\n", indent)
		for _, c := range g.Cells {
			fmt.Fprintf(&b, "%s  <cell id='%d' cpus='%s' memory='%d' unit='KiB'/>\n", indent, c.ID, cpulist.Format(c.VCPUs), c.MemoryKB)
		}
		fmt.Fprintf(&b, "%s</numa>\n", indent)
	}
	return b.String()
}

// guestArtifacts are a guest's files: the domain XML fragments and the
// virsh commands.
func (r *Result) guestArtifacts(ip InstancePlan, files map[string]string) {
	g := ip.Guest
	if g == nil {
		return
	}
	var x strings.Builder
	fmt.Fprintf(&x, "<!-- dbhost place: guest %s, libvirt domain %s (%s, %s).\n", ip.Name, g.Domain, r.Strategy, ip.Class)
	x.WriteString("     These elements replace their namesakes directly under <domain> ('virsh edit'; inside an\n")
	x.WriteString("     existing <cpu>, only <topology> and <numa> are replaced: its mode and model stay);\n")
	x.WriteString("     dbhost place with its apply option defines the edited XML itself, journaled. They take effect at the next start. -->\n")
	x.WriteString(g.Fragments())
	files["libvirt/"+g.Domain+".xml"] = x.String()
	var v strings.Builder
	fmt.Fprintf(&v, "#!/bin/sh\n# dbhost place: guest %s, libvirt domain %s: the persistent definition (--config; next start).\n", ip.Name, g.Domain)
	v.WriteString("# Add --live to vcpupin/emulatorpin to move a running guest's threads now; its memory stays where it is until a restart (001).\n")
	v.WriteString("# <memoryBacking> hugepages and the guest NUMA cells have no virsh command: edit the domain with libvirt/" + g.Domain + ".xml\n")
	v.WriteString("# ('virsh edit " + g.Domain + "') or let 'dbhost place --apply' define it. Run hugepages.sh first: the pages must be there at start.\nset -e\n")
	for _, c := range g.Virsh {
		v.WriteString(c + "\n")
	}
	files["libvirt/"+g.Domain+".virsh.sh"] = v.String()
}

// hugepagesUnit is the persistent form of hugepages.sh: a boot-time unit
// ordered before the databases and libvirt, and the kernel command line
// that reserves the same per-node pools (Linux 5.16 and later).
func (r *Result) hugepagesUnit() string {
	t := r.topo
	planned := r.plannedPages()
	var nodes []string
	for _, n := range t.nodes {
		want := n.total
		if p := planned[n.id]; p > 0 {
			want = n.total + max(0, p-n.pool)
		}
		if want > 0 {
			nodes = append(nodes, fmt.Sprintf("%d:%d", n.id, want))
		}
	}
	var b strings.Builder
	b.WriteString("# dbhost place: the per-node hugepage pools of hugepages.sh at every boot, before the databases and\n")
	b.WriteString("# libvirt start (a strict guest or a bound SGA needs its pages on its nodes when it starts).\n")
	b.WriteString("# Install: hugepages.sh as /etc/dbhost/hugepages.sh, this file in /etc/systemd/system/, then\n# 'systemctl daemon-reload; systemctl enable dbhost-hugepages.service'.\n")
	fmt.Fprintf(&b, "# Or reserve them on the kernel command line (Linux 5.16 and later; before memory fragments, the\n# surest for 1 GB pages): hugepagesz=%s hugepages=%s\n", sizeArg(t.sizeKB), strings.Join(nodes, ","))
	b.WriteString("[Unit]\nDescription=dbhost per-node hugepage pools\nDefaultDependencies=no\nAfter=local-fs.target\n")
	b.WriteString("Before=libvirtd.service virtqemud.service postgresql.service mysql.service mariadb.service oracle-ohasd.service dbora.service\n\n")
	b.WriteString("[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/sh /etc/dbhost/hugepages.sh\n\n[Install]\nWantedBy=multi-user.target\n")
	return b.String()
}

// plannedPages are the pages the plan puts on each node (node id → pages).
func (r *Result) plannedPages() map[int]int64 {
	planned := map[int]int64{}
	for _, ip := range r.Instances {
		for _, h := range ip.Hugepages {
			planned[h.Node] += h.Pages
		}
	}
	return planned
}

// sizeArg is a page size as hugepagesz= takes it (2M, 1G).
func sizeArg(kb int64) string {
	switch {
	case kb%(1<<20) == 0:
		return fmt.Sprintf("%dG", kb>>20)
	case kb%(1<<10) == 0:
		return fmt.Sprintf("%dM", kb>>10)
	}
	return fmt.Sprintf("%dK", kb)
}

// takeBalanced takes whole cores for k CPUs from cand's nodes in turn, one
// core per node a round (the first round takes one on every node, so that
// mems are the nodes of the CPUs, as take does): a guest spanning nodes gets cells of equal size
// where the nodes allow (a symmetric guest NUMA topology, and its RAM,
// spread evenly, matching its vCPUs).
func (t *topo) takeBalanced(c *candidate, k int) []int {
	var cpus []int
	for round := 0; round == 0 || len(cpus) < k; round++ {
		progress := false
		for _, i := range c.nodes {
			if round > 0 && len(cpus) >= k {
				break
			}
			n := t.nodes[i]
			for ci := range n.cores {
				if !n.cores[ci].taken {
					n.cores[ci].taken = true
					cpus = append(cpus, n.cores[ci].cpus...)
					progress = true
					break
				}
			}
		}
		if !progress {
			break
		}
	}
	sort.Ints(cpus)
	return cpus
}
