package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// cpu.governor-not-performance: a cpufreq governor other than performance
// lets the clock drop under load. In a guest the host owns the frequency.
func init() {
	Register(Rule{
		ID:       "cpu.governor-not-performance",
		Area:     AreaCPU,
		Severity: SevWarning,
		Title:    "CPU frequency governor is not performance",
		Sources: []Source{
			{Doc: Seed000, Section: "P-states — Recommendation",
				Quote: "CPU clock should be kept at full speed by using the tuned-adm profile “latency-performance” or with the command cpupower frequency-set -g performance"},
			{Doc: Seed000, Section: "Table 3. Power consumption versus performance test results—first scenario.",
				Quote: "Avg CPU clock speed\t1.73 GHz\t3.19 GHz"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "cpupower frequency-set -g\tperformance"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "CPU Governor\t\tondemand\tperformance"},
		},
		Scope: Scope{
			Kernels: "cpufreq drivers intel_pstate, acpi-cpufreq, amd-pstate, cppc; not in guests (the host sets it)",
			Note:    "000 measured the governor together with C-states limited to C1 (tuned latency-performance)",
		},
		Check: checkGovernor,
	})
}

const governorWhy = "a power-saving governor lowers the clock under a database's bursty load"

func checkGovernor(in *Input) Outcome {
	s := in.Snap
	if s.Host.Virt.Guest {
		return NotApplicable("guest (%s): the hypervisor host sets CPU frequency; audit the host", s.Host.Virt.Type)
	}
	if len(s.CPUPower.Cpufreq) == 0 {
		if why := AbsentReason(s, "cpu_power.cpufreq"); why != "" {
			return CannotCheck("%s", why)
		}
		return NotApplicable("no cpufreq policy on this host (frequency controlled by firmware, or no cpufreq driver)")
	}
	byGov := map[string][]int{}
	driver := ""
	for _, c := range s.CPUPower.Cpufreq {
		byGov[c.Governor] = append(byGov[c.Governor], c.CPU)
		if driver == "" {
			driver = c.Driver
		}
	}
	var bad []string
	var badCPUs []int
	govs := make([]string, 0, len(byGov))
	for g := range byGov {
		govs = append(govs, g)
	}
	sort.Strings(govs)
	for _, g := range govs {
		if g != "performance" {
			name := g
			if name == "" {
				name = "(none)"
			}
			bad = append(bad, fmt.Sprintf("%s on CPUs %s", name, List(byGov[g])))
			badCPUs = append(badCPUs, byGov[g]...)
		}
	}
	var wants []change.Change // every CPU's governor at performance
	for _, c := range s.CPUPower.Cpufreq {
		wants = append(wants, SysfsChange("cpu.governor-not-performance", fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c.CPU),
			"performance", c.Governor, governorWhy))
	}
	if len(bad) == 0 {
		return Passed("governor performance on all %d CPUs with cpufreq", len(s.CPUPower.Cpufreq)).Wanting(wants...).
			Reading(fmt.Sprintf("/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor: performance on CPUs %s (driver %s)", List(byGov["performance"]), driver))
	}
	ev := fmt.Sprintf("/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor: %s (driver %s)", strings.Join(bad, "; "), driver)
	if p := s.CPUPower.IntelPstate; p != nil && p.MinPerfPct != nil {
		ev += fmt.Sprintf("; intel_pstate status %s, min_perf_pct %d (003 throughput-performance: 100)", p.Status, *p.MinPerfPct)
	}
	if t := s.Config.Tuned.ActiveProfile; t != nil {
		ev += "; tuned profile " + *t
	}
	var chg []change.Change
	for i, c := range s.CPUPower.Cpufreq {
		if c.Governor != "performance" {
			chg = append(chg, wants[i])
		}
	}
	return Found(Finding{
		Setting:     "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
		Current:     strings.Join(bad, "; "),
		Recommended: "performance",
		Evidence:    ev,
		Why: "000 Table 3 (a latency-sensitive message-passing benchmark): with the performance governor and C-states limited to C1 (tuned latency-performance) throughput rose " +
			"30 % (867,725 → 1,131,823 TPS) and the average clock from 1.73 to 3.19 GHz, for 6 % more power under load " +
			"(630 → 669 W) — but the idle power floor rose from 182 W to 578 W.",
		Fix: Fix{
			Runtime: []string{"cpupower frequency-set -g performance"},
			Persistent: []string{
				in.TunedFix("[cpu] governor=performance"),
				"or /etc/sysconfig/cpupower: CPUPOWER_START_OPTS=\"frequency-set -g performance\" with cpupower.service enabled",
			},
		},
		Changes: chg,
		Risk: fmt.Sprintf("More power and heat on %d CPU(s), most at idle (000: idle floor 182 W → 578 W with C-states also limited). "+
			"000 Table 4: binding the workload to one node kept the low-power configuration within 5 %% of the best at under half the power.", len(badCPUs)),
	}).Wanting(wants...)
}
