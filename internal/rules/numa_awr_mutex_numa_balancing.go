package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// numa.awr-mutex-numa-balancing: the report shows mutex and latch waits
// (library cache: mutex X, latch: ...), or DB time that no wait accounts
// for while the CPUs were not saturated, on a multi-socket host: 000
// Scenario 1 traced exactly this to automatic NUMA balancing migrating the
// SGA's pages (processes asleep in migration_entry_wait). The report cannot
// show the kernel; the host's kernel.numa_balancing and /proc/vmstat
// migration counters decide: no page migrated since boot, no process waited
// on one. The severity is numa.balancing-with-db-shm's on the host (info
// with the SGA in hugepages, 003).
func init() {
	Register(Rule{
		ID:           "numa.awr-mutex-numa-balancing",
		Area:         AreaNUMA,
		Severity:     SevWarning,
		Title:        "Mutex/latch waits or unaccounted DB time on a NUMA host with automatic NUMA balancing",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Automatic NUMA balancing",
				Quote: "In this test, the DB time percentage numbers added up to roughly 65%"},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Automatic NUMA balancing",
				Quote: "we deduce the process is going to sleep waiting on a memory page migration from one NUMA node to another"},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Recommendation",
				Quote: "Disable the Automatic NUMA Balancing feature by setting the “kernel.numa\\_balancing” parameter to 0"},
			{Doc: Seed003, Section: "Memory Tuning – Autonuma",
				Quote: "With hugepages, there is no performance difference with Autonuma on or off because the memory is wired down"},
		},
		Scope: Scope{
			Kernels:    "3.8 and later with CONFIG_NUMA_BALANCING (RHEL 7 turned it on by default); /proc/vmstat numa_pages_migrated",
			DBVersions: "000: Oracle 12c, 8-socket Superdome X; the waits are Oracle's, the cause the kernel's",
			Note:       "read from AWR reports (--artifact, dbhost awr); the kernel setting and counters need the host",
		},
		Thresholds: []string{
			fmt.Sprintf("mutex and latch waits at %d %% of DB time or more, or %d %% of DB time unaccounted with the host not CPU-saturated", mutexPct, runQueuePct),
		},
		Check: checkAWRMutexNUMA,
	})
}

// mutexPct is the share of DB time in mutex and latch waits from which the
// rule looks at NUMA balancing (000 Table 10: 2.9 + 2.8 + 0.3 + 0.1 %).
const mutexPct = 3

// awrMutexEvent says whether an event is a mutex or latch wait.
func awrMutexEvent(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "latch:") || n == "latch free" || strings.HasPrefix(n, "library cache: mutex") ||
		strings.HasPrefix(n, "cursor: mutex") || strings.HasPrefix(n, "cursor: pin") || strings.HasPrefix(n, "library cache: bucket mutex")
}

func checkAWRMutexNUMA(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return mutexNUMAReport(in, r) })
}

func mutexNUMAReport(in *Input, r *artifacts.AWRReport) Outcome {
	if len(r.TopEvents) == 0 {
		return CannotCheck("the report has no top events")
	}
	if os, osEv := awrOS(in, r); os == OSAIX {
		return NotApplicable("an AIX instance (%s): Linux's automatic NUMA balancing (kernel.numa_balancing) does not exist there", osEv)
	}
	var sum float64
	var ev []string
	for _, e := range r.TopEvents {
		if !awrMutexEvent(e.Event) {
			continue
		}
		if p, ok := awrPct(r, e); ok {
			sum += p
			ev = append(ev, awrEv(r, e))
		}
	}
	symptom := sum >= mutexPct
	if symptom {
		ev = append([]string{fmt.Sprintf("mutex and latch waits: %s %% of %s", awrNum(sum), awrPctOf(r))}, ev...)
	}
	// DB time missing on an idle host is NUMA's only when the instance
	// was not confined to fewer CPUs (a cpuset's run queue: cpu.awr-run-queue).
	_, _, bound := r.Param("processor_group_name")
	if un, how, ok := awrUnaccounted(r); ok && un >= runQueuePct && !bound {
		if sat, satEv, haveSat := awrSaturated(r); haveSat && !sat {
			symptom = true
			ev = append(ev, fmt.Sprintf("%s: %s %% of DB time is in no wait event while the CPUs were not saturated (%s)", how, awrNum(un), satEv))
		}
	}
	if !symptom {
		return Passed("mutex and latch waits %s %% of DB time; no unaccounted DB time on an idle host", awrNum(sum)).Reading(strings.Join(ev, "; "), awrEventsRead(r))
	}
	sockets := int64(0)
	if r.Host.Sockets != nil {
		sockets = *r.Host.Sockets
		ev = append(ev, fmt.Sprintf("the report's host: %d sockets", sockets))
	}
	given, none := awrHost(in)
	if !given {
		if r.Host.Sockets != nil && sockets < 2 {
			return Passed("mutex and latch waits on a 1-socket host: not NUMA page migration").Reading(strings.Join(ev, "; "))
		}
		return CannotCheck("%s; %s kernel.numa_balancing and the /proc/vmstat page migrations (000 Scenario 1)", strings.Join(ev, "; "), none)
	}
	if n := awrHostNote(in, r); n != "" {
		ev = append(ev, n)
	}
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	nodes := NodeCount(s)
	if nodes <= 1 {
		return Passed("this host has one NUMA node: the waits are not page migration").
			Reading(strings.Join(ev, "; "), fmt.Sprintf("this host: %d NUMA node(s) (/sys/devices/system/node)", nodes))
	}
	bal, why := in.SysctlInt("kernel.numa_balancing")
	if why != "" {
		return CannotCheck("%s", why)
	}
	if bal == 0 {
		return Passed("kernel.numa_balancing = 0 on this %d-node host: the waits are not from NUMA page migration (look at the SQL and sessions behind them)", nodes).
			Reading(strings.Join(ev, "; "), in.SysctlEvidence("kernel.numa_balancing", "0"))
	}
	ev = append(ev, fmt.Sprintf("this host: %d NUMA nodes, %s", nodes, in.SysctlEvidence("kernel.numa_balancing", fmt.Sprint(bal))))
	// The waits are NUMA balancing's only if it migrates pages: 000 saw the
	// processes asleep in migration_entry_wait. The counters decide.
	if len(s.Memory.Vmstat) == 0 {
		return CannotCheck("%s; %s", strings.Join(ev, "; "), in.Reason("memory.vmstat", "/proc/vmstat not in the snapshot")+
			": whether NUMA balancing migrates pages (numa_pages_migrated) decides")
	}
	v, ok := s.Memory.Vmstat["numa_pages_migrated"]
	if !ok {
		return CannotCheck("%s; /proc/vmstat has no numa_pages_migrated: whether NUMA balancing migrates pages cannot be told", strings.Join(ev, "; "))
	}
	mig := fmt.Sprintf("/proc/vmstat numa_pages_migrated %d", v)
	if up, why := SinceBoot(s); why == "" {
		mig += fmt.Sprintf(" since boot (%s ago: %.0f pages/s on average)", Uptime(up), float64(v)/up)
	} else {
		mig += " since boot"
	}
	if h, ok := s.Memory.Vmstat["numa_hint_faults"]; ok {
		mig += fmt.Sprintf(", numa_hint_faults %d", h)
	}
	if v == 0 {
		return Passed("%s = %d on this %d-node host, but %s: no page has been migrated, so no process waited on a migration "+
			"(000's processes slept in migration_entry_wait); the waits are not NUMA balancing's (look at the SQL and sessions behind them)",
			"kernel.numa_balancing", bal, nodes, mig).Reading(strings.Join(ev, "; "), "/proc/vmstat "+mig)
	}
	ev = append(ev, mig)
	onlyHuge := false
	if v, _, ok := r.Param("use_large_pages"); ok && strings.EqualFold(oraUnquote(v), "ONLY") {
		onlyHuge = true
		ev = append(ev, "use_large_pages = ONLY: the SGA is in hugepages, which NUMA balancing does not migrate; the PGA and other private memory still are")
	}
	// The severity agrees with numa.balancing-with-db-shm on this host: info
	// when the shared memory is in hugepages (003: no difference with
	// autonuma on or off, the memory is wired down).
	sev := SevWarning
	if o := checkNUMABalancing(in); len(o.Findings) == 1 {
		if o.Findings[0].Severity != "" {
			sev = o.Findings[0].Severity
		}
	} else if onlyHuge {
		sev = SevInfo
	}
	whyText := "000 Scenario 1: on an 8-socket host the AWR % DB time column added up to about 65 %, with library cache mutex and latch " +
		"waits in the top events; kernel traces showed the Oracle processes asleep in migration_entry_wait, waiting for automatic " +
		"NUMA balancing to move the pages they touched. Turning it off (with Oracle NUMA support) was part of the configuration " +
		"that gave +27 % TPM."
	if sev == SevInfo {
		whyText += " Here the SGA is in hugepages, which are not migrated: 003 saw no performance difference with autonuma on or off " +
			"with the memory in hugepages (as numa.balancing-with-db-shm rates it), so the migrations touch private memory only; expect little gain."
	}
	fix := SysctlFix("kernel.numa_balancing", "0")
	return Found(Finding{
		Severity:    sev,
		Setting:     "kernel.numa_balancing",
		Current:     fmt.Sprint(bal),
		Recommended: "0",
		Evidence:    strings.Join(ev, "; "),
		Why:         whyText,
		Fix:         fix,
		Risk: "Other workloads on the host lose automatic placement; place the database's memory explicitly instead (numactl, " +
			"cpusets, Oracle NUMA support). numa.balancing-with-db-shm plans the sysctl for apply.",
	})
}
