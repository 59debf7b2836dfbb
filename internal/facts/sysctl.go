package facts

import (
	"bufio"
	"github.com/dbhost/dbhost/internal/change"
	"io"
	"strings"
	"unicode/utf8"
)

func init() { register("sysctl", StageSources, readSysctl, "sysctl") }

// SysctlKeys is the curated list of kernel parameters dbhost reads into
// Snapshot.Sysctl, spelled as sysctl(8) prints them. It holds every sysctl the
// source documents (/work/shared/seeds, cited by file number) name or whose
// recommendation depends on, plus the neighbours a rule needs to interpret
// them (e.g. dirty_bytes overrides dirty_ratio when non-zero). A key that does
// not exist on a kernel (kernel.sched_* moved to debugfs in Linux 5.13,
// kernel.numa_balancing_scan_* in 6.x) is recorded in Absent, not guessed.
// vm.drop_caches (003 "Managing Caches") is write-only and therefore not read.
var SysctlKeys = []string{
	// Memory: 003 "Tuning Memory – swappiness", "dirty_ratio and
	// dirty_background_ratio" and the tuned profile tables; 003/000 hugepages
	// (vm.nr_hugepages); NUMA zone reclaim (issue 3 NUMA rules); tuned notes
	// (min_free_kbytes moves with THP); PGTune/postgresqltuner (overcommit).
	"vm.swappiness",
	"vm.dirty_ratio",
	"vm.dirty_background_ratio",
	"vm.dirty_bytes",
	"vm.dirty_background_bytes",
	"vm.dirty_expire_centisecs",
	"vm.dirty_writeback_centisecs",
	"vm.zone_reclaim_mode",
	"vm.min_free_kbytes",
	"vm.overcommit_memory",
	"vm.overcommit_ratio",
	"vm.nr_hugepages",
	"vm.nr_overcommit_hugepages",
	"vm.hugetlb_shm_group",
	"vm.max_map_count",

	// Automatic NUMA balancing: 000 "Automatic NUMA Balancing" and Table 13
	// (kernel.numa_balancing=0, +27 % TPM), 003 "NUMA and autonuma" and the
	// network-latency profile table.
	"kernel.numa_balancing",
	"kernel.numa_balancing_scan_delay_ms",
	"kernel.numa_balancing_scan_period_min_ms",
	"kernel.numa_balancing_scan_period_max_ms",
	"kernel.numa_balancing_scan_size_mb",

	// SysV IPC and panic: Oracle preinstall RPM values (shmmax, shmall, shmmni,
	// sem, panic_on_oops), needed to judge SGA / hugepage sizing (000 Scenario 2).
	"kernel.shmmax",
	"kernel.shmall",
	"kernel.shmmni",
	"kernel.sem",
	"kernel.panic_on_oops",

	// Scheduler: 003 tuned profile tables (sched_min_granularity_ns,
	// sched_wakeup_granularity_ns, kernel.sched_migration_cost_ns).
	"kernel.sched_migration_cost_ns",
	"kernel.sched_min_granularity_ns",
	"kernel.sched_wakeup_granularity_ns",
	"kernel.sched_autogroup_enabled",

	// Files and async I/O: preinstall RPM (file-max, aio-max-nr); 000 fio
	// libaio profile, 004 AIO maxreqs (aio-nr shows current use).
	"fs.file-max",
	"fs.aio-max-nr",
	"fs.aio-nr",

	// Network core: 000 netperf tuning table (rmem_max/wmem_max 16777216),
	// preinstall RPM (rmem_default/wmem_default), 002 listener backlog
	// (somaxconn), 003 network-latency profile (busy_read/busy_poll 50).
	"net.core.rmem_max",
	"net.core.wmem_max",
	"net.core.rmem_default",
	"net.core.wmem_default",
	"net.core.somaxconn",
	"net.core.netdev_max_backlog",
	"net.core.busy_read",
	"net.core.busy_poll",

	// TCP/IP: 000 and 003 (tcp_rmem/tcp_wmem max 16777216, udp_mem in the
	// throughput table), 003 network-latency (tcp_fastopen), preinstall RPM
	// (ip_local_port_range, rp_filter), 003 "Wrap Up – Bare Metal" (arp_filter).
	"net.ipv4.tcp_rmem",
	"net.ipv4.tcp_wmem",
	"net.ipv4.tcp_mem",
	"net.ipv4.udp_mem",
	"net.ipv4.tcp_fastopen",
	"net.ipv4.ip_local_port_range",
	"net.ipv4.tcp_timestamps",
	"net.ipv4.tcp_sack",
	"net.ipv4.tcp_window_scaling",
	"net.ipv4.tcp_keepalive_time",
	"net.ipv4.tcp_max_syn_backlog",
	"net.ipv4.conf.all.arp_filter",
	"net.ipv4.conf.default.arp_filter",
	"net.ipv4.conf.all.rp_filter",
	"net.ipv4.conf.default.rp_filter",
}

// SysctlPath maps a sysctl(8) key to its /proc/sys path (see change.SysctlPath).
func SysctlPath(key string) string { return change.SysctlPath(key) }

// collapseSpace trims s and collapses every run of whitespace (including
// newlines and tabs) to one space.
func collapseSpace(s string) string {
	// Fast path: most values are one word with a trailing newline.
	t := strings.TrimSuffix(s, "\n")
	for i := 0; i < len(t); i++ {
		if b := t[i]; b >= utf8.RuneSelf || b == ' ' || (b >= '\t' && b <= '\r') {
			return strings.Join(strings.Fields(s), " ")
		}
	}
	return t
}

func readSysctl(c *Collector) {
	vals := make(map[string]string, len(SysctlKeys))
	rd := newSysReader(c.Root) // /proc/sys values come whole in one read
	for _, key := range SysctlKeys {
		p := SysctlPath(key)
		s, err := rd.read(p)
		if err != nil {
			c.Absent("sysctl."+key, p, err)
			continue
		}
		vals[key] = collapseSpace(s)
	}
	// Sysctl is this reader's own part of the snapshot; fill it in one go.
	if c.Snap.Sysctl == nil {
		c.Snap.Sysctl = make(map[string]string, len(vals))
	}
	for k, v := range vals {
		c.Snap.Sysctl[k] = v
	}
}

// ParseSysctlA parses the output of `sysctl -a` (procps, busybox; a
// sosreport keeps it as sos_commands/kernel/sysctl_-a): "key = value" lines.
// Values get their whitespace runs collapsed to one space, like the values
// read from /proc/sys. sysctl(8) prints a multi-line value as several lines
// of the same key; they are joined with a space, again as a /proc/sys read
// would give. sysctl's own diagnostics ("sysctl: permission denied on key
// ...", procps 3.2's "error: ...") and blank lines are skipped. Any other
// line that is not "key = value" makes the whole input malformed: a
// *ParseError naming the line.
func ParseSysctlA(r io.Reader) (map[string]string, error) {
	m := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "sysctl: ") || strings.HasPrefix(line, "error: ") {
			continue
		}
		key, val, ok := strings.Cut(line, " = ")
		if !ok {
			if k, found := strings.CutSuffix(line, " ="); found {
				key, val, ok = k, "", true
			} else {
				// "key=value" as written by sysctl -e -q or some older tools.
				key, val, ok = strings.Cut(line, "=")
			}
		}
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t\v\f\r=") {
			return nil, parseErr(n, "expected \"key = value\", got %q", trunc(line, 60))
		}
		val = collapseSpace(val)
		if old, dup := m[key]; dup {
			switch {
			case old == "":
				m[key] = val
			case val != "":
				m[key] = old + " " + val
			}
			continue
		}
		m[key] = val
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	return m, nil
}
