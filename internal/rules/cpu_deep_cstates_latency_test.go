package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestDeepCstatesLatency(t *testing.T) {
	const id = "cpu.deep-cstates-latency"
	idle := func(c6Disabled bool) *snapshot.Snapshot {
		s := host()
		s.CPUPower.CpuidleDriver = ptr("intel_idle")
		for c := 0; c < 8; c++ {
			s.CPUPower.Cpuidle = append(s.CPUPower.Cpuidle, snapshot.CPUIdle{CPU: c, States: []snapshot.IdleState{
				{Index: 0, Name: "POLL"}, {Index: 1, Name: "C1", LatencyUS: 2},
				{Index: 2, Name: "C6", LatencyUS: 133, Disabled: c6Disabled}}})
		}
		return s
	}
	f := fires(t, id, idle(false), WorkloadLatency, DBNone)
	if c := f.Changes; len(c) != 1 || c[0].Kind != change.BootArg || c[0].Value != "1" || c[0].Remove {
		t.Fatalf("%+v", c)
	}
	if f.Setting != "cmdline:intel_idle.max_cstate" || f.Current != "C6 (exit latency 133 µs) on CPUs 0-7" ||
		!strings.Contains(f.Why, "182 W → 578 W") {
		t.Fatalf("%+v", f)
	}
	fires(t, id, idle(false), WorkloadOLTP, DBNone)
	if rep := quiet(t, id, idle(false), WorkloadDSS, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("dss: %+v", rep)
	}
	quiet(t, id, idle(true), WorkloadLatency, DBNone)

	tuned := idle(false)
	tuned.Config.Tuned.ActiveProfile, tuned.Config.Tuned.Running = ptr("latency-performance"), ptr(true)
	quiet(t, id, tuned, WorkloadLatency, DBNone)

	none := host()
	absent(none, "cpu_power.cpuidle", "permission denied")
	cannot(t, id, none, WorkloadLatency, DBNone, "permission denied")
}
