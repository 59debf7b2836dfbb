// Package report renders snapshots and findings for people and machines.
package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func gib(kb int64) string { return fmt.Sprintf("%.1f GiB", float64(kb)/1048576) }

func optKB(p *int64) string {
	if p == nil {
		return "absent"
	}
	return gib(*p)
}

func optStr(p *string) string {
	if p == nil {
		return "absent"
	}
	return *p
}

func optInt(p *int64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

// Summary renders the human summary printed by `dbhost collect`.
func Summary(s *snapshot.Snapshot) []byte {
	d := newTextDoc(0)
	summary(d, s)
	return d.bytes()
}

// SummaryMarkdown is Summary's view in Markdown: the same lines and tables.
func SummaryMarkdown(s *snapshot.Snapshot) []byte {
	d := &mdDoc{}
	summary(d, s)
	return d.bytes()
}

func summary(d doc, s *snapshot.Snapshot) {
	h := s.Host
	head := fmt.Sprintf("Host %s — %s, kernel %s", orDash(h.Hostname), orDash(h.OS), orDash(h.Kernel))
	if s.AIX != nil && h.Kernel == "" { // AIX's level is its kernel's: said on the next lines
		head = fmt.Sprintf("Host %s — %s", orDash(h.Hostname), orDash(h.OS))
	}
	if h.Arch != "" {
		head += fmt.Sprintf(" (%s)", h.Arch)
	}
	d.title(head)
	src := s.Source.Kind
	if s.Source.Path != "" {
		src += " " + s.Source.Path
	}
	if s.Source.Kind == "live" && !s.Source.Root {
		src += " (not root: some facts reduced)"
	}
	d.line(fmt.Sprintf("Source: %s, collected %s", src, s.CollectedAt.Format("2006-01-02 15:04:05 MST")))
	if h.Virt.Guest {
		d.line(fmt.Sprintf("Virtualization: guest (%s; %s)", h.Virt.Type, h.Virt.Evidence))
	}
	if s.AIX != nil {
		aixSummary(d, s.AIX)
		absentSummary(d, s)
		return
	}
	t := s.Topology
	d.section(fmt.Sprintf("Topology: %d socket(s), %d core(s), %d online CPU(s), %d NUMA node(s)", t.Sockets, t.Cores, t.Threads, len(t.Nodes)))
	for _, x := range t.NUMADisabled {
		d.item("! NUMA hidden: " + x)
	}
	for _, x := range t.Contradictions {
		d.item("! " + ContradictionText(x))
	}
	if x := CoreTypesText(t.CoreTypes); x != "" {
		d.item(x)
	}
	for _, x := range t.Sources {
		noun := "CPU"
		if strings.HasPrefix(x.Fact, "nodes.") {
			noun = "node"
		}
		d.item(fmt.Sprintf("from %s: %s of %s %s (%s)", x.File, x.Fact, noun+map[bool]string{true: "s", false: ""}[len(x.Items) != 1],
			cpulist.Format(x.Items), x.Why))
	}
	if len(t.Nodes) > 0 {
		tb := docTable{head: []string{"node", "cpus", "mem total", "mem free", "hugepages (size: total/free)", "distances"}, pad: 2, indent: "  ", open: true}
		for _, n := range t.Nodes {
			var hp []string
			for _, p := range n.Hugepages {
				if p.Total > 0 || p.Free > 0 {
					hp = append(hp, fmt.Sprintf("%s: %d/%d", sizeName(p.SizeKB), p.Total, p.Free))
				}
			}
			flags := ""
			if !n.HasMemory {
				flags += " (memoryless)"
			}
			if !n.HasCPU {
				flags += " (no CPUs)"
			}
			if l := NodeKindLabel(n.Kind); l != "" {
				flags += " [" + l + "]"
			}
			tb.rows = append(tb.rows, []string{fmt.Sprintf("%d%s", n.ID, flags), orDash(cpulist.Format(n.CPUs)), optKB(n.MemTotalKB), optKB(n.MemFreeKB),
				orDash(strings.Join(hp, ", ")), ints(n.Distances)})
		}
		d.table(tb)
		for _, n := range t.Nodes {
			if l := NodeKindLabel(n.Kind); l != "" {
				d.item(fmt.Sprintf("node %d is %s (%s)", n.ID, l, strings.Join(n.KindEvidence, "; ")))
			}
		}
	}
	m := s.Memory
	if v, ok := m.Meminfo["MemTotal"]; ok {
		l := fmt.Sprintf("Memory: %s total, %s available", gib(v), gib(m.Meminfo["MemAvailable"]))
		if v := m.Meminfo["Shmem"]; v > 0 {
			l += fmt.Sprintf(", %s shmem", gib(v))
		}
		d.section(l)
		if x := UnattributedMemory(s); x != "" {
			d.item("! " + x)
		}
	}
	for _, p := range m.Hugepages {
		d.item(fmt.Sprintf("hugepages %s: %d total, %d free, %d reserved, %d surplus", sizeName(p.SizeKB), p.Total, p.Free, p.Reserved, p.Surplus))
	}
	if m.THP.Enabled != nil || m.THP.Defrag != nil {
		d.item(fmt.Sprintf("THP enabled=%s defrag=%s", optStr(m.THP.Enabled), optStr(m.THP.Defrag)))
	}
	if len(m.SysVShm) > 0 {
		var total int64
		for _, seg := range m.SysVShm {
			total += seg.SizeBytes
		}
		d.item(fmt.Sprintf("SysV shared memory: %d segment(s), %s", len(m.SysVShm), gib(total/1024)))
	}
	keys := []string{"kernel.numa_balancing", "vm.zone_reclaim_mode", "vm.swappiness", "vm.dirty_ratio", "vm.dirty_background_ratio", "vm.nr_hugepages", "vm.min_free_kbytes"}
	var kv []string
	for _, k := range keys {
		if v, ok := s.Sysctl[k]; ok {
			kv = append(kv, d.code(k+"="+v))
		}
	}
	if len(kv) > 0 {
		d.item(strings.Join(kv, " "))
	}
	cpuPowerSummary(d, s)
	storageSummary(d, s)
	networkSummary(d, s)
	cgroupSummary(d, s)
	if len(s.Processes) > 0 {
		d.section(fmt.Sprintf("Database processes: %d", len(s.Processes)))
		tb := docTable{head: []string{"pid", "engine", "role", "instance", "user", "cpus allowed", "mems allowed"}, pad: 2, indent: "  ", open: true}
		shown := 0
		for _, p := range s.Processes {
			if p.Role == "shadow" || p.Role == "backend" {
				continue
			}
			shown++
			tb.rows = append(tb.rows, []string{strconv.Itoa(p.PID), p.Engine, p.Role, orDash(p.Instance), orDash(p.User), cpulist.Format(p.CPUsAllowed), cpulist.Format(p.MemsAllowed)})
		}
		d.table(tb)
		if hidden := len(s.Processes) - shown; hidden > 0 {
			d.item(fmt.Sprintf("(+%d shadow/backend processes)", hidden))
		}
	}
	databasesSummary(d, s)
	guestsSummary(d, s)
	absentSummary(d, s)
}

// absentSummary lists the facts that could not be read, grouped by reason
// (an AIX bundle's with the file each came from).
func absentSummary(d doc, s *snapshot.Snapshot) {
	if len(s.Absent) > 0 {
		d.section(fmt.Sprintf("Not available (%d facts):", len(s.Absent)))
		byReason := map[string][]string{}
		for _, a := range s.Absent {
			f := a.Fact
			if strings.HasPrefix(f, "aix.") && a.Path != "" {
				f += " (" + a.Path + ")"
			}
			byReason[a.Reason] = append(byReason[a.Reason], f)
		}
		reasons := make([]string, 0, len(byReason))
		for r := range byReason {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			f := byReason[r]
			more := ""
			if len(f) > 6 {
				more = fmt.Sprintf(" and %d more", len(f)-6)
				f = f[:6]
			}
			d.item(fmt.Sprintf("%s: %s%s", r, strings.Join(f, ", "), more))
		}
	}
}

func cpuPowerSummary(d doc, s *snapshot.Snapshot) {
	p := s.CPUPower
	var parts []string
	if len(p.Cpufreq) > 0 {
		gov := map[string]int{}
		for _, f := range p.Cpufreq {
			gov[f.Driver+"/"+f.Governor]++
		}
		parts = append(parts, "cpufreq "+countMap(gov))
	} else {
		parts = append(parts, "no cpufreq")
	}
	if p.IntelPstate != nil {
		parts = append(parts, fmt.Sprintf("intel_pstate %s min_perf_pct=%s no_turbo=%v", p.IntelPstate.Status, optInt(p.IntelPstate.MinPerfPct), p.IntelPstate.NoTurbo != nil && *p.IntelPstate.NoTurbo))
	}
	if p.CpuidleDriver != nil {
		deepest := ""
		if len(p.Cpuidle) > 0 {
			var names []string
			for _, st := range p.Cpuidle[0].States {
				n := st.Name
				switch {
				case st.Disabled == nil:
					n += "(disable unknown)"
				case *st.Disabled:
					n += "(off)"
				}
				names = append(names, n)
			}
			deepest = " states " + strings.Join(names, ",")
		}
		parts = append(parts, "cpuidle "+*p.CpuidleDriver+deepest)
	}
	for k, v := range p.CmdlineLimits {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts[1:])
	d.section("CPU power: " + strings.Join(parts, "; "))
}

func storageSummary(d doc, s *snapshot.Snapshot) {
	if len(s.Storage.Devices) == 0 {
		return
	}
	var shown []snapshot.BlockDevice
	hidden := map[string]int{}
	for _, dev := range s.Storage.Devices {
		if dev.Kind == "loop" || dev.Kind == "ram" || dev.Kind == "zram" {
			hidden[dev.Kind]++
			continue
		}
		shown = append(shown, dev)
	}
	sort.SliceStable(shown, func(i, j int) bool { return NaturalLess(shown[i].Name, shown[j].Name) })
	d.section(fmt.Sprintf("Block devices: %d%s", len(shown), hiddenNote(hidden, "device", "devices")))
	if len(shown) == 0 {
		return
	}
	tb := docTable{head: []string{"device", "kind", "size", "scheduler", "nr_req", "max_sect_kb", "rot", "ra_kb", "qdepth", "node"}, pad: 2, indent: "  ", open: true}
	for _, dev := range shown {
		size := "-"
		if dev.SizeBytes != nil {
			size = gib(*dev.SizeBytes / 1024)
		}
		rot := "-"
		if dev.Rotational != nil {
			rot = fmt.Sprint(*dev.Rotational)
		}
		tb.rows = append(tb.rows, []string{dev.Name, dev.Kind, size, optStr(dev.Scheduler), optInt(dev.NrRequests), optInt(dev.MaxSectorsKB), rot, optInt(dev.ReadAheadKB), optInt(dev.QueueDepth), optNode(dev.NUMANode)})
	}
	d.table(tb)
}

// hiddenNote says what a listing leaves out: " (8 loop devices not listed)".
func hiddenNote(hidden map[string]int, one, many string) string {
	if len(hidden) == 0 {
		return ""
	}
	kinds := make([]string, 0, len(hidden))
	for k := range hidden {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		w := many
		if hidden[k] == 1 {
			w = one
		}
		parts = append(parts, fmt.Sprintf("%d %s %s", hidden[k], k, w))
	}
	return " (and " + strings.Join(parts, ", ") + ", not listed)"
}

func optNode(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

// NaturalLess orders device names as people count them: nvme2n1 before
// nvme10n1 (digit runs by value), sdz before sdaa (letter runs that start
// alike by length, then by letters).
func NaturalLess(a, b string) bool {
	for a != "" && b != "" {
		ra, rb := leadingRun(a), leadingRun(b)
		if ra != rb {
			da, db := isDigit(ra[0]), isDigit(rb[0])
			switch {
			case da && db:
				na, nb := strings.TrimLeft(ra, "0"), strings.TrimLeft(rb, "0")
				if len(na) != len(nb) {
					return len(na) < len(nb)
				}
				if na != nb {
					return na < nb
				}
			case !da && !db && len(ra) != len(rb) && len(ra) >= 2 && len(rb) >= 2 && ra[:2] == rb[:2]:
				return len(ra) < len(rb)
			default:
				return ra < rb
			}
		}
		a, b = a[len(ra):], b[len(rb):]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// leadingRun is s's first run of digits, or of non-digits.
func leadingRun(s string) string {
	d := isDigit(s[0])
	i := 1
	for i < len(s) && isDigit(s[i]) == d {
		i++
	}
	return s[:i]
}

func networkSummary(d doc, s *snapshot.Snapshot) {
	if len(s.Network.Interfaces) == 0 {
		return
	}
	var shown []snapshot.Interface
	hidden := map[string]int{}
	for _, i := range s.Network.Interfaces {
		if i.Kind == "loopback" {
			hidden[i.Kind]++
			continue
		}
		shown = append(shown, i)
	}
	d.section(fmt.Sprintf("Network interfaces: %d%s", len(shown), hiddenNote(hidden, "interface", "interfaces")))
	for _, i := range shown {
		node := "-"
		if i.NUMANode != nil {
			node = fmt.Sprint(*i.NUMANode)
		}
		speed := "-"
		if i.SpeedMbps != nil {
			speed = fmt.Sprintf("%d Mb/s", *i.SpeedMbps)
		}
		l := fmt.Sprintf("%s (%s, %s) mtu %s speed %s node %s irqs %d", i.Name, i.Kind, orDash(i.Driver), optInt(i.MTU), speed, node, len(i.IRQs))
		if i.Bond != nil {
			l += fmt.Sprintf(" bond %s hash %s slaves %s", i.Bond.Mode, i.Bond.XmitHashPolicy, strings.Join(i.Bond.Slaves, ","))
		}
		d.item(l)
	}
	if s.IRQs.IrqbalanceRunning != nil {
		d.item(fmt.Sprintf("irqbalance running: %v", *s.IRQs.IrqbalanceRunning))
	}
}

func cgroupSummary(d doc, s *snapshot.Snapshot) {
	cg := s.Cgroups
	if cg.Version == "" {
		return
	}
	d.section(fmt.Sprintf("Cgroups: %s, %d group(s) with cpuset/cpu settings", cg.Version, len(cg.Groups)))
	for _, g := range cg.Groups {
		if g.CPUs == nil && g.Mems == nil {
			continue
		}
		d.item(fmt.Sprintf("v%d %s cpus=%s mems=%s pids=%d", g.Version, g.Path, cgList(g.CPUs), cgList(g.Mems), len(g.PIDs)))
	}
	if p := s.Config.Tuned.ActiveProfile; p != nil {
		d.line("tuned active profile: " + orDash(*p))
	}
}

// cgList is a cpuset list as written in the group; an empty one is the
// parent's (cgroup v2: the group does not restrict).
func cgList(p *string) string {
	switch {
	case p == nil:
		return "absent"
	case *p == "":
		return "(parent's)"
	}
	return *p
}

func countMap(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sizeName(kb int64) string {
	switch {
	case kb >= 1048576 && kb%1048576 == 0:
		return fmt.Sprintf("%dG", kb/1048576)
	case kb >= 1024 && kb%1024 == 0:
		return fmt.Sprintf("%dM", kb/1024)
	}
	return fmt.Sprintf("%dk", kb)
}

func ints(v []int) string {
	if v == nil {
		return "absent"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// dbKeySettings are the settings the summary shows per engine.
var dbKeySettings = map[string][]string{
	"postgres": {"shared_buffers", "huge_pages", "shared_memory_size_in_huge_pages", "huge_page_size", "max_connections",
		"random_page_cost", "effective_io_concurrency"},
	"mysql": {"innodb_buffer_pool_size", "large_pages", "innodb_numa_interleave", "innodb_flush_method", "innodb_io_capacity",
		"innodb_log_file_size"},
}

// serverKeySettings are the settings shown for a server's engine.
func serverKeySettings(d *snapshot.Database) []string {
	if d.Engine == "mariadb" {
		return dbKeySettings["mysql"]
	}
	return dbKeySettings[d.Engine]
}

// databasesSummary lists the servers read over a connection, their
// directories and key settings, and every setting that could not be read.
func databasesSummary(d doc, s *snapshot.Snapshot) {
	if len(s.Databases) == 0 {
		return
	}
	d.section(fmt.Sprintf("Database servers (read over a connection): %d", len(s.Databases)))
	for i := range s.Databases {
		db := &s.Databases[i]
		d.item(db.Describe())
		if db.Error != "" {
			continue
		}
		if db.DataDirectory != "" {
			d.item(fmt.Sprintf("  data directory %s; WAL %s (%s)", db.DataDirectory, orDash(db.WALDirectory), db.WALResolved))
		}
		var kv []string
		for _, k := range serverKeySettings(db) {
			if st := db.Setting(k); st != nil && st.Value != nil {
				kv = append(kv, k+"="+settingText(st))
			}
		}
		if len(kv) > 0 {
			d.item("  " + strings.Join(kv, " "))
		}
		for _, st := range db.Settings {
			if st.Value == nil && !strings.HasPrefix(st.Reason, "not present") {
				d.item(fmt.Sprintf("  ! %s: %s", st.Name, st.Reason))
			}
		}
	}
}

// settingText shows a setting with its unit: a size in pg_settings' units
// ("4096" of "8kB") as the size it is (32.0 MiB); others as value+unit (200ms).
func settingText(st *snapshot.DBSetting) string {
	v := *st.Value
	mult := map[string]int64{"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
	num := strings.TrimRight(st.Unit, "kMGTB")
	unit := st.Unit[len(num):]
	m, ok := mult[unit]
	n, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		return v + st.Unit
	}
	if num != "" {
		k, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return v + st.Unit
		}
		m *= k
	}
	if n*m >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n*m)/(1<<20))
	}
	return fmt.Sprintf("%d kB", n*m>>10)
}

// guestsSummary lists the KVM guests read with --libvirt: one line each
// with its size, pinning, memory binding and backing.
func guestsSummary(w doc, s *snapshot.Snapshot) {
	lv := s.Libvirt
	if lv == nil {
		return
	}
	w.section(fmt.Sprintf("KVM guests (libvirt, from %s): %d", lv.Source, len(lv.Domains)))
	if lv.Note != "" {
		w.item("note: " + lv.Note)
	}
	for i := range lv.Domains {
		d := &lv.Domains[i]
		mem := "-"
		if d.MemoryKB != nil {
			mem = sizeName(*d.MemoryKB)
		}
		state := "defined"
		if d.ID != nil {
			state = fmt.Sprintf("running (id %d)", *d.ID)
		}
		pins := "vCPUs not pinned"
		if len(d.CPUTune.VCPUPins) > 0 {
			pins = fmt.Sprintf("%d vcpupin(s)", len(d.CPUTune.VCPUPins))
		} else if d.VCPUCpuset != nil {
			pins = "vcpu cpuset " + d.VCPUCpuset.Text
		}
		memTo := "memory unbound"
		if d.NUMATune != nil && d.NUMATune.Nodeset != nil {
			memTo = "memory " + orDash(d.NUMATune.Mode) + " on node(s) " + d.NUMATune.Nodeset.Text
		}
		backing := "4 KiB pages"
		if d.MemoryBacking != nil && d.MemoryBacking.Hugepages {
			backing = "hugepages"
		}
		w.item(fmt.Sprintf("%s: %s, %d vCPU(s), %s, %s, %s, %s; %d disk(s), %d NIC(s) [%s]", d.Name, state, d.VCPUs, mem, pins, memTo, backing,
			len(d.Disks), len(d.Interfaces), d.File))
	}
	for _, e := range lv.Errors {
		w.item("! " + e)
	}
}

// ContradictionText says which topology files disagree and what dbhost
// believed, for people.
func ContradictionText(x snapshot.Contradiction) string {
	what := "the kernel's topology files disagree"
	if x.Kind == "firmware" {
		what = "firmware fault"
	}
	out := what + ": " + x.Detail
	if x.Believed != "" {
		return out + "; believed " + x.Believed
	}
	return out + "; neither believed (those facts are absent)"
}

// UnattributedMemory says how much of /proc/meminfo's MemTotal no NUMA
// node's meminfo counts ("" when the nodes account for it, within 1 % or
// 64 MiB, or when a node's MemTotal is unknown). The kernel leaves memory
// out of every node on some guests and hotplug setups (this build VM: node
// 0 13.5 GB of 24.7 GB): it is shown, not left for the reader to puzzle
// over, and no per-node sizing may count on it.
func UnattributedMemory(s *snapshot.Snapshot) string {
	total, ok := s.Memory.Meminfo["MemTotal"]
	if !ok || len(s.Topology.Nodes) == 0 {
		return ""
	}
	var nodes int64
	for _, n := range s.Topology.Nodes {
		if n.MemTotalKB == nil {
			return ""
		}
		nodes += *n.MemTotalKB
	}
	diff := total - nodes
	if diff <= 64<<10 || diff*100 <= total {
		return ""
	}
	return fmt.Sprintf("memory in no NUMA node: %s (/proc/meminfo MemTotal %s; the nodes' meminfo MemTotal adds up to %s)",
		gib(diff), gib(total), gib(nodes))
}
