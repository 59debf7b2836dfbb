package facts

import (
	"regexp"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Kernel eras. A file a kernel does not have yet is an absence like any
// other, but "not present on this host" alone does not tell a DBA on RHEL 6
// whether to look for a fault. eraHints say, for facts whose file came with
// a known kernel version, which version brought it and what older kernels
// have instead; the sources are in docs/snapshot.md ("Kernel eras").
var eraHints = map[string]string{
	"cpu_power.cpuidle.states.desc":         "the kernel has no stateN/desc (Linux 2.6.25+)",
	"cpu_power.cpuidle.states.residency_us": "the kernel has no stateN/residency (Linux 3.15+; RHEL 7's 3.10 has none)",
	"cpu_power.cpuidle.states.disabled": "the kernel has no per-state disable (Linux 3.5+; RHEL 6's 2.6.32 has none): " +
		"deep C-states are limited only by boot arguments (intel_idle.max_cstate, processor.max_cstate, idle=) or a process holding /dev/cpu_dma_latency",
	"cpu_power.cpuidle.states.default_disabled": "the kernel has no stateN/default_status (Linux 5.6+; RHEL 8's 4.18 has none): " +
		"a disabled state cannot be told disabled from boot (intel_idle.states_off) from disabled at run time",
	"cpu_power.energy_perf_bias": "no cpuN/power/energy_perf_bias: the CPU has no EPB (not x86, or a guest), or the kernel is older than 5.2, " +
		"which set EPB only through the MSR (x86_energy_perf_policy)",
	"cpu_power.intel_pstate.status":  "intel_pstate/status came in Linux 4.13 (the driver itself in 3.9; RHEL 7's 3.10 has it without status)",
	"memory.thp.shmem_enabled":       "shmem_enabled came in Linux 4.7 (RHEL 6, RHEL 7 and SLES 12 have none)",
	"storage.devices[*].write_cache": "queue/write_cache came in Linux 4.7",
	"pci_devices.link": "current_link_speed, current_link_width, max_link_speed and max_link_width came in Linux 4.13 " +
		"(RHEL 7's 3.10 has none), and exist only for PCIe functions: lspci -vv shows LnkCap and LnkSta",
	"sysctl.kernel.numa_balancing": "automatic NUMA balancing came in Linux 3.8 (RHEL 6 has none: no page migrates on its own)",
	"sysctl.kernel.sched_migration_cost_ns": "RHEL 6's 2.6.32 names it kernel.sched_migration_cost; Linux 5.13 moved it to " +
		"/sys/kernel/debug/sched/migration_cost_ns",
	"sysctl.kernel.sched_min_granularity_ns":    "Linux 5.13 moved it to /sys/kernel/debug/sched/min_granularity_ns",
	"sysctl.kernel.sched_wakeup_granularity_ns": "Linux 5.13 moved it to /sys/kernel/debug/sched/wakeup_granularity_ns",
	"sysctl.kernel.sched_autogroup_enabled":     "autogroup came in Linux 2.6.38",
	"sysctl.net.core.busy_read":                 "busy polling came in Linux 3.11",
	"sysctl.net.core.busy_poll":                 "busy polling came in Linux 3.11",
	"sysctl.net.ipv4.tcp_fastopen":              "TCP Fast Open came in Linux 3.7",
	"topology.nodes.mem_detail.memory_tier":     "memory tiers came in Linux 6.1 (/sys/devices/virtual/memory_tiering)",
	"topology.nodes.mem_detail.devices": "no device DAX bus (no dax driver loaded): no NVDIMM, CXL or soft-reserved memory is onlined " +
		"as a node by dax kmem (Linux 5.1+)",
}

var eraIndex = regexp.MustCompile(`\[[^\]]*\]`)

// eraHint returns the hint of a fact ("storage.devices[sda].write_cache"
// matches "storage.devices[*].write_cache"; numa_balancing_scan_* share
// numa_balancing's), or "".
func eraHint(fact string) string {
	if h, ok := eraHints[fact]; ok {
		return h
	}
	if strings.HasPrefix(fact, "sysctl.kernel.numa_balancing_") {
		return eraHints["sysctl.kernel.numa_balancing"]
	}
	return eraHints[eraIndex.ReplaceAllString(fact, "[*]")]
}

// explainEras adds its era hint to every bare "not present on this host".
func explainEras(s *snapshot.Snapshot) {
	for i := range s.Absent {
		a := &s.Absent[i]
		if a.Reason != "not present on this host" { // Reason of fs.ErrNotExist (fs.go)
			continue
		}
		if h := eraHint(a.Fact); h != "" {
			a.Reason += ": " + h
		}
	}
}
