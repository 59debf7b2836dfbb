package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// memory.zone-reclaim: vm.zone_reclaim_mode is non-zero on a NUMA host. The
// seeds do not name this knob; the kernel's own documentation and the commit
// that turned it off by default (Linux 3.16) are the sources.
func init() {
	Register(Rule{
		ID:       "memory.zone-reclaim",
		Area:     AreaMemory,
		Severity: SevWarning,
		Title:    "Zone reclaim is on: the page cache is evicted rather than allocating on another node",
		Sources: []Source{
			{Doc: "https://docs.kernel.org/admin-guide/sysctl/vm.html", Section: "zone_reclaim_mode"},
			{Doc: "https://git.kernel.org/torvalds/c/4f9b16a64753d0bb607454347036dc997fd03b82", Section: "mm: disable zone_reclaim_mode by default (Linux 3.16)"},
			{Doc: Seed000, Section: "Non-Uniform Memory Access considerations",
				Quote: "The Linux operating system includes algorithms that attempt to keep memory objects close to the CPU that accesses them."},
		},
		Scope: Scope{
			Kernels: "all; the default is 0 since 3.16 (older kernels turned it on when a node distance exceeded RECLAIM_DISTANCE)",
			Note: "on only when each workload partition fits in one node and remote access is measured to cost more than a cache miss. " +
				"Seeds 000 and 003 do not name vm.zone_reclaim_mode: 000 is cited only for the kernel's aim of keeping memory close to the CPU; " +
				"the advice is the kernel's documentation and commit",
		},
		Check: checkZoneReclaim,
	})
}

const zoneReclaimWhy = "Zone reclaim is on: the page cache is evicted rather than allocating on another node"

func checkZoneReclaim(in *Input) Outcome {
	s := in.Snap
	v, why := in.SysctlInt("vm.zone_reclaim_mode")
	if why != "" {
		return CannotCheck("%s", why)
	}
	if v == 0 {
		return Passed("vm.zone_reclaim_mode = 0").Wanting(in.SysctlChange("memory.zone-reclaim", "vm.zone_reclaim_mode", "0", zoneReclaimWhy)).
			Reading(in.SysctlEvidence("vm.zone_reclaim_mode", "0"))
	}
	if len(s.Topology.Nodes) > 0 && NodeCount(s) <= 1 {
		return Passed("vm.zone_reclaim_mode = %d, but one NUMA node: it has no effect", v).
			Reading(in.SysctlEvidence("vm.zone_reclaim_mode", fmt.Sprint(v)), fmt.Sprintf("%d node(s) under /sys/devices/system/node", len(s.Topology.Nodes)))
	}
	return Found(Finding{
		Setting:     "vm.zone_reclaim_mode",
		Current:     fmt.Sprint(v),
		Recommended: "0",
		Evidence:    in.SysctlEvidence("vm.zone_reclaim_mode", fmt.Sprint(v)) + fmt.Sprintf("; %d NUMA node(s)", NodeCount(s)),
		Why: "With zone reclaim on, an allocation that does not fit in the local node first reclaims that node's page cache " +
			"(and with bits 2/4 writes out dirty or mapped pages) instead of using free memory on another node: a database's " +
			"file cache is thrown away and allocations stall in reclaim. The kernel turned it off by default because it " +
			"\"destroys performance\" for workloads that are not partitioned per node (the kernel's words; seeds 000 and 003 do not name this knob).",
		Fix:     SysctlFix("vm.zone_reclaim_mode", "0"),
		Changes: []change.Change{in.SysctlChange("memory.zone-reclaim", "vm.zone_reclaim_mode", "0", zoneReclaimWhy)},
		Risk:    "None known for databases; a workload that was partitioned per node on purpose may see more remote allocations.",
	})
}
