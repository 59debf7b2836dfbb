package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// cpu.energy-perf-bias: the x86 energy/performance bias hint (IA32_ENERGY_PERF_BIAS,
// 0 = performance .. 15 = power) is not "performance". Every tuned profile
// for servers in 003's tables (throughput-performance, latency-performance,
// and the profiles inheriting them) sets it to performance; balanced leaves
// it "normal" (6). Info: no source measured this knob on its own.
func init() {
	Register(Rule{
		ID:       "cpu.energy-perf-bias",
		Area:     AreaCPU,
		Severity: SevInfo,
		Title:    "CPU energy_perf_bias is not performance",
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "Energy Perf Bias\t\tnormal\tperformance"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "Energy Perf Bias\t\tnormal\tperformance"},
			{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
				Quote: "Energy Perf Bias\t\tperformance"},
		},
		Scope: Scope{
			Kernels: "x86 CPUs with IA32_ENERGY_PERF_BIAS (/sys/devices/system/cpu/cpuN/power/energy_perf_bias, Linux 5.2+); not in guests",
			Note:    "a hint to the firmware and to intel_pstate without HWP; with HWP, energy_performance_preference is the stronger knob",
		},
		Check: checkEnergyPerfBias,
	})
}

func checkEnergyPerfBias(in *Input) Outcome {
	s := in.Snap
	if s.Host.Virt.Guest {
		return NotApplicable("guest (%s): the hypervisor host's energy bias applies; audit the host", s.Host.Virt.Type)
	}
	v := s.CPUPower.EnergyPerfBias
	if v == nil {
		why := AbsentReason(s, "cpu_power.energy_perf_bias")
		if strings.Contains(why, "not present") {
			return NotApplicable("no energy_perf_bias on this CPU (%s)", why)
		}
		if why == "" {
			why = "cpu_power.energy_perf_bias: not in the snapshot"
		}
		return CannotCheck("%s", why)
	}
	groups, err := ParseEPB(*v)
	if err != nil {
		return CannotCheck("cpu_power.energy_perf_bias %q: %v", *v, err)
	}
	var cur []string
	var chg, wants []change.Change
	bad := false
	for _, g := range groups {
		name := fmt.Sprintf("%s (%s)", g.Value, EPBName(g.Value))
		cpus := g.CPUs
		if cpus == nil {
			cpus = s.Topology.CPUsOnline
			cur = append(cur, name)
		} else {
			cur = append(cur, fmt.Sprintf("%s on CPUs %s", name, List(g.CPUs)))
		}
		if g.Value == "0" {
			for _, c := range cpus {
				wants = append(wants, SysfsChange("cpu.energy-perf-bias", fmt.Sprintf("/sys/devices/system/cpu/cpu%d/power/energy_perf_bias", c), "0", "0", epbWhy))
			}
			continue
		}
		bad = true
		for _, c := range cpus {
			chg = append(chg, SysfsChange("cpu.energy-perf-bias", fmt.Sprintf("/sys/devices/system/cpu/cpu%d/power/energy_perf_bias", c), "0", g.Value,
				epbWhy))
		}
	}
	if !bad {
		return Passed("energy_perf_bias 0 (performance) on every online CPU").Wanting(wants...).
			Reading("/sys/devices/system/cpu/cpuN/power/energy_perf_bias: " + strings.Join(cur, "; "))
	}
	ev := "/sys/devices/system/cpu/cpuN/power/energy_perf_bias: " + strings.Join(cur, "; ")
	if t := s.Config.Tuned.ActiveProfile; t != nil {
		ev += "; tuned profile " + *t
	}
	f := Finding{
		Setting:     "/sys/devices/system/cpu/cpu*/power/energy_perf_bias",
		Current:     strings.Join(cur, "; "),
		Recommended: "0 (performance)",
		Evidence:    ev,
		Why: "003: throughput-performance, latency-performance and the virtualization profiles built on them all set Energy Perf Bias to performance " +
			"(balanced: normal); a power-biased hint lets the firmware trade clock speed and turbo for energy under a database's bursty load.",
		Fix: Fix{
			Runtime: []string{"cpupower set -b 0   (or: for f in /sys/devices/system/cpu/cpu*/power/energy_perf_bias; do echo 0 > $f; done)"},
			Persistent: []string{
				in.TunedFix("[cpu] energy_perf_bias=performance"),
			},
		},
		Changes: chg,
		Risk:    "More power at low load. Info only: 003 lists the value in its tuned tables but no source measured this knob on its own.",
	}
	if len(chg) == 0 {
		f.Changes = nil
		f.Evidence += " (online CPU list unknown: no per-CPU change)"
	}
	return Found(f).Wanting(wants...)
}

const epbWhy = "energy_perf_bias performance, as tuned's performance profiles set it"
