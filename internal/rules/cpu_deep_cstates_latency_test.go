package rules

import (
	"strconv"
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
				{Index: 2, Name: "C6", LatencyUS: 133, Disabled: ptr(c6Disabled)}}})
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

	// A running tuned holding /dev/cpu_dma_latency through force_latency is credited.
	withTuned := func(profile string, running bool, settings ...snapshot.TunedSetting) *snapshot.Snapshot {
		s := idle(false)
		s.Config.Tuned.Installed, s.Config.Tuned.ActiveProfile, s.Config.Tuned.Running = true, ptr(profile), ptr(running)
		s.Config.Tuned.Profile = settings
		if len(settings) > 0 {
			s.Config.Tuned.ProfileFiles = []string{"/etc/tuned/" + profile + "/tuned.conf"}
		}
		return s
	}
	// The stock latency-performance (its file not read): cstate.id_no_zero:1|3 is C1's 2 µs.
	rep := quiet(t, id, withTuned("latency-performance", true), WorkloadLatency, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "force_latency=cstate.id_no_zero:1|3 (2 µs, from tuned 2.20's stock latency-performance") ||
		!strings.Contains(rep.Passed[0].Reason, "C6 (133 µs)") {
		t.Fatalf("%+v", rep)
	}
	quiet(t, id, withTuned("network-latency", true), WorkloadOLTP, DBNone) // includes latency-performance
	quiet(t, id, withTuned("postgresql", true), WorkloadOLTP, DBPostgres)  // force_latency=1
	// A custom profile's own value, read from its file.
	quiet(t, id, withTuned("site", true, snapshot.TunedSetting{Unit: "cpu", Option: "force_latency", Value: "cstate.name:C1|10",
		File: "/etc/tuned/site/tuned.conf", Line: 3}), WorkloadOLTP, DBNone)
	// Not running: nothing holds the file.
	f = fires(t, id, withTuned("latency-performance", false), WorkloadLatency, DBNone)
	if !strings.Contains(f.Evidence, "the tuned daemon is not running") {
		t.Fatalf("%+v", f)
	}
	// A latency that admits C6 (virtual-host: state 3, here absent → fallback 70 µs < 133 holds; state 2 = C6 → does not).
	quiet(t, id, withTuned("virtual-host", true), WorkloadOLTP, DBNone)
	f = fires(t, id, withTuned("site", true, snapshot.TunedSetting{Unit: "cpu", Option: "force_latency", Value: "cstate.id:2",
		File: "/etc/tuned/site/tuned.conf", Line: 3}), WorkloadOLTP, DBNone)
	if !strings.Contains(f.Evidence, "force_latency=cstate.id:2 (133 µs") || f.Current != "C6 (exit latency 133 µs) on CPUs 0-7" {
		t.Fatalf("%+v", f)
	}
	// throughput-performance sets no force_latency.
	if f := fires(t, id, withTuned("throughput-performance", true), WorkloadOLTP, DBNone); !strings.Contains(f.Evidence, "sets no force_latency") {
		t.Fatalf("%+v", f)
	}

	none := host()
	absent(none, "cpu_power.cpuidle", "permission denied")
	cannot(t, id, none, WorkloadLatency, DBNone, "permission denied")

	// The boot line bounds the states even when cpuidle could not be read.
	for _, limits := range []map[string]string{{"idle": "poll"}, {"idle": "halt"},
		{"intel_idle.max_cstate": "0", "processor.max_cstate": "1"}} {
		b := host()
		absent(b, "cpu_power.cpuidle", "permission denied")
		b.CPUPower.CmdlineLimits = limits
		quiet(t, id, b, WorkloadLatency, DBNone)
	}
	// intel_idle.max_cstate=0 alone: acpi_idle's C3 is still entered.
	half := idle(false)
	half.CPUPower.CmdlineLimits = map[string]string{"intel_idle.max_cstate": "0"}
	fires(t, id, half, WorkloadLatency, DBNone)
}

// rhel6Idle is a 2.6.32 host's idle states: no per-state disable, no
// residency, its poll state named C0.
func rhel6Idle() *snapshot.Snapshot {
	s := host()
	s.Host.Kernel = "2.6.32-431.el6.x86_64"
	s.CPUPower.CpuidleDriver = ptr("intel_idle")
	for c := 0; c < 4; c++ {
		s.CPUPower.Cpuidle = append(s.CPUPower.Cpuidle, snapshot.CPUIdle{CPU: c, States: []snapshot.IdleState{
			{Index: 0, Name: "C0"}, {Index: 1, Name: "C1-NHM", LatencyUS: 3}, {Index: 2, Name: "C3-NHM", LatencyUS: 20}}})
	}
	return s
}

// A kernel without per-state disable (RHEL 6): the listed deep states are
// entered; the fix is boot arguments or tuned, never cpupower idle-set.
func TestDeepCstatesNoPerStateDisable(t *testing.T) {
	const id = "cpu.deep-cstates-latency"
	s := rhel6Idle()
	f := fires(t, id, s, WorkloadOLTP, DBNone)
	all := strings.Join(append(f.Fix.Runtime, f.Fix.Lines()...), "\n")
	if strings.Contains(all, "cpupower idle-set") || strings.Contains(all, "grub2-mkconfig") ||
		!strings.Contains(all, "intel_idle.max_cstate=1 processor.max_cstate=1") || !strings.Contains(all, "/boot/grub/grub.conf") {
		t.Errorf("fix = %q", all)
	}
	if !strings.Contains(f.Evidence, "no stateN/disable") || len(f.Changes) != 2 || f.Changes[1].Key != "processor.max_cstate" {
		t.Errorf("finding = %+v", f)
	}
	tuned := s
	tuned.Config.Tuned.ActiveProfile, tuned.Config.Tuned.Running = ptr("latency-performance"), ptr(true)
	quiet(t, id, tuned, WorkloadOLTP, DBNone)
}

// Linux 5.6+ says whether a state is off from boot or was disabled at run
// time (default_status): the pass says which, since only the first
// survives a reboot; a state enabled against its default is named.
func TestDeepCstatesDefaultStatus(t *testing.T) {
	const id = "cpu.deep-cstates-latency"
	idle := func(c6Off, c6DefaultOff bool) *snapshot.Snapshot {
		s := host()
		s.CPUPower.CpuidleDriver = ptr("intel_idle")
		for c := 0; c < 4; c++ {
			s.CPUPower.Cpuidle = append(s.CPUPower.Cpuidle, snapshot.CPUIdle{CPU: c, States: []snapshot.IdleState{
				{Index: 0, Name: "POLL", Disabled: ptr(false), DefaultDisabled: ptr(false)},
				{Index: 1, Name: "C1", LatencyUS: 2, Disabled: ptr(false), DefaultDisabled: ptr(false)},
				{Index: 2, Name: "C6", LatencyUS: 133, Disabled: ptr(c6Off), DefaultDisabled: ptr(c6DefaultOff)}}})
		}
		return s
	}
	rep := quiet(t, id, idle(true, false), WorkloadLatency, DBNone)
	if r := rep.Passed[0].Reason; !strings.Contains(r, "C6 disabled at run time only") || !strings.Contains(r, "a reboot enables it again") {
		t.Errorf("off at run time: %q", r)
	}
	rep = quiet(t, id, idle(true, true), WorkloadLatency, DBNone)
	if r := rep.Passed[0].Reason; !strings.Contains(r, "C6 off from boot") || strings.Contains(r, "reboot") {
		t.Errorf("off from boot: %q", r)
	}
	if f := fires(t, id, idle(false, true), WorkloadLatency, DBNone); !strings.Contains(f.Evidence, "C6 enabled at run time although the driver disables it from boot") {
		t.Errorf("on against its default: %q", f.Evidence)
	}
	// Before 5.6 (default unknown) the pass says neither.
	s := idle(true, false)
	for i := range s.CPUPower.Cpuidle {
		for j := range s.CPUPower.Cpuidle[i].States {
			s.CPUPower.Cpuidle[i].States[j].DefaultDisabled = nil
		}
	}
	if r := quiet(t, id, s, WorkloadLatency, DBNone).Passed[0].Reason; r != "no idle state deeper than C1 is enabled" {
		t.Errorf("no default_status: %q", r)
	}
}

// The processes holding /dev/cpu_dma_latency (every process's fd links)
// decide: tuned holds it at its profile's force_latency, RHEL 6 tuned's
// pmqos-static.py at its command line's cpu_dma_latency=N; a tuned that
// runs without holding it limits nothing; another holder's request is not
// in /proc, so the rule cannot tell.
func TestDeepCstatesLatencyHolders(t *testing.T) {
	const id = "cpu.deep-cstates-latency"
	rhel6 := func(holders ...snapshot.LatencyHolder) *snapshot.Snapshot {
		s := rhel6Idle()
		s.CPUPower.LatencyHolders = append([]snapshot.LatencyHolder{}, holders...)
		return s
	}
	// Scanned, nobody holds it: the evidence says so.
	if f := fires(t, id, rhel6(), WorkloadOLTP, DBNone); !strings.Contains(f.Evidence, "no process holds it: /proc/PID/fd of every process") {
		t.Errorf("no holder: %q", f.Evidence)
	}
	// RHEL 6 tuned's latency-performance: pmqos-static.py holds it at 0 µs.
	pmqos := snapshot.LatencyHolder{PID: 800, Comm: "pmqos-static.py", Cmdline: "python /usr/libexec/tuned/pmqos-static.py cpu_dma_latency=0"}
	if r := quiet(t, id, rhel6(pmqos), WorkloadOLTP, DBNone); !strings.Contains(r.Passed[0].Reason, "PID 800 (pmqos-static.py), RHEL 6 tuned's helper, holds /dev/cpu_dma_latency at 0 µs") {
		t.Errorf("pmqos: %q", r.Passed[0].Reason)
	}
	// tuned 2.x latency-performance, running and holding it.
	tunedProc := snapshot.LatencyHolder{PID: 700, Comm: "tuned", Cmdline: "/usr/bin/python3 -Es /usr/sbin/tuned -l -P"}
	s := rhel6(tunedProc)
	s.Config.Tuned.ActiveProfile, s.Config.Tuned.Running = ptr("latency-performance"), ptr(true)
	if r := quiet(t, id, s, WorkloadOLTP, DBNone); !strings.Contains(r.Passed[0].Reason, "tuned (PID 700) holds /dev/cpu_dma_latency") {
		t.Errorf("tuned holding: %q", r.Passed[0].Reason)
	}
	// tuned runs but the scan found it not holding the device.
	s = rhel6()
	s.Config.Tuned.ActiveProfile, s.Config.Tuned.Running = ptr("latency-performance"), ptr(true)
	if f := fires(t, id, s, WorkloadOLTP, DBNone); !strings.Contains(f.Evidence, "but no tuned process holds /dev/cpu_dma_latency") {
		t.Errorf("tuned not holding: %q", f.Evidence)
	}
	// Without the scan (an older snapshot): a running tuned is taken to hold it.
	s.CPUPower.LatencyHolders = nil
	quiet(t, id, s, WorkloadOLTP, DBNone)
	// Another process holds it: its request is not in /proc.
	cannot(t, id, rhel6(snapshot.LatencyHolder{PID: 900, Comm: "java", Cmdline: "java -jar trader.jar"}), WorkloadOLTP, DBNone, "PID 900 (java) hold(s) /dev/cpu_dma_latency")
	// ... unless no deep state is left to judge: the boot line bounds them.
	b := rhel6(snapshot.LatencyHolder{PID: 900, Comm: "java"})
	b.CPUPower.CmdlineLimits = map[string]string{"idle": "poll"}
	quiet(t, id, b, WorkloadOLTP, DBNone)
	// Some fd directories unreadable: "not known", never "nobody".
	s = rhel6()
	absent(s, "cpu_power.dma_latency_holders", "permission denied for 12 process(es) (run as root to read them)")
	if f := fires(t, id, s, WorkloadOLTP, DBNone); !strings.Contains(f.Evidence, "holders not all known") || strings.Contains(f.Evidence, "no process holds it") {
		t.Errorf("unreadable fds: %q", f.Evidence)
	}
}

// applyIdleSet plays the fix's `cpupower idle-set` lines on s as cpupower
// does on every CPU: -D N disables each state exiting in N µs or more and
// enables each faster one; -d N disables state N.
func applyIdleSet(t *testing.T, s *snapshot.Snapshot, runtime []string) int {
	t.Helper()
	n := 0
	for _, line := range runtime {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "cpupower" || f[1] != "idle-set" {
			continue
		}
		v, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		n++
		for i := range s.CPUPower.Cpuidle {
			for j := range s.CPUPower.Cpuidle[i].States {
				st := &s.CPUPower.Cpuidle[i].States[j]
				switch f[2] {
				case "-D":
					st.Disabled = ptr(st.LatencyUS >= v)
				case "-d":
					if int64(st.Index) == v {
						st.Disabled = ptr(true)
					}
				default:
					t.Fatalf("%q: unknown option", line)
				}
			}
		}
	}
	return n
}

// The runtime fix disables exactly the states deeper than C1, computed
// from this host's exit latencies (issue 26): a fixed -D 10 leaves a C1E
// that exits in 2-4 µs enabled and the rule firing after its own fix.
func TestDeepCstatesIdleSetFromLatencies(t *testing.T) {
	const id = "cpu.deep-cstates-latency"
	// states builds every CPU's states: POLL, then name:latency pairs from state1 (C1) on.
	states := func(lat ...any) *snapshot.Snapshot {
		s := host()
		s.CPUPower.CpuidleDriver = ptr("intel_idle")
		for c := 0; c < 4; c++ {
			st := []snapshot.IdleState{{Index: 0, Name: "POLL", Disabled: ptr(false)}}
			for i := 0; i+1 < len(lat); i += 2 {
				st = append(st, snapshot.IdleState{Index: i/2 + 1, Name: lat[i].(string), LatencyUS: int64(lat[i+1].(int)), Disabled: ptr(false)})
			}
			s.CPUPower.Cpuidle = append(s.CPUPower.Cpuidle, snapshot.CPUIdle{CPU: c, States: st})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		s    *snapshot.Snapshot
		want string
	}{
		// 000's Superdome X (Xeon E7-2890 v2): C-states 0, 1, 1E, 3 and 6, state4 = C6-IVB.
		{"000 Superdome X", states("C1-IVB", 1, "C1E-IVB", 10, "C3-IVB", 59, "C6-IVB", 80), "cpupower idle-set -D 10 "},
		// A C1E that exits in 4 µs: -D 10 would keep it.
		{"C1E at 4 µs", states("C1", 1, "C1E", 4, "C6", 170), "cpupower idle-set -D 4 "},
		// C1E as fast as C1: no latency separates them, 000's per-state form.
		{"C1E as fast as C1", states("C1", 2, "C1E", 2, "C6", 133), "cpupower idle-set -d 3\ncpupower idle-set -d 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fires(t, id, tc.s, WorkloadOLTP, DBNone)
			if got := strings.Join(f.Fix.Runtime, "\n"); !strings.Contains(got, tc.want) {
				t.Fatalf("runtime fix %q, want %q", got, tc.want)
			}
			if applyIdleSet(t, tc.s, f.Fix.Runtime) == 0 {
				t.Fatalf("no cpupower idle-set in %q", f.Fix.Runtime)
			}
			rep := quiet(t, id, tc.s, WorkloadOLTP, DBNone)
			for _, c := range tc.s.CPUPower.Cpuidle {
				if c.States[1].Off() {
					t.Errorf("CPU %d: C1 disabled by the fix: %+v", c.CPU, rep)
				}
			}
		})
	}
}
