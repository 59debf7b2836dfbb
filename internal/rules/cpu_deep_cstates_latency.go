package rules

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// cpu.deep-cstates-latency: idle states deeper than C1 are allowed on a
// latency or OLTP workload. Waking from them costs tens to hundreds of µs
// and keeps turbo clocks down; limiting them costs idle power.
func init() {
	Register(Rule{
		ID:        "cpu.deep-cstates-latency",
		Area:      AreaCPU,
		Severity:  SevWarning,
		Title:     "Deep C-states are allowed on a latency-sensitive workload",
		Workloads: []string{WorkloadLatency, WorkloadOLTP},
		Sources: []Source{
			{Doc: Seed000, Section: "C-states — Recommendation",
				Quote: "Allow only C-state 1 transitions to encourage Turboboost clock speed increases"},
			{Doc: Seed000, Section: "tuned-adm",
				Quote: "These profiles both limit C-state transitions to 1, and keep the CPU at maximum clock speed"},
			{Doc: Seed000, Section: "Utilities for managing power usage",
				Quote: "the kernel will attempt to limit C-state transitions to meet the requested value as long as the process keeps the file open"},
			{Doc: Seed000, Section: "Table 3. Power consumption versus performance test results—first scenario.",
				Quote: "Base power floor (all Processors) while idle\t182 W\t578 W"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "Allowed C-states\t0, 1"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "CPU C-States\t\tN/A\tLocked @ 1"},
		},
		Scope: Scope{
			Kernels: "intel_idle and acpi_idle cpuidle drivers; not in guests (the host's C-states matter)",
			Note:    "state0 is POLL and state1 is C1 under both drivers; anything from state2 on is deeper than C1",
		},
		Check: checkDeepCstates,
	})
}

func checkDeepCstates(in *Input) Outcome {
	s := in.Snap
	if s.Host.Virt.Guest {
		return NotApplicable("guest (%s): the hypervisor host's C-states decide wake-up latency; audit the host", s.Host.Virt.Type)
	}
	if why := bootCstateBound(s.CPUPower.CmdlineLimits); why != "" {
		return Passed("%s", why).Reading("/proc/cmdline: " + why)
	}
	if len(s.CPUPower.Cpuidle) == 0 {
		if why := AbsentReason(s, "cpu_power.cpuidle"); why != "" {
			return CannotCheck("%s", why)
		}
		return NotApplicable("no cpuidle states on this host")
	}
	// A process holding /dev/cpu_dma_latency open keeps every CPU out of
	// the idle states whose exit latency exceeds its request (000: "as long
	// as the process keeps the file open"): tuned for a profile with [cpu]
	// force_latency, RHEL 6 tuned's pmqos-static.py, or any application.
	lat := latencyHolds(s)
	held, heldWhy := lat.limit, strings.Join(lat.why, "; ")
	type deep struct {
		latency int64
		cpus    []int
	}
	states := map[string]*deep{}
	var skipped []string
	noDisable := false // a kernel without per-state disable (before 3.5: RHEL 6)
	// default_status (5.6+) tells how a deep state came to be off or on.
	offFromBoot, offAtRunTime, onAgainstDefault := map[string]bool{}, map[string]bool{}, map[string]bool{}
	// The host's own exit latencies place `cpupower idle-set -D`'s cut:
	// it disables every state whose latency is at least its value and
	// enables every one below it, on every CPU.
	lat01, latDeep := idleLatencies(s) // slowest POLL/C1, fastest deeper state
	objected := map[int]bool{}         // the state indexes the finding names
	for _, c := range s.CPUPower.Cpuidle {
		for _, st := range c.States {
			if st.Index >= 2 && st.DefaultDisabled != nil {
				switch {
				case st.OffAtRunTime():
					offAtRunTime[st.Name] = true
				case st.Off():
					offFromBoot[st.Name] = true
				case *st.DefaultDisabled:
					onAgainstDefault[st.Name] = true
				}
			}
			if st.Index < 2 || st.Off() {
				continue
			}
			noDisable = noDisable || st.Disabled == nil
			if held >= 0 && st.LatencyUS > held {
				if c.CPU == s.CPUPower.Cpuidle[0].CPU {
					skipped = append(skipped, fmt.Sprintf("%s (%d µs)", st.Name, st.LatencyUS))
				}
				continue
			}
			d, ok := states[st.Name]
			if !ok {
				d = &deep{latency: st.LatencyUS}
				states[st.Name] = d
			}
			d.cpus = append(d.cpus, c.CPU)
			objected[st.Index] = true
		}
	}
	if len(states) > 0 && len(lat.unknown) > 0 {
		names := slices.Sorted(maps.Keys(states))
		return CannotCheck("%s enabled, but %s hold(s) /dev/cpu_dma_latency at a latency /proc does not show: the idle governor enters "+
			"no state slower than the lowest request, so whether these are entered cannot be told (as root, `od -An -td4 /dev/cpu_dma_latency` "+
			"prints the current limit in µs where the kernel allows reading it)", strings.Join(names, ", "), strings.Join(lat.unknown, ", "))
	}
	if len(states) == 0 {
		// The boot argument that keeps them off, when it is on the command line.
		var holds []change.Change
		for _, k := range []string{"intel_idle.max_cstate", "processor.max_cstate"} {
			if v, ok := s.Host.CmdlineArgs[k]; ok && v == "1" {
				holds = append(holds, BootArgChange("cpu.deep-cstates-latency", k, "1", v, "deep C-states add wake-up latency on a latency workload"))
			}
		}
		if len(skipped) > 0 {
			return Passed("%s; the deeper states %s exit more slowly, so the idle governor does not enter them", heldWhy, strings.Join(skipped, ", ")).Holding(holds...).
				Reading(heldWhy, cstatesRead(s))
		}
		return Passed("no idle state deeper than C1 is enabled%s", howOff(offFromBoot, offAtRunTime)).Holding(holds...).Reading(cstatesRead(s))
	}
	names := make([]string, 0, len(states))
	for n := range states {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return states[names[i]].latency < states[names[j]].latency })
	var cur []string
	for _, n := range names {
		cur = append(cur, fmt.Sprintf("%s (exit latency %d µs) on CPUs %s", n, states[n].latency, List(states[n].cpus)))
	}
	driver := ""
	if s.CPUPower.CpuidleDriver != nil {
		driver = *s.CPUPower.CpuidleDriver
	}
	arg := "intel_idle.max_cstate=1"
	switch driver {
	case "acpi_idle":
		arg = "processor.max_cstate=1"
	case "":
		// The driver is unknown: each argument is ignored where its driver
		// does not run.
		arg = "intel_idle.max_cstate=1 processor.max_cstate=1"
	}
	ev := fmt.Sprintf("/sys/devices/system/cpu/cpuN/cpuidle/stateM/{name,latency,disable}: %s enabled; cpuidle driver %s",
		strings.Join(names, ", "), orUnknown(driver))
	runtime := idleSetFix(lat01, latDeep, objected)
	tunedNote := ""
	if latDeep > lat01 {
		runtime = append(runtime, "or: tuned-adm profile latency-performance   (its force_latency holds /dev/cpu_dma_latency at C1's exit latency while tuned runs)")
	} else {
		tunedNote = fmt.Sprintf("; a state deeper than C1 exits as fast as C1 (%d µs): a /dev/cpu_dma_latency hold at C1's latency "+
			"(tuned latency-performance) does not keep the CPUs out of it, disabling it does", lat01)
	}
	tunedLat := "latency-performance / network-latency"
	if TunedV02(s) {
		tunedLat = "latency-performance" // tuned 0.2 (RHEL 6) has no network-latency
	}
	persistent := append(KernelArgFixFor(s, arg).Persistent, "instead of the boot argument: make "+tunedLat+" the tuned profile")
	edits := KernelArgFixFor(s, arg).Edits
	if noDisable {
		// No per-state disable: only boot arguments or a /dev/cpu_dma_latency
		// holder keep the CPUs out of these states; cpupower idle-set cannot.
		ev = fmt.Sprintf("/sys/devices/system/cpu/cpuN/cpuidle/stateM/{name,latency}: %s listed; this kernel has no stateN/disable "+
			"(Linux 3.5+), so they are entered unless the boot line limits them or a process holds /dev/cpu_dma_latency "+
			"(%s); cpuidle driver %s",
			strings.Join(names, ", "), lat.holdersSeen, orUnknown(driver))
		if driver != "acpi_idle" {
			arg = "intel_idle.max_cstate=1 processor.max_cstate=1" // intel_idle.max_cstate alone hands idle to acpi_idle's ACPI C-states
		}
		runtime = []string{noDisableFix}
		enable := "systemctl enable tuned"
		if TunedV02(s) {
			enable = "chkconfig tuned on && chkconfig ktune on"
		}
		edits = KernelArgFixFor(s, arg).Edits
		persistent = append(KernelArgFixFor(s, arg).Persistent,
			"instead of the boot arguments: make latency-performance the tuned profile (tuned-adm profile latency-performance; "+enable+")")
	}
	if !noDisable {
		ev += tunedNote
	}
	if len(onAgainstDefault) > 0 {
		ev += fmt.Sprintf("; %s enabled at run time although the driver disables it from boot (stateN/default_status disabled)", strings.Join(slices.Sorted(maps.Keys(onAgainstDefault)), ", "))
	}
	if len(s.CPUPower.CmdlineLimits) > 0 {
		ev += fmt.Sprintf("; boot line limits %v", s.CPUPower.CmdlineLimits)
	}
	if heldWhy != "" {
		ev += "; " + heldWhy
	} else if t := s.Config.Tuned.ActiveProfile; t != nil {
		ev += "; tuned profile " + *t + " sets no force_latency"
	}
	return Found(Finding{
		Setting:     "cmdline:" + strings.SplitN(arg, "=", 2)[0],
		Current:     strings.Join(cur, "; "),
		Recommended: "C0/C1 only: " + arg + ", or tuned " + tunedLat,
		Evidence:    ev,
		Why: "000 (a latency-sensitive message-passing benchmark): allowing only C1, with the performance governor (tuned " +
			"latency-performance), raised throughput 30 % (867,725 → 1,131,823 TPS; C1 residency 99.97 %, clock 1.73 → 3.19 GHz); " +
			"the cost is the idle power floor, 182 W → 578 W (+317 %), and 6 % more power under load.",
		Fix:     Fix{Runtime: runtime, Persistent: persistent, Edits: edits},
		Changes: bootArgChanges(arg, s.Host.CmdlineArgs),
		Risk: "Idle power and heat rise sharply (000 Table 3: 182 W → 578 W floor); turbo headroom from idle cores is lost on " +
			"some CPUs. 000 Table 4: binding the workload to one node recovered most of the gain at under half the power.",
	})
}

// idleLatencies are the host's exit latencies that place `cpupower
// idle-set -D`'s cut: the slowest of POLL and C1 (state0, state1) and the
// fastest state deeper than C1, over every CPU (-1 when there is none).
func idleLatencies(s *snapshot.Snapshot) (lat01, latDeep int64) {
	lat01, latDeep = -1, -1
	for _, c := range s.CPUPower.Cpuidle {
		for _, st := range c.States {
			if st.Index < 2 {
				lat01 = max(lat01, st.LatencyUS)
			} else if latDeep < 0 || st.LatencyUS < latDeep {
				latDeep = st.LatencyUS
			}
		}
	}
	return lat01, latDeep
}

// hostIdleSetFix is this rule's cpupower idle-set command for the host's
// idle states, for another rule that advises limiting C-states
// (io.awr-redo-latency): every enabled state deeper than C1 is the one to
// disable. Nil when the snapshot has no idle states.
func hostIdleSetFix(s *snapshot.Snapshot) []string {
	if len(s.CPUPower.Cpuidle) == 0 {
		return nil
	}
	lat01, latDeep := idleLatencies(s)
	objected := map[int]bool{}
	for _, c := range s.CPUPower.Cpuidle {
		for _, st := range c.States {
			if st.Index >= 2 && st.Disabled == nil {
				return []string{noDisableFix} // no stateN/disable: cpupower idle-set cannot
			}
			if st.Index >= 2 && !st.Off() {
				objected[st.Index] = true
			}
		}
	}
	return idleSetFix(lat01, latDeep, objected)
}

// noDisableFix keeps the CPUs out of deep C-states on a kernel without
// stateN/disable (before 3.5: RHEL 6), where cpupower idle-set cannot.
const noDisableFix = "tuned-adm profile latency-performance   (RHEL 6 tuned holds /dev/cpu_dma_latency with pmqos-static.py; tuned 2.x: [cpu] force_latency=1)"

// idleSetFix is the cpupower idle-set command that disables exactly the
// states deeper than C1 on this host, from its states' exit latencies:
// `-D N` disables every state exiting in N µs or more and enables every
// faster one, so N is the fastest deeper state's latency when that is above
// the slowest of POLL and C1; otherwise no latency separates them and each
// objected state is disabled by its index (000: cpupower idle-set -d 4, -d 3, -d 2).
func idleSetFix(lat01, latDeep int64, objected map[int]bool) []string {
	if latDeep > lat01 && latDeep > 0 {
		return []string{fmt.Sprintf("cpupower idle-set -D %d   (disables every idle state exiting in %d µs or more, the states "+
			"deeper than C1 on this host; C1 and POLL exit in at most %d µs and stay enabled)", latDeep, latDeep, max(lat01, 0))}
	}
	var out []string
	for _, i := range slices.Backward(slices.Sorted(maps.Keys(objected))) {
		out = append(out, fmt.Sprintf("cpupower idle-set -d %d", i))
	}
	return out
}

// howOff says how the deep states that are off came to be off, from
// stateN/default_status (Linux 5.6+): off from boot they stay off after a
// reboot; off at run time they come back unless what disabled them runs again.
func howOff(fromBoot, atRunTime map[string]bool) string {
	out := ""
	if len(fromBoot) > 0 {
		out += fmt.Sprintf("; %s off from boot (stateN/default_status disabled: intel_idle.states_off or the driver's table)", strings.Join(slices.Sorted(maps.Keys(fromBoot)), ", "))
	}
	if len(atRunTime) > 0 {
		out += fmt.Sprintf("; %s disabled at run time only (stateN/default_status enabled: cpupower idle-set, tuned or a script): "+
			"a reboot enables it again unless that runs at every boot (tuned's force_latency, or intel_idle.max_cstate=1 on the boot line)",
			strings.Join(slices.Sorted(maps.Keys(atRunTime)), ", "))
	}
	return out
}

// bootCstateBound says why the boot line keeps every CPU at C1 or shallower,
// or "" when it does not: idle=poll or idle=halt; intel_idle.max_cstate and
// processor.max_cstate both at most 1 (intel_idle.max_cstate=0 alone turns
// intel_idle off and hands idle to acpi_idle, which then uses the ACPI
// C-states unless processor.max_cstate bounds them too).
func bootCstateBound(limits map[string]string) string {
	switch limits["idle"] {
	case "poll":
		return "idle=poll on the boot line: the CPUs poll in C0 and enter no C-state"
	case "halt":
		return "idle=halt on the boot line: the CPUs halt in C1 and enter no deeper C-state"
	}
	atMostOne := func(k string) bool {
		v, ok := limits[k]
		return ok && (v == "0" || v == "1")
	}
	if atMostOne("intel_idle.max_cstate") && atMostOne("processor.max_cstate") {
		return fmt.Sprintf("boot line intel_idle.max_cstate=%s processor.max_cstate=%s: neither intel_idle nor acpi_idle offers a state deeper than C1",
			limits["intel_idle.max_cstate"], limits["processor.max_cstate"])
	}
	return ""
}

// bootArgChanges are the boot-argument changes of "k=1 k2=1".
func bootArgChanges(args string, current map[string]string) []change.Change {
	var out []change.Change
	for _, a := range strings.Fields(args) {
		k, v, _ := strings.Cut(a, "=")
		out = append(out, BootArgChange("cpu.deep-cstates-latency", k, v, current[k], "deep C-states add wake-up latency on a latency workload"))
	}
	return out
}

// latencyHold is what the processes holding /dev/cpu_dma_latency do to the
// idle states: limit is the lowest known request in µs (-1: none known),
// why says where it comes from, unknown names holders whose request
// cannot be told, holdersSeen says what the fd scan found.
type latencyHold struct {
	limit       int64
	why         []string
	unknown     []string
	holdersSeen string
}

// latencyHolds reads cpu_power.dma_latency_holders (every process's fd
// links) with the active tuned profile: tuned holds the device at its
// profile's force_latency, RHEL 6 tuned's pmqos-static.py at the
// cpu_dma_latency=N of its command line; another holder's request is not in
// /proc. Without the fd scan (an older snapshot, a sosreport) a running
// tuned is taken to hold what its profile asks, as before the scan existed.
func latencyHolds(s *snapshot.Snapshot) latencyHold {
	h := latencyHold{limit: -1}
	take := func(v int64, why string) {
		if h.limit < 0 || v < h.limit {
			h.limit = v
		}
		h.why = append(h.why, why)
	}
	holders := s.CPUPower.LatencyHolders
	scanWhy := AbsentReason(s, "cpu_power.dma_latency_holders")
	known := holders != nil && scanWhy == ""
	switch {
	case known && len(holders) == 0:
		h.holdersSeen = "no process holds it: /proc/PID/fd of every process"
	case holders == nil && scanWhy == "":
		h.holdersSeen = "holders not known: the snapshot has no dma_latency_holders"
	case scanWhy != "":
		h.holdersSeen = "holders not all known: " + scanWhy
	default:
		h.holdersSeen = fmt.Sprintf("held by %d process(es)", len(holders))
	}
	var tunedPID []int
	for _, p := range holders {
		who := fmt.Sprintf("PID %d (%s)", p.PID, p.Comm)
		switch {
		case isTunedProcess(p.Comm, p.Cmdline):
			tunedPID = append(tunedPID, p.PID)
		case p.Comm == "pmqos-static.py" || strings.Contains(p.Cmdline, "pmqos-static.py"):
			if v, ok := pmqosRequest(p.Cmdline); ok {
				take(v, fmt.Sprintf("%s, RHEL 6 tuned's helper, holds /dev/cpu_dma_latency at %d µs (cpu_dma_latency=%d on its command line)", who, v, v))
			} else {
				h.unknown = append(h.unknown, who)
			}
		default:
			h.unknown = append(h.unknown, who)
		}
	}
	lim, fromTuned := int64(-1), ""
	if a, _, ok := ActiveTuned(s); ok {
		if fl, set := a.Settings["cpu.force_latency"]; set {
			if v, ok := ForceLatencyUS(fl, s); ok {
				lim, fromTuned = v, fmt.Sprintf("tuned profile %s sets force_latency=%s (%d µs, from %s)", a.Profile, fl, v, a.From)
			}
		}
	}
	switch {
	case len(tunedPID) > 0 && lim >= 0:
		take(lim, fmt.Sprintf("%s and tuned (PID %d) holds /dev/cpu_dma_latency", fromTuned, tunedPID[0]))
	case len(tunedPID) > 0:
		h.unknown = append(h.unknown, fmt.Sprintf("PID %d (tuned, whose profile's force_latency is not known)", tunedPID[0]))
	case lim < 0:
	case known:
		h.why = append(h.why, fromTuned+", but no tuned process holds /dev/cpu_dma_latency (/proc/PID/fd): the limit is not in force")
	case s.Config.Tuned.Running != nil && *s.Config.Tuned.Running:
		take(lim, fromTuned+" and tuned is running: it holds /dev/cpu_dma_latency")
	default:
		h.why = append(h.why, fromTuned+", but the tuned daemon is not running (or was not seen): nothing holds /dev/cpu_dma_latency")
	}
	return h
}

// isTunedProcess: tuned's own process ("tuned", or "python3 -Es
// /usr/sbin/tuned" whose comm is the interpreter's).
func isTunedProcess(comm, cmdline string) bool {
	if comm == "tuned" {
		return true
	}
	f := strings.Fields(cmdline)
	for i := 1; i < len(f) && i < 4; i++ {
		if f[i] == "tuned" || strings.HasSuffix(f[i], "/tuned") {
			return true
		}
	}
	return false
}

// pmqosRequest reads the cpu_dma_latency=N argument RHEL 6 tuned's
// pmqos-static.py holds the device at.
func pmqosRequest(cmdline string) (int64, bool) {
	for _, a := range strings.Fields(cmdline) {
		if v, ok := strings.CutPrefix(a, "cpu_dma_latency="); ok {
			n, err := strconv.ParseInt(v, 10, 32)
			return n, err == nil && n >= 0
		}
	}
	return 0, false
}

// cstatesRead names the idle states read: the first CPU's, with each
// state's exit latency and whether it is disabled, and how many CPUs.
func cstatesRead(s *snapshot.Snapshot) string {
	if len(s.CPUPower.Cpuidle) == 0 {
		return ""
	}
	c := s.CPUPower.Cpuidle[0]
	var st []string
	for _, x := range c.States {
		t := fmt.Sprintf("%s %d µs", x.Name, x.LatencyUS)
		if x.Off() {
			t += " (disabled)"
		}
		st = append(st, t)
	}
	return fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpuidle: %s (%d CPU(s) read)", c.CPU, strings.Join(st, ", "), len(s.CPUPower.Cpuidle))
}
