package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// cpu.intel-pstate-min-perf: with intel_pstate in active mode the driver
// picks P-states itself; min_perf_pct below 100 lets it drop the clock
// between bursts. tuned's throughput- and latency-performance profiles set
// it to 100.
func init() {
	Register(Rule{
		ID:        "cpu.intel-pstate-min-perf",
		Area:      AreaCPU,
		Severity:  SevWarning,
		Title:     "intel_pstate min_perf_pct is below 100 on a latency-sensitive workload",
		Workloads: []string{WorkloadLatency, WorkloadOLTP},
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "min_perf_pct (intel_pstate only)\tpercent\t\t100"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "min_perf_pct (intel_pstate only)\tPercent\tauto-scaling\t100"},
			{Doc: Seed000, Section: "P-states — Recommendation",
				Quote: "CPU clock should be kept at full speed"},
		},
		Scope: Scope{
			Kernels: "intel_pstate driver in active mode (/sys/devices/system/cpu/intel_pstate/status active; kernels before 4.13 have no status file and are always active); not in guests",
			Note:    "with HWP the floor is also set per CPU by energy_performance_preference; min_perf_pct caps it system-wide",
		},
		Check: checkIntelPstateMinPerf,
	})
}

const sysIntelPstate = "/sys/devices/system/cpu/intel_pstate"

func checkIntelPstateMinPerf(in *Input) Outcome {
	s := in.Snap
	if s.Host.Virt.Guest {
		return NotApplicable("guest (%s): the hypervisor host controls P-states; audit the host", s.Host.Virt.Type)
	}
	p := s.CPUPower.IntelPstate
	if p == nil {
		why := AbsentReason(s, "cpu_power.intel_pstate")
		if strings.Contains(why, "not present") {
			return NotApplicable("intel_pstate is not in use (%s)", why)
		}
		if why == "" {
			why = "cpu_power.intel_pstate: not in the snapshot"
		}
		return CannotCheck("%s", why)
	}
	status := p.Status
	if status != "" && status != "active" {
		return NotApplicable("intel_pstate status is %q: in passive mode the cpufreq governor decides (see cpu.governor-not-performance)", status)
	}
	if p.MinPerfPct == nil {
		return CannotCheck("%s", in.Reason("cpu_power.intel_pstate.min_perf_pct", "not in the snapshot"))
	}
	min := *p.MinPerfPct
	if min >= 100 {
		return Passed("intel_pstate active, min_perf_pct = %d", min).Reading(fmt.Sprintf("%s/min_perf_pct = %d, status %q", sysIntelPstate, min, status)).Wanting(SysfsChange("cpu.intel-pstate-min-perf", sysIntelPstate+"/min_perf_pct", "100", fmt.Sprint(min),
			"keep intel_pstate from lowering the clock between bursts (003 tuned performance profiles)"))
	}
	st := status
	if st == "" {
		st = "(no status file: active)"
	}
	ev := fmt.Sprintf("%s/status = %s; %s/min_perf_pct = %d", sysIntelPstate, st, sysIntelPstate, min)
	if p.MaxPerfPct != nil {
		ev += fmt.Sprintf("; max_perf_pct = %d", *p.MaxPerfPct)
	}
	if p.NoTurbo != nil {
		ev += fmt.Sprintf("; no_turbo = %t", *p.NoTurbo)
	}
	if t := s.Config.Tuned.ActiveProfile; t != nil {
		ev += "; tuned profile " + *t
	}
	f := Finding{
		Setting:     sysIntelPstate + "/min_perf_pct",
		Current:     fmt.Sprint(min),
		Recommended: "100",
		Evidence:    ev,
		Why: "003's tuned tables set min_perf_pct 100 in throughput-performance and latency-performance (balanced leaves it auto-scaling); " +
			"000 Table 3: with the clock kept at full speed and C-states limited, a latency-bound benchmark gained 30 % throughput (average clock 1.73 → 3.19 GHz).",
		Fix: Fix{
			Runtime: []string{echoTo("100", sysIntelPstate+"/min_perf_pct")},
			Persistent: []string{
				in.TunedFix("[cpu] min_perf_pct=100"),
				"or a tuned profile [sysfs] section: " + sysIntelPstate + "/min_perf_pct=100",
			},
		},
		Changes: []change.Change{SysfsChange("cpu.intel-pstate-min-perf", sysIntelPstate+"/min_perf_pct", "100", fmt.Sprint(min),
			"keep intel_pstate from lowering the clock between bursts (003 tuned performance profiles)")},
		Risk: "More power and heat at low load (000 Table 3: the idle floor rose from 182 W to 578 W with C-states also limited).",
	}
	if p.MaxPerfPct != nil && *p.MaxPerfPct < 100 {
		f.Evidence += " (max_perf_pct below 100 caps min_perf_pct: raise it too)"
		f.Fix.Runtime = append([]string{echoTo("100", sysIntelPstate+"/max_perf_pct")}, f.Fix.Runtime...)
		f.Changes = append([]change.Change{SysfsChange("cpu.intel-pstate-min-perf", sysIntelPstate+"/max_perf_pct", "100", fmt.Sprint(*p.MaxPerfPct),
			"min_perf_pct cannot exceed max_perf_pct")}, f.Changes...)
	}
	return Found(f)
}
