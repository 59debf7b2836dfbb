package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// cpu.sched-tunables: 003's tuned tables (RHEL 7's tuned) raise the CFS
// scheduler's granularity: sched_min_granularity_ns 10 ms in the
// throughput and latency profiles, sched_wakeup_granularity_ns 15 ms in
// throughput-performance (10 ms in network-latency), and
// sched_migration_cost_ns 5 ms in latency-performance and virtual-host: a
// task runs longer before it is preempted, and a task that ran recently is
// not migrated to another CPU (its cache stays warm). The values judged are
// those of the profile dbhost recommends (TunedProfileFor), each as a
// minimum: a larger value is the same direction. Linux 5.13 moved the three
// to /sys/kernel/debug/sched/ (and 6.6's EEVDF scheduler dropped the
// granularities): the rule concerns kernels that still have the sysctls
// (RHEL 7, RHEL 8, SLES 12/15), and tuned 2.20 no longer sets them there.
func init() {
	Register(Rule{
		ID:       "cpu.sched-tunables",
		Area:     AreaCPU,
		Severity: SevInfo,
		Title:    "Scheduler granularity or migration cost below the tuned profile's (kernels before 5.13)",
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "sched_min_granularity_ns\tnanoseconds\tauto-scaling\t10000000"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "sched_wakeup_granularity_ns\tnanoseconds\t3000000\t15000000"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "kernel.sched_migration_cost_ns\tnanoseconds\tN/A\t5000000"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "sched_wakeup_granularity_ns\tnanoseconds\t3000000\t\t10000000"},
			{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
				Quote: "kernel.sched_migration_cost_ns\tnanoseconds\t\t5000000"},
		},
		Scope: Scope{Kernels: "before 5.13 (the sysctls exist; 5.13 moved them to debugfs, 6.6 dropped the granularities); RHEL 6 names the migration cost kernel.sched_migration_cost",
			Distros: "RHEL 7's tuned sets them; tuned 2.20 (RHEL 8.8+, 9) no longer does, so on RHEL 8 they come from sysctl.d",
			Note:    "each value a minimum, from the profile dbhost recommends for the workload (TunedProfileFor)"},
		Check: checkSchedTunables,
	})
}

// schedWant is one scheduler sysctl a profile of 003's tables raises.
type schedWant struct {
	key  string
	min  int64
	what string
}

// schedWantsFor are the values of 003's tables for profile p.
func schedWantsFor(p string) []schedWant {
	minGran := schedWant{"kernel.sched_min_granularity_ns", 10000000, "the slice a CPU-bound task runs before it can be preempted"}
	wakeup := schedWant{"kernel.sched_wakeup_granularity_ns", 15000000, "how far ahead a waking task must be to preempt the running one"}
	migr := schedWant{"kernel.sched_migration_cost_ns", 5000000, "how long after it ran a task counts as cache-hot and is not migrated"}
	switch p {
	case "latency-performance":
		return []schedWant{minGran, migr}
	case "network-latency":
		wakeup.min = 10000000
		return []schedWant{minGran, wakeup, migr}
	case "virtual-host":
		return []schedWant{minGran, wakeup, migr}
	}
	return []schedWant{minGran, wakeup} // throughput-performance and the profiles built on it
}

const schedWhy = "scheduler tunables of 003's tuned tables (RHEL 7)"

func checkSchedTunables(in *Input) Outcome {
	c := TunedProfileFor(in.Workload, HostRole(in.Snap), in.DB)
	var fs []Finding
	var ok, cannot, moved []string
	var wants []change.Change
	for _, w := range schedWantsFor(c.Want) {
		v, why := in.SysctlInt(w.key)
		if why != "" {
			if KernelLacks(in.Snap, "sysctl."+w.key) {
				moved = append(moved, why)
			} else {
				cannot = append(cannot, why)
			}
			continue
		}
		ch := in.SysctlChange("cpu.sched-tunables", w.key, fmt.Sprint(w.min), schedWhy)
		if v >= w.min {
			ok = append(ok, fmt.Sprintf("%s = %d ≥ %d", w.key, v, w.min))
			if v == w.min {
				wants = append(wants, ch)
			}
			continue
		}
		wants = append(wants, ch)
		fs = append(fs, Finding{
			Setting:     w.key,
			Current:     fmt.Sprintf("%d (%.2f ms)", v, float64(v)/1e6),
			Recommended: fmt.Sprintf("≥ %d (%.0f ms, tuned %s in 003's tables)", w.min, float64(w.min)/1e6, c.Want),
			Evidence:    in.SysctlEvidence(w.key, fmt.Sprint(v)) + "; kernel " + in.Snap.Host.Kernel,
			Why: fmt.Sprintf("003's tuned tables set %s (%s) to %d for %s, the profile for workload %s on this host (%s). "+
				"Fewer preemptions and migrations keep a database process's cache warm; the kernel's default scales with the CPU count "+
				"(0.75-3 ms). tuned 2.20 no longer sets these, so the value comes from sysctl.d.", w.key, w.what, w.min, c.Want, in.Workload, c.Why),
			Fix:     SysctlFix(w.key, fmt.Sprint(w.min)),
			Changes: []change.Change{ch},
			Risk: "Longer slices delay a waking interactive task behind a CPU-bound one by up to the granularity; measure the " +
				"transaction latency before and after (dbhost experiment).",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...).Wanting(wants...)
	case len(ok) > 0:
		return Passed("%s (tuned %s)", strings.Join(append(append(ok, cannot...), moved...), "; "), c.Want).Wanting(wants...).
			Reading(strings.Join(ok, "; ")+" (/proc/sys/kernel)", "kernel "+in.Snap.Host.Kernel)
	case len(cannot) > 0:
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	return NotApplicable("kernel %s has none of the scheduler sysctls of 003's tables: %s", in.Snap.Host.Kernel, strings.Join(moved, "; "))
}
