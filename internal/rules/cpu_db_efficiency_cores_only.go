package rules

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// cpu.db-efficiency-cores-only: a running database process whose allowed
// CPUs (Cpus_allowed: its affinity within its cgroup cpuset) are all
// efficiency cores of a hybrid CPU (Intel's cpu_atom/cpu_lowpower PMUs, the
// lowest ARM cpu_capacity), while the host has performance cores.
//
// No seed talks about hybrid CPUs: the sources are the kernel's own
// description of the files, and the advice (give a database performance
// cores) is dbhost's own, listed in Thresholds.
func init() {
	Register(Rule{
		ID:       "cpu.db-efficiency-cores-only",
		Area:     AreaCPU,
		Severity: SevWarning,
		Title:    "A database runs on efficiency cores only (hybrid CPU)",
		Sources: []Source{
			{Doc: "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/tools/perf/Documentation/intel-hybrid.txt",
				Section: "Intel hybrid support — the cpu_core and cpu_atom PMUs", Quote: "It indicates cpu0-cpu15 are core cpus and cpu16-cpu23 are atom cpus."},
			{Doc: "https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-devices-system-cpu",
				Section: "/sys/devices/system/cpu/cpuX/cpu_capacity", Quote: "information about CPUs heterogeneity."},
		},
		Scope: Scope{
			Kernels: "Intel hybrid PMUs: Linux 5.13+; cpu_capacity: Linux 4.10+ (arm64, arm, RISC-V)",
			Note:    "the core types are the kernel's; which CPUs a database should have is dbhost's own advice (no seed covers hybrid CPUs)",
		},
		Thresholds: []string{
			"a database process whose allowed CPUs are all efficiency cores, on a host with performance cores, is judged (dbhost's own advice: no seed covers hybrid CPUs)",
			"an ARM core is an efficiency core when its cpu_capacity is at most half of the highest (dbhost's own cut: the kernel names no class)",
		},
		Pending: PendingManual,
		Description: `Hybrid CPUs (Intel Alder Lake and later, ARM big.LITTLE and DynamIQ) mix fast performance
cores with small efficiency cores that run a thread at a fraction of their speed. A database
whose processes may run only on efficiency cores (a cpuset, taskset or systemd AllowedCPUs
that names them) leaves the performance cores to other work. dbhost reads each CPU's core
type from the kernel (the cpu_core/cpu_atom PMUs' cpus lists, cpuN/cpu_capacity) and each
database process's allowed CPUs (/proc/PID/status Cpus_allowed_list).`,
		Check: checkDBEfficiencyCoresOnly,
	})
}

func checkDBEfficiencyCoresOnly(in *Input) Outcome {
	s := in.Snap
	procs := in.DBProcesses()
	if len(procs) == 0 {
		return NotApplicable("no database process in the snapshot")
	}
	ct := s.Topology.CoreTypes
	if why := AbsentReason(s, "topology.core_types"); why != "" {
		return CannotCheck("%s", why)
	}
	if ct == nil {
		return CannotCheck("topology.core_types: not in this snapshot (collected by a dbhost that did not read core types)")
	}
	switch ct.Kind {
	case snapshot.CoreKindUniform:
		return Passed("one core type: %s", ct.Evidence).Reading("topology.core_types: uniform (" + ct.Evidence + ")")
	case snapshot.CoreKindHybrid:
	default:
		return CannotCheck("topology.core_types: %s", ct.Evidence)
	}
	var perf []int
	for _, ty := range ct.Types {
		if ty.Class != snapshot.CoreClassEfficiency {
			perf = append(perf, ty.CPUs...)
		}
	}
	slices.Sort(perf)
	if len(perf) == 0 {
		return CannotCheck("topology.core_types: no performance core is known (%s)", ct.Evidence)
	}
	// Processes grouped by instance and allowed CPUs.
	type group struct {
		engine, instance string
		cpus             []int
		pids             []int
	}
	groups := map[string]*group{}
	var unknown []string
	for _, p := range procs {
		if len(p.CPUsAllowed) == 0 {
			unknown = append(unknown, fmt.Sprintf("%s %d: allowed CPUs not read", p.Comm, p.PID))
			continue
		}
		eff, unclassified := 0, []int{}
		for _, id := range p.CPUsAllowed {
			switch c, ok := s.Topology.CoreClass(id); {
			case !ok:
				unclassified = append(unclassified, id)
			case c == snapshot.CoreClassEfficiency:
				eff++
			}
		}
		if eff+len(unclassified) < len(p.CPUsAllowed) {
			continue // a performance or intermediate core allowed
		}
		if len(unclassified) > 0 {
			unknown = append(unknown, fmt.Sprintf("%s %d: CPUs %s of its allowed %s have no known core type", p.Comm, p.PID,
				cpulist.Format(unclassified), cpulist.Format(p.CPUsAllowed)))
			continue
		}
		k := p.Engine + "\x00" + p.Instance + "\x00" + cpulist.Format(p.CPUsAllowed)
		g := groups[k]
		if g == nil {
			g = &group{engine: p.Engine, instance: p.Instance, cpus: p.CPUsAllowed}
			groups[k] = g
		}
		g.pids = append(g.pids, p.PID)
	}
	if len(groups) == 0 {
		if len(unknown) > 0 {
			return CannotCheck("%s", strings.Join(unknown, "; "))
		}
		read := []string{"topology.core_types: " + ct.Evidence}
		byList := map[string]int{} // one line per allowed-CPU list, not per process
		for _, p := range procs {
			byList[cpulist.Format(p.CPUsAllowed)]++
		}
		for _, l := range slices.Sorted(maps.Keys(byList)) {
			read = append(read, fmt.Sprintf("/proc/PID/status Cpus_allowed_list of %d database process(es): %s", byList[l], l))
		}
		return Passed("every database process may run on performance cores (%s); %s", cpulist.Format(perf), ct.Evidence).Reading(read...)
	}
	var findings []Finding
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := groups[k]
		name := g.engine
		if g.instance != "" {
			name += " " + g.instance
		}
		pids := make([]string, len(g.pids))
		for i, p := range g.pids {
			pids[i] = strconv.Itoa(p)
		}
		fix := Fix{Runtime: []string{}, Persistent: []string{
			fmt.Sprintf("give the database's cgroup cpuset, systemd unit (AllowedCPUs=) or taskset list performance cores: e.g. AllowedCPUs=%s, or a set that includes them", cpulist.Format(perf)),
		}}
		for _, p := range g.pids {
			fix.Runtime = append(fix.Runtime, fmt.Sprintf("taskset -a -p -c %s %d   (within the process's cgroup cpuset: widen that first)", sh(cpulist.Format(perf)), p))
		}
		findings = append(findings, Finding{
			Setting:     "cpus_allowed:" + name,
			Current:     fmt.Sprintf("%s (processes %s) may run only on CPUs %s: efficiency cores", name, strings.Join(pids, ", "), cpulist.Format(g.cpus)),
			Recommended: fmt.Sprintf("allow the database performance cores (%s)", cpulist.Format(perf)),
			Evidence:    fmt.Sprintf("Cpus_allowed_list %s of %s; core types: %s", cpulist.Format(g.cpus), name, ct.Evidence),
			Why: "The kernel names these CPUs efficiency cores (small cores: a thread runs slower there than on a performance core). " +
				"A database confined to them leaves the host's performance cores to other work.",
			Fix:  fix,
			Risk: "Moving the database onto the performance cores moves it onto what other pinned work uses; a deliberate E-core confinement (a test or low-priority instance) can stay.",
		})
	}
	return Found(findings...)
}
