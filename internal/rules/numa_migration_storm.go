package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// numa.migration-storm: the kernel has been migrating pages between NUMA
// nodes at a high rate (automatic NUMA balancing's migrate-on-fault). One
// snapshot holds /proc/vmstat counters since boot, so the rate is an
// average since boot: a storm that lasted an hour on a host up for a month
// is diluted, and the finding says how to see the live rate.
func init() {
	Register(Rule{
		ID:       "numa.migration-storm",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "NUMA page migrations at a high rate",
		Sources: []Source{
			{Doc: Seed000, Section: "Automatic NUMA Balancing",
				Quote: "Migrate-on-Fault (MoF): This function moves memory pages to where the task accessing them is executing."},
			{Doc: Seed000, Section: "Automatic NUMA Balancing",
				Quote: "some applications may experience increased page fault latency when pages are migrated"},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations",
				Quote: "we deduce the process is going to sleep waiting on a memory page migration from one NUMA node to another"},
		},
		Scope: Scope{
			Kernels: "3.8 and later with CONFIG_NUMA_BALANCING (/proc/vmstat numa_pages_migrated, numa_hint_faults); pgmigrate_success also counts compaction",
			Note:    "a since-boot average hides bursts: compare two snapshots or run `dbhost numa --interval 10s` for the live rate",
		},
		Thresholds: []string{fmt.Sprintf("%d migrated pages/s averaged since boot (about %.1f MiB/s in 4 kB pages); 000 gives no rate",
			migrationStormPagesPerSec, float64(migrationStormPagesPerSec)*4/1024)},
		Check: checkMigrationStorm,
	})
}

// migrationStormPagesPerSec is the since-boot average of numa_pages_migrated
// above which the rule fires. 000 gives no number; 1000 pages/s (≈ 4 MiB/s
// moved every second, day and night) is far above what a placed workload
// shows and was chosen so that an average since boot still means sustained churn.
const migrationStormPagesPerSec = 1000

func checkMigrationStorm(in *Input) Outcome {
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	if NodeCount(s) <= 1 {
		return NotApplicable("one NUMA node: pages have nowhere to migrate")
	}
	if len(s.Memory.Vmstat) == 0 {
		return CannotCheck("%s", in.Reason("memory.vmstat", "/proc/vmstat not in the snapshot"))
	}
	migrated, ok := s.Memory.Vmstat["numa_pages_migrated"]
	if !ok {
		return NotApplicable("/proc/vmstat has no numa_pages_migrated: kernel built without NUMA balancing (CONFIG_NUMA_BALANCING off, e.g. Oracle UEK)")
	}
	bal, balWhy := in.SysctlInt("kernel.numa_balancing")
	hint := s.Memory.Vmstat["numa_hint_faults"]
	if balWhy == "" && bal == 0 && migrated == 0 {
		return Passed("kernel.numa_balancing = 0 and numa_pages_migrated = 0 since boot").
			Reading(in.SysctlEvidence("kernel.numa_balancing", "0"), "/proc/vmstat numa_pages_migrated 0").
			Wanting(in.SysctlChange("numa.migration-storm", "kernel.numa_balancing", "0", "NUMA balancing migrates pages away from the database"))
	}
	up, why := SinceBoot(s)
	if why != "" {
		return CannotCheck("%s (numa_pages_migrated = %d, but the time since boot is needed for a rate)", why, migrated)
	}
	rate := float64(migrated) / up
	ev := fmt.Sprintf("/proc/vmstat since boot (%s ago, from /proc/stat btime %d to collected_at %s): numa_pages_migrated %d, "+
		"average %.0f pages/s (%.1f MiB/s in 4 kB pages)",
		Uptime(up), s.CPULoad.BootTime, s.CollectedAt.UTC().Format("2006-01-02T15:04:05Z"), migrated, rate, rate*4/1024)
	if v, ok := s.Memory.Vmstat["pgmigrate_success"]; ok {
		ev += fmt.Sprintf("; pgmigrate_success %d (%.0f/s, includes compaction)", v, float64(v)/up)
	}
	if _, ok := s.Memory.Vmstat["numa_hint_faults"]; ok {
		ev += fmt.Sprintf("; numa_hint_faults %d (%.0f/s)", hint, float64(hint)/up)
		if l, ok := s.Memory.Vmstat["numa_hint_faults_local"]; ok && hint > 0 {
			ev += fmt.Sprintf(", %.0f %% local", 100*float64(l)/float64(hint))
		}
	}
	balText := "unknown (" + balWhy + ")"
	if balWhy == "" {
		balText = fmt.Sprint(bal)
		ev += "; " + in.SysctlEvidence("kernel.numa_balancing", balText)
	}
	ev += ". This is an average since boot, not the live rate: compare two snapshots, or run `dbhost numa --interval 10s` (or watch `grep numa_pages_migrated /proc/vmstat`)"
	if rate < migrationStormPagesPerSec {
		return Passed("numa_pages_migrated averages %.0f pages/s since boot (%s), below %d/s; kernel.numa_balancing %s. An average since boot hides bursts: compare two snapshots or run `dbhost numa --interval 10s`",
			rate, Uptime(up), migrationStormPagesPerSec, balText).Reading(ev)
	}
	f := Finding{
		Setting:     "kernel.numa_balancing",
		Current:     fmt.Sprintf("%s; %.0f NUMA page migrations/s on average since boot", balText, rate),
		Recommended: fmt.Sprintf("0, with the database placed explicitly (fewer than %d migrations/s: dbhost's own threshold)", migrationStormPagesPerSec),
		Evidence:    ev,
		Why: "000 (Scenario 1): with automatic NUMA balancing on, Oracle foreground processes slept in page migration (migration_entry_wait " +
			"from do_numa_page) and TPM fluctuated; 000 recommends kernel.numa_balancing=0. Its +27 % TPM (Table 12) is the whole NUMA " +
			"configuration (numa=off removed, Oracle NUMA support enabled, balancing off), not balancing off alone.",
		Risk: "Without automatic balancing nothing moves tasks or pages toward each other: place the database explicitly " +
			"(one instance per node, numactl/cpusets, Oracle _enable_NUMA_support) or processes may overload one node (000 Note).",
	}
	if balWhy == "" && bal != 0 {
		f.Fix = SysctlFix("kernel.numa_balancing", "0")
		f.Changes = []change.Change{in.SysctlChange("numa.migration-storm", "kernel.numa_balancing", "0",
			fmt.Sprintf("%.0f NUMA page migrations/s on average since boot", rate))}
		return Found(f)
	}
	// Balancing is off now (or unknown): the migrations happened while it was
	// on earlier since boot, or come from numad / migratepages / memory tiering.
	f.Severity = SevInfo
	f.Recommended = "find what migrates pages: numad, migratepages, cpuset memory_migrate, or balancing switched off only recently"
	f.Fix = Fix{Runtime: []string{"grep -E 'numa_pages_migrated|pgmigrate_success' /proc/vmstat; sleep 10; grep -E 'numa_pages_migrated|pgmigrate_success' /proc/vmstat"},
		Persistent: []string{}}
	return Found(f)
}
