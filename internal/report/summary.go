// Package report renders snapshots and findings for people and machines.
package report

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

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
	var b bytes.Buffer
	h := s.Host
	fmt.Fprintf(&b, "Host %s — %s, kernel %s", orDash(h.Hostname), orDash(h.OS), orDash(h.Kernel))
	if h.Arch != "" {
		fmt.Fprintf(&b, " (%s)", h.Arch)
	}
	b.WriteString("\n")
	src := s.Source.Kind
	if s.Source.Path != "" {
		src += " " + s.Source.Path
	}
	if s.Source.Kind == "live" && !s.Source.Root {
		src += " (not root: some facts reduced)"
	}
	fmt.Fprintf(&b, "Source: %s, collected %s\n", src, s.CollectedAt.Format("2006-01-02 15:04:05 MST"))
	if h.Virt.Guest {
		fmt.Fprintf(&b, "Virtualization: guest (%s; %s)\n", h.Virt.Type, h.Virt.Evidence)
	}
	if s.AIX != nil {
		aixSummary(&b, s.AIX)
		absentSummary(&b, s)
		return b.Bytes()
	}
	t := s.Topology
	fmt.Fprintf(&b, "\nTopology: %d socket(s), %d core(s), %d online CPU(s), %d NUMA node(s)\n", t.Sockets, t.Cores, t.Threads, len(t.Nodes))
	for _, d := range t.NUMADisabled {
		fmt.Fprintf(&b, "  ! NUMA hidden: %s\n", d)
	}
	if len(t.Nodes) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  node\tcpus\tmem total\tmem free\thugepages (size: total/free)\tdistances")
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
			fmt.Fprintf(tw, "  %d%s\t%s\t%s\t%s\t%s\t%s\n", n.ID, flags, orDash(cpulist.Format(n.CPUs)), optKB(n.MemTotalKB), optKB(n.MemFreeKB),
				orDash(strings.Join(hp, ", ")), ints(n.Distances))
		}
		tw.Flush()
	}
	m := s.Memory
	if v, ok := m.Meminfo["MemTotal"]; ok {
		fmt.Fprintf(&b, "\nMemory: %s total, %s available", gib(v), gib(m.Meminfo["MemAvailable"]))
		if v := m.Meminfo["Shmem"]; v > 0 {
			fmt.Fprintf(&b, ", %s shmem", gib(v))
		}
		b.WriteString("\n")
	}
	for _, p := range m.Hugepages {
		fmt.Fprintf(&b, "  hugepages %s: %d total, %d free, %d reserved, %d surplus\n", sizeName(p.SizeKB), p.Total, p.Free, p.Reserved, p.Surplus)
	}
	if m.THP.Enabled != nil || m.THP.Defrag != nil {
		fmt.Fprintf(&b, "  THP enabled=%s defrag=%s\n", optStr(m.THP.Enabled), optStr(m.THP.Defrag))
	}
	if len(m.SysVShm) > 0 {
		var total int64
		for _, seg := range m.SysVShm {
			total += seg.SizeBytes
		}
		fmt.Fprintf(&b, "  SysV shared memory: %d segment(s), %s\n", len(m.SysVShm), gib(total/1024))
	}
	keys := []string{"kernel.numa_balancing", "vm.zone_reclaim_mode", "vm.swappiness", "vm.dirty_ratio", "vm.dirty_background_ratio", "vm.nr_hugepages", "vm.min_free_kbytes"}
	var kv []string
	for _, k := range keys {
		if v, ok := s.Sysctl[k]; ok {
			kv = append(kv, k+"="+v)
		}
	}
	if len(kv) > 0 {
		fmt.Fprintf(&b, "  %s\n", strings.Join(kv, " "))
	}
	cpuPowerSummary(&b, s)
	storageSummary(&b, s)
	networkSummary(&b, s)
	cgroupSummary(&b, s)
	if len(s.Processes) > 0 {
		fmt.Fprintf(&b, "\nDatabase processes: %d\n", len(s.Processes))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  pid\tengine\trole\tinstance\tuser\tcpus allowed\tmems allowed")
		shown := 0
		for _, p := range s.Processes {
			if p.Role == "shadow" || p.Role == "backend" {
				continue
			}
			shown++
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\n", p.PID, p.Engine, p.Role, orDash(p.Instance), orDash(p.User), cpulist.Format(p.CPUsAllowed), cpulist.Format(p.MemsAllowed))
		}
		tw.Flush()
		if hidden := len(s.Processes) - shown; hidden > 0 {
			fmt.Fprintf(&b, "  (+%d shadow/backend processes)\n", hidden)
		}
	}
	databasesSummary(&b, s)
	guestsSummary(&b, s)
	absentSummary(&b, s)
	return b.Bytes()
}

// absentSummary lists the facts that could not be read, grouped by reason
// (an AIX bundle's with the file each came from).
func absentSummary(b *bytes.Buffer, s *snapshot.Snapshot) {
	if len(s.Absent) > 0 {
		fmt.Fprintf(b, "\nNot available (%d facts):\n", len(s.Absent))
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
			fmt.Fprintf(b, "  %s: %s%s\n", r, strings.Join(f, ", "), more)
		}
	}
}

func cpuPowerSummary(b *bytes.Buffer, s *snapshot.Snapshot) {
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
	fmt.Fprintf(b, "\nCPU power: %s\n", strings.Join(parts, "; "))
}

func storageSummary(b *bytes.Buffer, s *snapshot.Snapshot) {
	if len(s.Storage.Devices) == 0 {
		return
	}
	var shown []snapshot.BlockDevice
	hidden := map[string]int{}
	for _, d := range s.Storage.Devices {
		if d.Kind == "loop" || d.Kind == "ram" || d.Kind == "zram" {
			hidden[d.Kind]++
			continue
		}
		shown = append(shown, d)
	}
	sort.SliceStable(shown, func(i, j int) bool { return NaturalLess(shown[i].Name, shown[j].Name) })
	fmt.Fprintf(b, "\nBlock devices: %d%s\n", len(shown), hiddenNote(hidden, "device", "devices"))
	if len(shown) == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  device\tkind\tsize\tscheduler\tnr_req\tmax_sect_kb\trot\tra_kb\tqdepth\tnode")
	for _, d := range shown {
		size := "-"
		if d.SizeBytes != nil {
			size = gib(*d.SizeBytes / 1024)
		}
		rot := "-"
		if d.Rotational != nil {
			rot = fmt.Sprint(*d.Rotational)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.Kind, size, optStr(d.Scheduler), optInt(d.NrRequests), optInt(d.MaxSectorsKB), rot, optInt(d.ReadAheadKB), optInt(d.QueueDepth), optNode(d.NUMANode))
	}
	tw.Flush()
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

func networkSummary(b *bytes.Buffer, s *snapshot.Snapshot) {
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
	fmt.Fprintf(b, "\nNetwork interfaces: %d%s\n", len(shown), hiddenNote(hidden, "interface", "interfaces"))
	for _, i := range shown {
		node := "-"
		if i.NUMANode != nil {
			node = fmt.Sprint(*i.NUMANode)
		}
		speed := "-"
		if i.SpeedMbps != nil {
			speed = fmt.Sprintf("%d Mb/s", *i.SpeedMbps)
		}
		fmt.Fprintf(b, "  %s (%s, %s) mtu %s speed %s node %s irqs %d", i.Name, i.Kind, orDash(i.Driver), optInt(i.MTU), speed, node, len(i.IRQs))
		if i.Bond != nil {
			fmt.Fprintf(b, " bond %s hash %s slaves %s", i.Bond.Mode, i.Bond.XmitHashPolicy, strings.Join(i.Bond.Slaves, ","))
		}
		b.WriteString("\n")
	}
	if s.IRQs.IrqbalanceRunning != nil {
		fmt.Fprintf(b, "  irqbalance running: %v\n", *s.IRQs.IrqbalanceRunning)
	}
}

func cgroupSummary(b *bytes.Buffer, s *snapshot.Snapshot) {
	cg := s.Cgroups
	if cg.Version == "" {
		return
	}
	fmt.Fprintf(b, "\nCgroups: %s, %d group(s) with cpuset/cpu settings\n", cg.Version, len(cg.Groups))
	for _, g := range cg.Groups {
		if g.CPUs == nil && g.Mems == nil {
			continue
		}
		fmt.Fprintf(b, "  v%d %s cpus=%s mems=%s pids=%d\n", g.Version, g.Path, cgList(g.CPUs), cgList(g.Mems), len(g.PIDs))
	}
	if p := s.Config.Tuned.ActiveProfile; p != nil {
		fmt.Fprintf(b, "tuned active profile: %s\n", orDash(*p))
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
func databasesSummary(b *bytes.Buffer, s *snapshot.Snapshot) {
	if len(s.Databases) == 0 {
		return
	}
	fmt.Fprintf(b, "\nDatabase servers (read over a connection): %d\n", len(s.Databases))
	for i := range s.Databases {
		d := &s.Databases[i]
		fmt.Fprintf(b, "  %s\n", d.Describe())
		if d.Error != "" {
			continue
		}
		if d.DataDirectory != "" {
			fmt.Fprintf(b, "    data directory %s; WAL %s (%s)\n", d.DataDirectory, orDash(d.WALDirectory), d.WALResolved)
		}
		var kv []string
		for _, k := range serverKeySettings(d) {
			if st := d.Setting(k); st != nil && st.Value != nil {
				kv = append(kv, k+"="+settingText(st))
			}
		}
		if len(kv) > 0 {
			fmt.Fprintf(b, "    %s\n", strings.Join(kv, " "))
		}
		for _, st := range d.Settings {
			if st.Value == nil && !strings.HasPrefix(st.Reason, "not present") {
				fmt.Fprintf(b, "    ! %s: %s\n", st.Name, st.Reason)
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
func guestsSummary(b *bytes.Buffer, s *snapshot.Snapshot) {
	lv := s.Libvirt
	if lv == nil {
		return
	}
	fmt.Fprintf(b, "\nKVM guests (libvirt, from %s): %d\n", lv.Source, len(lv.Domains))
	if lv.Note != "" {
		fmt.Fprintf(b, "  note: %s\n", lv.Note)
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
		fmt.Fprintf(b, "  %s: %s, %d vCPU(s), %s, %s, %s, %s; %d disk(s), %d NIC(s) [%s]\n", d.Name, state, d.VCPUs, mem, pins, memTo, backing,
			len(d.Disks), len(d.Interfaces), d.File)
	}
	for _, e := range lv.Errors {
		fmt.Fprintf(b, "  ! %s\n", e)
	}
}
