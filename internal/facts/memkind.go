package facts

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// The kinds of memory node (issue 25): what a node's memory is, named from
// the kernel files that say so, each quoted as evidence; "unknown" where
// none does. The files, from the kernel's documentation:
//   - node/has_memory, node/has_normal_memory (Documentation/ABI/stable/
//     sysfs-devices-node): a node with memory but no normal memory has it in
//     ZONE_MOVABLE only (hot-plugged memory, device memory a driver onlined:
//     POWER9 NVLink GPU memory, NVIDIA Grace's GPU nodes);
//   - /proc/zoneinfo: the node's zones and their present pages;
//   - nodeN/accessC/initiators/{read,write}_{bandwidth,latency} and the
//     initiators' nodeM links (Documentation/admin-guide/mm/numaperf.rst,
//     HMAT, Linux 5.2+; access1, CPU initiators only, 5.10+);
//   - nodeN/memory_side_cache/indexN/{size,line_size,indexing,write_policy}
//     (numaperf.rst: a cache in front of the node's memory, 2LM);
//   - /sys/devices/virtual/memory_tiering/memory_tierN/nodelist
//     (Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers, Linux 6.1+);
//   - /sys/bus/dax/devices/daxX.Y/target_node with its driver kmem (device
//     DAX onlined as system RAM, Linux 5.1+), the device's place in
//     /sys/devices naming its provider (an nd region: NVDIMM; a CXL region;
//     hmem: EFI soft-reserved memory); /sys/bus/nd/devices/regionN/
//     target_node (Documentation/ABI/testing/sysfs-bus-nvdimm).

func init() {
	register("topology-memkind", StageDerived, readMemKinds, "topology.nodes.kind")
}

const (
	sysMemTiers = "/sys/devices/virtual/memory_tiering"
	sysDax      = "/sys/bus/dax/devices"
	sysND       = "/sys/bus/nd/devices"
	procZone    = "/proc/zoneinfo"
)

// ZoneinfoZone is one zone of /proc/zoneinfo.
type ZoneinfoZone struct {
	Node    int
	Name    string
	Present int64
	Managed *int64 // nil before Linux 3.8
}

// ParseZoneinfo reads /proc/zoneinfo's zone headers ("Node 0, zone
// Normal") and each zone's present and managed page counts. The zone's
// other lines (per-node stats, pagesets, protection) are skipped. A zone
// without a present line is malformed.
func ParseZoneinfo(r io.Reader) ([]ZoneinfoZone, error) {
	var out []ZoneinfoZone
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	cur := -1
	check := func() error {
		if cur >= 0 && out[cur].Present < 0 {
			return parseErr(line, "zone %q of node %d has no present line", out[cur].Name, out[cur].Node)
		}
		return nil
	}
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\x00")
		if rest, ok := strings.CutPrefix(s, "Node "); ok {
			if err := check(); err != nil {
				return nil, err
			}
			id, zone, ok := strings.Cut(rest, ",")
			n, err := strconv.Atoi(strings.TrimSpace(id))
			f := strings.Fields(zone)
			if !ok || err != nil || n < 0 || len(f) != 2 || f[0] != "zone" {
				return nil, parseErr(line, "expected \"Node N, zone NAME\", got %q", trunc(s, 40))
			}
			out = append(out, ZoneinfoZone{Node: n, Name: f[1], Present: -1})
			cur = len(out) - 1
			continue
		}
		f := strings.Fields(s)
		if cur < 0 || len(f) != 2 || (f[0] != "present" && f[0] != "managed") {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || v < 0 {
			return nil, parseErr(line, "expected a page count, got %q", trunc(f[1], 20))
		}
		if f[0] == "present" {
			out[cur].Present = v
		} else {
			out[cur].Managed = &v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(line+1, "%v", err)
	}
	if err := check(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, parseErr(1, "expected \"Node N, zone NAME\" lines, got none")
	}
	return out, nil
}

// memKindFacts is what readMemKinds learnt of the host besides each node.
type memKindFacts struct {
	detail   map[int]*snapshot.NodeMemDetail
	devices  map[int][]string // node → "dax0.0 (kmem, nvdimm)"
	provider map[int]string   // node → "nvdimm", "cxl" (from a device or region)
	movable  map[int]bool     // zoneinfo: every zone with present pages is Movable
	zonesOK  bool
	normalOK bool
}

func readMemKinds(c *Collector) {
	t := &c.Snap.Topology
	if len(t.Nodes) == 0 {
		return
	}
	f := memKindFacts{detail: map[int]*snapshot.NodeMemDetail{}, devices: map[int][]string{}, provider: map[int]string{}, movable: map[int]bool{}}
	for _, n := range t.Nodes {
		f.detail[n.ID] = &snapshot.NodeMemDetail{}
	}
	readNormalMemory(c, &f)
	readZones(c, &f)
	readMemTiers(c, &f)
	readHMAT(c, t, &f)
	readDaxKmem(c, &f)
	readNDRegions(c, &f)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		d := f.detail[n.ID]
		d.Devices = f.devices[n.ID]
		n.Kind, n.KindEvidence = classifyNode(c, t, *n, d, &f)
		if !emptyDetail(d) {
			n.MemDetail = d
		}
	}
}

func emptyDetail(d *snapshot.NodeMemDetail) bool {
	return d.NormalMemory == nil && d.Zones == nil && d.MemoryTier == nil && d.Access == nil && d.MemorySideCache == nil && d.Devices == nil
}

func readNormalMemory(c *Collector, f *memKindFacts) {
	p := sysNode + "/has_normal_memory"
	s, err := c.Root.ReadString(p)
	if err != nil {
		c.Absent("topology.nodes.mem_detail.normal_memory", p, err)
		return
	}
	l, err := cpulist.Parse(s)
	if err != nil {
		c.Absent("topology.nodes.mem_detail.normal_memory", p, parseErr(1, "%v", err))
		return
	}
	f.normalOK = true
	for id, d := range f.detail {
		b := contains(l, id)
		d.NormalMemory = &b
	}
}

func readZones(c *Collector, f *memKindFacts) {
	b, err := c.Root.ReadFile(procZone)
	if err != nil {
		c.Absent("topology.nodes.mem_detail.zones", procZone, err)
		return
	}
	zs, err := ParseZoneinfo(strings.NewReader(string(b)))
	if err != nil {
		c.Absent("topology.nodes.mem_detail.zones", procZone, err)
		return
	}
	f.zonesOK = true
	present := map[int][]string{}
	for _, z := range zs {
		d, ok := f.detail[z.Node]
		if !ok || z.Present == 0 {
			continue
		}
		d.Zones = append(d.Zones, snapshot.NodeZone{Name: z.Name, Present: z.Present, Managed: z.Managed})
		present[z.Node] = append(present[z.Node], z.Name)
	}
	for id, names := range present {
		f.movable[id] = !slices.ContainsFunc(names, func(s string) bool { return s != "Movable" })
	}
}

func readMemTiers(c *Collector, f *memKindFacts) {
	names, err := c.Root.ReadDirNames(sysMemTiers)
	if err != nil {
		c.Absent("topology.nodes.mem_detail.memory_tier", sysMemTiers, err)
		return
	}
	for _, tier := range numberedEntries(names, "memory_tier") {
		p := fmt.Sprintf("%s/memory_tier%d/nodelist", sysMemTiers, tier)
		l := c.list("topology.nodes.mem_detail.memory_tier", p)
		for _, id := range l {
			if d, ok := f.detail[id]; ok {
				v := tier
				d.MemoryTier = &v
			}
		}
	}
}

// hmatAttrs are an access class's attributes, in NodeAccess order.
var hmatAttrs = []string{"read_bandwidth", "write_bandwidth", "read_latency", "write_latency"}

func readHMAT(c *Collector, t *snapshot.Topology, f *memKindFacts) {
	any := false
	for _, n := range t.Nodes {
		d := f.detail[n.ID]
		dir := fmt.Sprintf("%s/node%d", sysNode, n.ID)
		for class := 0; class <= 1; class++ {
			ad := fmt.Sprintf("%s/access%d/initiators", dir, class)
			names, err := c.Root.ReadDirNames(ad)
			if err != nil {
				continue
			}
			any = true
			a := snapshot.NodeAccess{Class: class, Initiators: numberedEntries(names, "node")}
			if a.Initiators == nil {
				a.Initiators = []int{}
			}
			vals := []**int64{&a.ReadBandwidth, &a.WriteBandwidth, &a.ReadLatency, &a.WriteLatency}
			for i, name := range hmatAttrs {
				if slices.Contains(names, name) {
					*vals[i] = c.Int(fmt.Sprintf("topology.nodes[%d].mem_detail.access.%s", n.ID, name), ad+"/"+name)
				}
			}
			d.Access = append(d.Access, a)
		}
		cd := dir + "/memory_side_cache"
		names, err := c.Root.ReadDirNames(cd)
		if err != nil {
			continue
		}
		any = true
		for _, idx := range numberedEntries(names, "index") {
			id := fmt.Sprintf("%s/index%d", cd, idx)
			size, e1 := c.readInt(id + "/size")
			line, e2 := c.readInt(id + "/line_size")
			ix, e3 := c.readInt(id + "/indexing")
			wp, e4 := c.readInt(id + "/write_policy")
			if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
				c.AbsentReason(fmt.Sprintf("topology.nodes[%d].mem_detail.memory_side_cache[%d]", n.ID, idx), id, "attributes unreadable")
				continue
			}
			d.MemorySideCache = append(d.MemorySideCache, snapshot.MemorySideCache{Level: idx, SizeBytes: size, LineSize: line, Indexing: ix, WritePolicy: wp})
		}
	}
	if !any {
		c.AbsentReason("topology.nodes.mem_detail.access", sysNode+"/nodeN/access0",
			"not present on this host: no node has access0 or memory_side_cache (the firmware has no ACPI HMAT, or Linux before 5.2)")
	}
}

// daxProvider names what a dax device's memory is from where the kernel
// placed the device (the /sys/bus/dax/devices link's target): under an nd
// region (ndbusN/regionM: NVDIMM), a CXL region, or hmem (EFI
// soft-reserved, "specific purpose" memory the firmware described in HMAT).
func daxProvider(target string) string {
	parts := strings.Split(target, "/")
	for _, p := range parts {
		switch {
		case strings.HasPrefix(p, "ndbus"):
			return "nvdimm"
		case strings.HasPrefix(p, "cxl") || strings.HasPrefix(p, "ACPI0017"):
			return "cxl"
		case strings.HasPrefix(p, "hmem"):
			return "soft-reserved"
		}
	}
	return ""
}

func readDaxKmem(c *Collector, f *memKindFacts) {
	names, err := c.Root.ReadDirNames(sysDax)
	if err != nil {
		c.Absent("topology.nodes.mem_detail.devices", sysDax, err)
		return
	}
	for _, name := range names {
		p := sysDax + "/" + name
		drv, err := c.Root.LinkBase(p + "/driver")
		if err != nil || drv != "kmem" {
			continue // device DAX (a character device), not system RAM
		}
		s, err := c.Root.ReadString(p + "/target_node")
		if err != nil {
			c.Absent("topology.nodes.mem_detail.devices", p+"/target_node", err)
			continue
		}
		node, err := strconv.Atoi(s)
		if err != nil {
			c.AbsentReason("topology.nodes.mem_detail.devices", p+"/target_node", "malformed: "+trunc(s, 20))
			continue
		}
		if _, ok := f.detail[node]; !ok {
			continue
		}
		target, _ := c.Root.Readlink(p)
		prov := daxProvider(target)
		desc := name + " (kmem"
		if prov != "" {
			desc += ", " + prov
			if f.provider[node] == "" || f.provider[node] == "soft-reserved" {
				f.provider[node] = prov
			}
		}
		f.devices[node] = append(f.devices[node], desc+")")
	}
}

func readNDRegions(c *Collector, f *memKindFacts) {
	names, err := c.Root.ReadDirNames(sysND)
	if err != nil {
		return // no NVDIMM bus: no nd region (the dax absence names the device bus)
	}
	for _, name := range names {
		if !strings.HasPrefix(name, "region") {
			continue
		}
		s, err := c.Root.ReadString(sysND + "/" + name + "/target_node")
		if err != nil {
			continue // Linux before 5.1 has no target_node
		}
		node, err := strconv.Atoi(s)
		if err != nil {
			continue
		}
		if _, ok := f.detail[node]; ok {
			f.devices[node] = append(f.devices[node], name+" (nd region, nvdimm)")
			f.provider[node] = "nvdimm"
		}
	}
}

// classifyNode names a node's kind from the files read, with the evidence.
func classifyNode(c *Collector, t *snapshot.Topology, n snapshot.Node, d *snapshot.NodeMemDetail, f *memKindFacts) (string, []string) {
	dir := fmt.Sprintf("%s/node%d", sysNode, n.ID)
	cpusKnown := !c.IsAbsent(fmt.Sprintf("topology.nodes[%d].cpus", n.ID))
	memKnown := c.Root.Exists(sysNode+"/has_memory") || n.MemTotalKB != nil
	if !cpusKnown || !memKnown {
		return snapshot.NodeKindUnknown, []string{"its CPU list or memory could not be read"}
	}
	if !n.HasMemory {
		if len(n.CPUs) > 0 {
			return snapshot.NodeKindCPUOnly, []string{sysNode + "/has_memory does not list it; " + cpuListFile(c, t, n.ID) + ": CPUs " + cpulist.Format(n.CPUs)}
		}
		return snapshot.NodeKindEmpty, []string{sysNode + "/has_memory does not list it and it has no CPUs"}
	}
	cpuFile := cpuListFile(c, t, n.ID)
	var ev []string
	for _, m := range d.MemorySideCache {
		ev = append(ev, fmt.Sprintf("%s/memory_side_cache/index%d/size: a %s memory-side cache in front of its memory", dir, m.Level, sizeText(m.SizeBytes)))
	}
	if len(n.CPUs) > 0 {
		ev = append([]string{fmt.Sprintf("%s: CPUs %s, with memory", cpuFile, cpulist.Format(n.CPUs))}, ev...)
		return snapshot.NodeKindDRAM, ev
	}
	ev = append(ev, cpuFile+": no CPUs")
	switch f.provider[n.ID] {
	case "nvdimm":
		return snapshot.NodeKindPMEM, append(ev, "its memory is an NVDIMM's: "+strings.Join(d.Devices, ", ")+" targets it")
	case "cxl":
		return snapshot.NodeKindCXL, append(ev, "its memory is a CXL region's: "+strings.Join(d.Devices, ", ")+" targets it")
	}
	if len(d.Devices) > 0 {
		ev = append(ev, "onlined from "+strings.Join(d.Devices, ", "))
	}
	// HMAT: the node's bandwidth from its best initiator against the CPUs'
	// own nodes' (access0, every initiator the firmware describes).
	if a := access(d, 0); a != nil && a.ReadBandwidth != nil {
		if ref, refNode, ok := dramReference(t, f, func(x *snapshot.NodeAccess) *int64 { return x.ReadBandwidth }); ok {
			q := fmt.Sprintf("%s/access0/initiators/read_bandwidth: %d MB/s, node%d's own %d MB/s", dir, *a.ReadBandwidth, refNode, ref)
			switch {
			case *a.ReadBandwidth > ref:
				return snapshot.NodeKindHBM, append(ev, q)
			case *a.ReadBandwidth < ref:
				return snapshot.NodeKindFar, append(ev, q)
			}
		}
	}
	if d.MemoryTier != nil {
		if top, ok := dramTier(t, f); ok && *d.MemoryTier > top {
			return snapshot.NodeKindFar, append(ev, fmt.Sprintf("%s/memory_tier%d/nodelist lists it; the CPUs' nodes are in memory_tier%d", sysMemTiers, *d.MemoryTier, top))
		}
	}
	if f.movable[n.ID] {
		return snapshot.NodeKindMovable, append(ev, procZone+": its memory is in zone Movable only (device memory a driver onlined, or hot-plugged)")
	}
	if d.NormalMemory != nil && !*d.NormalMemory {
		return snapshot.NodeKindMovable, append(ev, sysNode+"/has_memory lists it, has_normal_memory does not (ZONE_MOVABLE only: device memory a driver onlined, or hot-plugged)")
	}
	return snapshot.NodeKindUnknown, append(ev, "no file says what its memory is")
}

// cpuListFile is the file a node's CPU list came from: nodeN/cpulist,
// nodeN/cpumap (the topology reader's fallback), or a sosreport's numactl
// --hardware when the node directories are not there.
func cpuListFile(c *Collector, t *snapshot.Topology, id int) string {
	dir := fmt.Sprintf("%s/node%d", sysNode, id)
	for _, x := range t.Sources {
		if x.Fact == "nodes.cpus" && slices.Contains(x.Items, id) {
			return dir + "/" + path.Base(x.File)
		}
	}
	if !c.Root.Exists(dir) {
		return "numactl --hardware"
	}
	return dir + "/cpulist"
}

func access(d *snapshot.NodeMemDetail, class int) *snapshot.NodeAccess {
	for i := range d.Access {
		if d.Access[i].Class == class {
			return &d.Access[i]
		}
	}
	return nil
}

// dramReference is the highest value of a DRAM node's own access0 (a node
// with CPUs, the initiator of its own memory).
func dramReference(t *snapshot.Topology, f *memKindFacts, get func(*snapshot.NodeAccess) *int64) (int64, int, bool) {
	best, node, ok := int64(0), -1, false
	for _, n := range t.Nodes {
		if len(n.CPUs) == 0 || !n.HasMemory {
			continue
		}
		a := access(f.detail[n.ID], 0)
		if a == nil || get(a) == nil || !slices.Contains(a.Initiators, n.ID) {
			continue
		}
		if v := *get(a); !ok || v > best {
			best, node, ok = v, n.ID, true
		}
	}
	return best, node, ok
}

// dramTier is the lowest memory tier holding a node with CPUs and memory.
func dramTier(t *snapshot.Topology, f *memKindFacts) (int, bool) {
	top, ok := 0, false
	for _, n := range t.Nodes {
		if len(n.CPUs) == 0 || !n.HasMemory {
			continue
		}
		if m := f.detail[n.ID].MemoryTier; m != nil && (!ok || *m < top) {
			top, ok = *m, true
		}
	}
	return top, ok
}

func sizeText(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fmt.Sprintf("%d bytes", b)
}
