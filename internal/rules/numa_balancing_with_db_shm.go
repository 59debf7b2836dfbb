package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// numa.balancing-with-db-shm: automatic NUMA balancing is on while the
// database holds a large shared memory (SGA, shared_buffers) or hugepages.
// The two sources measured different set-ups and both claims are recorded:
// 000 (SGA in 4 kB pages) saw Oracle sleep in page migrations and recommends
// balancing off; 003 saw no difference once the memory was in hugepages,
// which the kernel does not migrate. 000's +27 % TPM (Table 12) is its whole
// NUMA configuration, not balancing off alone.
func init() {
	Register(Rule{
		ID:       "numa.balancing-with-db-shm",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "Automatic NUMA balancing is on with a large database shared memory",
		Sources: []Source{
			{Doc: Seed000, Section: "Automatic NUMA Balancing",
				Quote: "some applications may experience increased page fault latency when pages are migrated"},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations",
				Quote: "Disable the Automatic NUMA Balancing feature by setting the “kernel.numa_balancing” parameter to 0"},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations",
				Quote: "With all of the NUMA features correctly configured at the OS and application layer, the resulting TPM numbers increased by an average of 27%"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "sysctl kernel.numa_balancing [1]\t0"},
			{Doc: Seed000, Section: "NUMA balancing",
				Quote: "The FIO tests performed better with NUMA balancing disabled"},
			{Doc: Seed003, Section: "Memory Tuning – Autonuma",
				Quote: "With hugepages, there is no performance difference with Autonuma on or off because the memory is wired down"},
		},
		Scope: Scope{
			Kernels:    "3.8 and later (kernel.numa_balancing); 000 measured RHEL 7 (3.10.0-210)",
			Distros:    "000: RHEL 7 (Oracle Linux UEK kernels are built without it); 003: RHEL 7",
			DBVersions: "000: Oracle 12c, SGA in 4 kB pages; 003: Oracle OLTP, 1-4 instances on 4 nodes",
			Note:       "the claims agree once scoped: migrations hurt a shared memory in small pages; hugepages are not migrated",
		},
		Thresholds: []string{"1 GiB: below that much database shared memory and hugepages in use the rule passes (000's instance had a 2104G SGA)"},
		Check:      checkNUMABalancing,
	})
}

const largeShmKB = 1 << 20 // 1 GiB: below this a shared memory is not the 000 case

const numaBalancingWhy = "Automatic NUMA balancing is on with a large database shared memory"

func checkNUMABalancing(in *Input) Outcome {
	s := in.Snap
	if why := AbsentReason(s, "topology.nodes"); why != "" && len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", why)
	}
	if n := NodeCount(s); n <= 1 {
		return NotApplicable("%d NUMA node(s): automatic NUMA balancing has nothing to move", n)
	}
	v, why := in.SysctlInt("kernel.numa_balancing")
	if why != "" && KernelLacks(s, "sysctl.kernel.numa_balancing") {
		return NotApplicable("this kernel has no automatic NUMA balancing (kernel.numa_balancing came in Linux 3.8; RHEL 6 has none): nothing migrates the shared memory's pages")
	}
	if why != "" {
		return CannotCheck("%s", why)
	}
	if v == 0 {
		return Passed("kernel.numa_balancing = 0").Wanting(in.SysctlChange("numa.balancing-with-db-shm", "kernel.numa_balancing", "0", numaBalancingWhy)).
			Reading(in.SysctlEvidence("kernel.numa_balancing", "0"))
	}
	shm, shmWhy := in.DBSharedMemory()
	huge, hugeWhy := in.HugepagesCommittedKB()
	if shmWhy != "" && hugeWhy != "" {
		return CannotCheck("kernel.numa_balancing = %d, but the shared memory is unknown: %s; %s", v, shmWhy, hugeWhy)
	}
	if shm.TotalKB < largeShmKB && huge < largeShmKB {
		return Passed("kernel.numa_balancing = %d, but the database's SysV shared memory (%s) and hugepages in use (%s) are below 1 GiB",
			v, KB(shm.TotalKB), KB(huge)).Reading(in.SysctlEvidence("kernel.numa_balancing", fmt.Sprint(v)),
			shmEvidence(shm.TotalKB, shmWhy, "database SysV shared memory (/proc/sysvipc/shm)"), shmEvidence(huge, hugeWhy, "hugepages in use (/proc/meminfo)"))
	}
	ev := in.SysctlEvidence("kernel.numa_balancing", fmt.Sprint(v))
	ev += fmt.Sprintf("; %d NUMA nodes; database SysV shared memory %s in %d segment(s) (%s); hugepages in use or reserved %s",
		NodeCount(s), KB(shm.TotalKB), shm.Segments, shm.Attributed, KB(huge))
	if m, ok := s.Memory.Vmstat["numa_pages_migrated"]; ok {
		ev += fmt.Sprintf("; /proc/vmstat numa_pages_migrated = %d since boot", m)
	}
	inHuge := shm.NotHugeKB == 0 && (shm.UnknownKB == 0 || huge >= shm.TotalKB)
	f := Finding{
		Setting:     "kernel.numa_balancing",
		Current:     fmt.Sprint(v),
		Recommended: "0",
		Evidence:    ev,
		Fix:         SysctlFix("kernel.numa_balancing", "0"),
		Changes:     []change.Change{in.SysctlChange("numa.balancing-with-db-shm", "kernel.numa_balancing", "0", numaBalancingWhy)},
		Risk: "Without automatic balancing nothing moves tasks or pages toward each other: place the database explicitly " +
			"(one instance per node, numactl/cpusets, Oracle _enable_NUMA_support) or processes may overload one node (000 Note).",
	}
	switch {
	case !inHuge && hugeWhy != "" && shm.NotHugeKB == 0:
		// Whether the shared memory is in hugepages cannot be seen: no
		// warning from an absent fact.
		f.Severity = SevInfo
		f.Evidence += "; whether the shared memory is in hugepages is unknown (" + hugeWhy + ")"
		f.Why = "000 (Scenario 1) recommends kernel.numa_balancing=0 after finding Oracle sleeping in page migrations with the SGA " +
			"in 4 kB pages; 003 saw no difference with the memory in hugepages. Which of the two this host is cannot be told " +
			"without its hugepage counters."
	case inHuge:
		f.Severity = SevInfo
		f.Why = "003: with the database memory in hugepages there was no performance difference with autonuma on or off (the memory " +
			"is wired down). 000 recommends kernel.numa_balancing=0 after finding Oracle sleeping in page migrations with the SGA " +
			"still in 4 kB pages (its +27 % TPM is the whole NUMA configuration: numa=off removed, Oracle NUMA support, balancing off). " +
			"Here the shared memory is in hugepages, so expect little gain; turning it off still removes the scanning faults."
	default:
		f.Why = "000 (Scenario 1): with the SGA in 4 kB pages, Oracle foreground processes slept in page migration " +
			"(migration_entry_wait) and TPM fluctuated, and 000 recommends kernel.numa_balancing=0; the +27 % TPM of its Table 12 is " +
			"the whole NUMA configuration (numa=off removed, Oracle NUMA support enabled, balancing off), balancing alone was not " +
			"measured. 003 saw no difference only with hugepages, which this database's shared memory is not (entirely) in."
	}
	return Found(f)
}

// shmEvidence is a memory size read from source, or why it is unknown.
func shmEvidence(kb int64, why, source string) string {
	if why != "" {
		return source + " unknown: " + why
	}
	return source + " " + KB(kb)
}
