package facts

import (
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("cpupower", StageSources, readCPUPower, "cpu_power") }

const (
	sysCPUFreq  = sysCPU + "/cpufreq"
	sysCPUIdle  = sysCPU + "/cpuidle"
	sysPstate   = sysCPU + "/intel_pstate"
	maxIdleStat = 64 // CPUIDLE_STATE_MAX is 10; a bound against a looping tree
)

// cmdlinePowerArgs are the kernel parameters that limit or select C- and
// P-state handling (000 "C-states and P-states": intel_idle.max_cstate,
// processor.max_cstate; 003 latency profiles: "CPU C-States Locked @ 1").
var cmdlinePowerArgs = []string{
	"intel_idle.max_cstate", "intel_idle.states_off", "processor.max_cstate", "processor_idle.max_cstate",
	"idle", "cpuidle.off", "cpuidle.governor", "intel_pstate", "amd_pstate", "processor.ignore_ppc",
	"cpufreq.off", "cpufreq.default_governor",
}

// readCPUPower fills Snapshot.CPUPower. It runs after the host reader, so the
// parsed kernel command line is available. Per-CPU files are read once each,
// by a few workers that each take a contiguous share of the CPUs and of the
// cpufreq policies (a 240-CPU host has ~30 files per CPU); failures of the
// same file on many CPUs are recorded as one absence.
func readCPUPower(c *Collector) {
	p := &c.Snap.CPUPower
	cpus := powerCPUs(c)
	online := make(map[int]bool, len(cpus))
	for _, id := range cpus {
		online[id] = true
	}
	names, _ := c.Root.ReadDirNames(sysCPUFreq)
	policies := numberedEntries(names, "policy")
	rd := newSysReader(c.Root)
	// energy_perf_bias is x86-only: probe the first CPU before reading all.
	epb := false
	if len(cpus) == 0 {
		c.AbsentReason("cpu_power.energy_perf_bias", sysCPU+"/online", "no online CPUs known")
	} else if _, err := rd.read(epbPath(cpus[0])); err != nil {
		reason := Reason(err)
		if errors.Is(err, fs.ErrNotExist) {
			reason += ": " + eraHint("cpu_power.energy_perf_bias")
		}
		c.AbsentReason("cpu_power.energy_perf_bias", epbPath(cpus[0]), reason)
	} else {
		epb = true
	}

	ab := newPowerAbsences(rd, len(cpus))
	tbl := readIdleTable(ab, c.Root, cpus)
	parts := make([]powerPart, cpuWorkers(len(cpus)))
	var wg sync.WaitGroup
	panicked := false
	for i := range parts {
		cl, ch := chunk(len(cpus), len(parts), i)
		pl, ph := chunk(len(policies), len(parts), i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.recoverWorker("cpupower", &panicked, "cpu_power.cpufreq", "cpu_power.cpuidle", "cpu_power.energy_perf_bias")
			testPanic("worker:cpupower")
			parts[i].read(c.Root, cpus[cl:ch], policies[pl:ph], len(policies) > 0, online, epb, tbl)
		}()
	}
	wg.Wait()
	if panicked {
		parts, epb = nil, false // the per-CPU facts are absent (recoverWorker), not partial
	} else {
		p.Cpufreq = mergeCpufreq(c, cpus, parts, ab)
	}
	epbVals := map[int]string{}
	without, firstMissing := 0, ""
	for i := range parts {
		pp := &parts[i]
		p.Cpuidle = append(p.Cpuidle, pp.idle...)
		if pp.noIdle > 0 && without == 0 {
			firstMissing = pp.firstNoIdle
		}
		without += pp.noIdle
		for id, v := range pp.epb {
			epbVals[id] = v
		}
		ab.merge(pp.ab)
	}

	p.IntelPstate = readIntelPstate(c)
	p.CpuidleDriver = c.String("cpu_power.cpuidle_driver", sysCPUIdle+"/current_driver")
	if s, err := c.Root.ReadString(sysCPUIdle + "/current_governor"); err == nil {
		p.CpuidleGovernor = &s
	} else if s, err2 := c.Root.ReadString(sysCPUIdle + "/current_governor_ro"); err2 == nil {
		p.CpuidleGovernor = &s
	} else {
		c.Absent("cpu_power.cpuidle_governor", sysCPUIdle+"/current_governor", err)
	}
	if without > 0 {
		reason := "not present on this host: no cpuidle states"
		if p.CpuidleDriver != nil {
			reason += " (cpuidle driver " + strconv.Quote(*p.CpuidleDriver) + ")"
		}
		if len(p.Cpuidle) > 0 {
			reason = strconv.Itoa(without) + " of " + strconv.Itoa(len(cpus)) + " online CPUs have no cpuidle states"
		}
		c.AbsentReason("cpu_power.cpuidle", firstMissing, reason)
	}
	if c.Snap.Host.Cmdline == "" && c.IsAbsent("host.cmdline") {
		c.AbsentReason("cpu_power.cmdline_limits", "/proc/cmdline", "kernel command line unknown (see host.cmdline)")
	} else {
		p.CmdlineLimits = cmdlineLimits(c.Snap.Host.CmdlineArgs)
	}
	if epb {
		s := summarizeByCPU(epbVals)
		p.EnergyPerfBias = &s
	}
	ab.flush(c)
}

func epbPath(cpu int) string { return sysCPU + "/cpu" + strconv.Itoa(cpu) + "/power/energy_perf_bias" }

// powerPart is what one worker read for its share of CPUs and policies.
type powerPart struct {
	ab          *powerAbsences
	freq        []snapshot.CPUFreq // unsorted; a CPU may appear twice (merge keeps the first)
	idle        []snapshot.CPUIdle // in CPU order
	noIdle      int
	firstNoIdle string
	epb         map[int]string
}

func (pp *powerPart) read(root Root, cpus, policies []int, havePolicies bool, online map[int]bool, epb bool, tbl *idleTable) {
	rd := newSysReader(root)
	pp.ab = newPowerAbsences(rd, len(cpus))
	// cpufreq: the policyN directories of this share (Linux 4.3+), each read
	// once and given to the online CPUs it covers; else the per-CPU
	// cpuN/cpufreq directories of this share's CPUs.
	var common cpufreqCommon
	for _, pid := range policies {
		dir := sysCPUFreq + "/policy" + strconv.Itoa(pid)
		rd.enter(dir)
		var members []int
		s, err := rd.read(dir + "/affected_cpus")
		if err == nil {
			members, err = cpulist.Parse(strings.Join(strings.Fields(s), ","))
		}
		if err != nil {
			members = []int{pid} // the policy is named after its first CPU
		}
		var f *snapshot.CPUFreq
		for _, id := range members {
			if !online[id] {
				continue // an inactive policy has no online CPU
			}
			if f == nil {
				v := readPolicy(pp.ab, dir, &common)
				f = &v
			}
			g := *f
			g.CPU = id
			pp.freq = append(pp.freq, g)
		}
		rd.leave()
	}
	if !havePolicies {
		for _, id := range cpus {
			dir := sysCPU + "/cpu" + strconv.Itoa(id) + "/cpufreq"
			if !root.Exists(dir) {
				continue
			}
			rd.enter(dir)
			f := readPolicy(pp.ab, dir, &common)
			rd.leave()
			f.CPU = id
			pp.freq = append(pp.freq, f)
		}
	}
	var prev []snapshot.IdleState
	for _, id := range cpus {
		if states := tbl.statesOf(pp.ab, id, prev); len(states) > 0 {
			pp.idle = append(pp.idle, snapshot.CPUIdle{CPU: id, States: states})
			prev = states
		} else {
			if pp.noIdle == 0 {
				pp.firstNoIdle = sysCPU + "/cpu" + strconv.Itoa(id) + "/cpuidle"
			}
			pp.noIdle++
		}
	}
	if epb {
		pp.epb = make(map[int]string, len(cpus))
		for _, id := range cpus {
			s, err := rd.read(epbPath(id))
			if err != nil {
				pp.ab.add("cpu_power.energy_perf_bias", epbPath(id), err)
				s = "unreadable"
			}
			pp.epb[id] = s
		}
	}
}

// mergeCpufreq joins the workers' cpufreq entries: one per online CPU (the
// first policy that claims a CPU wins), sorted by CPU.
func mergeCpufreq(c *Collector, cpus []int, parts []powerPart, ab *powerAbsences) []snapshot.CPUFreq {
	covered := map[int]bool{}
	var out []snapshot.CPUFreq
	for i := range parts {
		for _, f := range parts[i].freq {
			if !covered[f.CPU] {
				covered[f.CPU] = true
				out = append(out, f)
			}
		}
	}
	if len(out) == 0 {
		c.AbsentReason("cpu_power.cpufreq", sysCPUFreq, "not present on this host: no cpufreq policy (no frequency scaling driver: usual in VMs, or P-states left to the firmware)")
		return nil
	}
	if missing := len(cpus) - len(covered); missing > 0 {
		c.AbsentReason("cpu_power.cpufreq", sysCPUFreq, strconv.Itoa(missing)+" of "+strconv.Itoa(len(cpus))+" online CPUs have no cpufreq policy")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CPU < out[j].CPU })
	return out
}

// powerCPUs returns the online CPU ids: from the topology reader (StageBase)
// when it found CPUs, else from /sys/devices/system/cpu/online.
func powerCPUs(c *Collector) []int {
	var ids []int
	for _, cp := range c.Snap.Topology.CPUs {
		if cp.Online {
			ids = append(ids, cp.ID)
		}
	}
	if len(ids) > 0 {
		return ids
	}
	if s, err := c.Root.ReadString(sysCPU + "/online"); err == nil {
		if l, err := cpulist.Parse(s); err == nil {
			return l
		}
	}
	return nil
}

// powerAbsences folds per-CPU read failures of the same fact into one
// absence: "not present on this host (in 240 files across 240 online CPUs;
// path is the first)".
type powerAbsences struct {
	rd    *sysReader
	total int
	facts map[string]*powerAbsence
	order []string
	note  map[string]string // where a fact's files were read, when not on every CPU
}

type powerAbsence struct {
	n    int
	path string
	err  error
}

func newPowerAbsences(rd *sysReader, total int) *powerAbsences {
	return &powerAbsences{rd: rd, total: total, facts: map[string]*powerAbsence{}, note: map[string]string{}}
}

func (a *powerAbsences) add(fact, path string, err error) {
	e := a.facts[fact]
	if e == nil {
		e = &powerAbsence{path: path, err: err}
		a.facts[fact] = e
		a.order = append(a.order, fact)
	}
	e.n++
}

// merge folds another worker's absences into a (a's first path stays first).
func (a *powerAbsences) merge(b *powerAbsences) {
	for _, f := range b.order {
		e := b.facts[f]
		if mine := a.facts[f]; mine != nil {
			mine.n += e.n
			continue
		}
		a.facts[f] = &powerAbsence{n: e.n, path: e.path, err: e.err}
		a.order = append(a.order, f)
	}
}

func (a *powerAbsences) flush(c *Collector) {
	for _, f := range a.order {
		e := a.facts[f]
		files := " files"
		if e.n == 1 {
			files = " file"
		}
		reason := Reason(e.err)
		if hint := eraHint(f); hint != "" && errors.Is(e.err, fs.ErrNotExist) {
			reason += ": " + hint
		}
		where := " across " + strconv.Itoa(a.total) + " online CPUs"
		if n := a.note[f]; n != "" {
			where = " " + n
		}
		c.AbsentReason(f, e.path, reason+" (in "+strconv.Itoa(e.n)+files+where+"; path is the first)")
	}
}

// parseSysUint parses a sysfs file holding one non-negative integer
// (frequencies in kHz, latencies in µs, flags).
func parseSysUint(s string) (int64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, parseErr(1, "expected a non-negative integer, got %q", trunc(s, 40))
	}
	return v, nil
}

// sysUint reads a sysfs integer; on failure it folds the absence into ab.
func sysUint(ab *powerAbsences, fact, p string) *int64 {
	v, _ := readSysUint(ab, fact, p)
	return v
}

// readSysUint is sysUint that also returns the failure.
func readSysUint(ab *powerAbsences, fact, p string) (*int64, error) {
	s, err := ab.rd.read(p)
	if err == nil {
		var v int64
		if v, err = parseSysUint(s); err == nil {
			return &v, nil
		}
	}
	ab.add(fact, p, err)
	return nil, err
}

// sysText reads a one-line sysfs file; on failure it folds the absence into ab.
func sysText(ab *powerAbsences, fact, p string) (string, bool) {
	s, err := ab.rd.read(p)
	if err != nil {
		ab.add(fact, p, err)
		return "", false
	}
	return s, true
}

// readPolicy reads one cpufreq policy directory.
// cpufreqCommon is what every cpufreq policy shares: Linux registers one
// cpufreq driver (a single global cpufreq_driver), and the available
// governors are the registered ones (or a setpolicy driver's fixed pair, as
// intel_pstate's "performance powersave"), the same for every policy. They
// are read from the first policy only: 480 fewer files on a 240-CPU host.
type cpufreqCommon struct {
	read      bool
	driver    string
	governors []string
}

func readPolicy(ab *powerAbsences, dir string, common *cpufreqCommon) snapshot.CPUFreq {
	var f snapshot.CPUFreq
	if !common.read {
		common.read = true
		common.driver, _ = sysText(ab, "cpu_power.cpufreq.driver", dir+"/scaling_driver")
		if s, ok := sysText(ab, "cpu_power.cpufreq.available_governors", dir+"/scaling_available_governors"); ok {
			common.governors = strings.Fields(s)
		}
	}
	f.Driver, f.Governors = common.driver, common.governors
	f.Governor, _ = sysText(ab, "cpu_power.cpufreq.governor", dir+"/scaling_governor")
	f.MinKHz = sysUint(ab, "cpu_power.cpufreq.min_khz", dir+"/scaling_min_freq")
	f.MaxKHz = sysUint(ab, "cpu_power.cpufreq.max_khz", dir+"/scaling_max_freq")
	f.HWMinKHz = sysUint(ab, "cpu_power.cpufreq.hw_min_khz", dir+"/cpuinfo_min_freq")
	f.HWMaxKHz = sysUint(ab, "cpu_power.cpufreq.hw_max_khz", dir+"/cpuinfo_max_freq")
	// energy_performance_preference exists only with HWP (intel_pstate,
	// amd-pstate active): its absence elsewhere is normal and not recorded.
	if s, err := ab.rd.read(dir + "/energy_performance_preference"); err == nil {
		f.EPP = s
	} else if !errors.Is(err, fs.ErrNotExist) {
		ab.add("cpu_power.cpufreq.energy_performance_preference", dir+"/energy_performance_preference", err)
	}
	return f
}

func readIntelPstate(c *Collector) *snapshot.IntelPstate {
	if !c.Root.Exists(sysPstate) {
		c.AbsentReason("cpu_power.intel_pstate", sysPstate, "not present on this host (intel_pstate not in use)")
		return nil
	}
	ip := &snapshot.IntelPstate{}
	if s := c.String("cpu_power.intel_pstate.status", sysPstate+"/status"); s != nil {
		ip.Status = *s
	}
	ip.MinPerfPct = c.Int("cpu_power.intel_pstate.min_perf_pct", sysPstate+"/min_perf_pct")
	ip.MaxPerfPct = c.Int("cpu_power.intel_pstate.max_perf_pct", sysPstate+"/max_perf_pct")
	if v := c.Int("cpu_power.intel_pstate.no_turbo", sysPstate+"/no_turbo"); v != nil {
		b := *v != 0
		ip.NoTurbo = &b
	}
	return ip
}

// idleTable is what the first online CPU's cpuidle directory says about the
// kernel: which per-state files it has, and whether its state table is the
// cpuidle driver's, shared by every CPU.
//
// Since Linux 3.4 a state's name, desc, latency and residency are the
// driver's (drivers/cpuidle/sysfs.c shows drv->states[i] under every CPU's
// stateN); only disable, usage and time are per CPU. One driver serves every
// CPU unless the kernel has CONFIG_CPU_IDLE_MULTIPLE_DRIVERS, which adds
// cpuN/cpuidle/driver/. So when the first CPU has per-state disable (3.5+)
// and no driver directory, the table is read once and each other CPU's
// states are its disable files alone: ~2,000 fewer files on a 240-CPU host.
// On older kernels (RHEL 6's 2.6.32 keeps states per CPU, each from that
// CPU's ACPI _CST under acpi_idle) every CPU's table is read.
//
// A per-state file the first CPU lacks is a file the kernel lacks (the
// attributes are the same for every state and CPU), so it is not tried on
// the other CPUs: its absence is recorded once, with the kernel version
// that brought it (absentHints).
type idleTable struct {
	cpu                                           int                  // the CPU probed; -1 when none
	first                                         []snapshot.IdleState // its states
	global                                        bool                 // first is every CPU's table
	probing                                       bool
	hasDesc, hasResidency, hasDisable, hasDefault bool
}

// readIdleTable probes the first online CPU (see idleTable).
func readIdleTable(ab *powerAbsences, root Root, cpus []int) *idleTable {
	t := &idleTable{cpu: -1, hasDesc: true, hasResidency: true, hasDisable: true, hasDefault: true}
	if len(cpus) == 0 {
		return t
	}
	t.cpu, t.probing = cpus[0], true
	t.first = readIdleStates(ab, t.cpu, nil, t)
	t.probing = false
	dir := sysCPU + "/cpu" + strconv.Itoa(t.cpu) + "/cpuidle"
	t.global = len(t.first) > 0 && t.hasDisable && !root.Exists(dir+"/driver")
	once := "of CPU " + strconv.Itoa(t.cpu) + "; the kernel has no such file for any CPU, so the others were not tried"
	for f, has := range map[string]bool{"cpu_power.cpuidle.states.desc": t.hasDesc,
		"cpu_power.cpuidle.states.residency_us": t.hasResidency, "cpu_power.cpuidle.states.disabled": t.hasDisable,
		"cpu_power.cpuidle.states.default_disabled": t.hasDefault} {
		if !has {
			ab.note[f] = once
		}
	}
	if t.global {
		for _, f := range []string{"cpu_power.cpuidle.states.name", "cpu_power.cpuidle.states.latency_us",
			"cpu_power.cpuidle.states.desc", "cpu_power.cpuidle.states.residency_us", "cpu_power.cpuidle.states.default_disabled"} {
			if ab.note[f] == "" {
				ab.note[f] = "of the cpuidle driver's table, which every CPU shares"
			}
		}
	}
	return t
}

// statesOf returns one CPU's idle states: the probed CPU's as read, another
// CPU's as the shared table with its own disable files (falling back to a
// full read when its states do not match the table), or read in full.
func (t *idleTable) statesOf(ab *powerAbsences, id int, prev []snapshot.IdleState) []snapshot.IdleState {
	if id == t.cpu {
		return t.first
	}
	if t.global {
		if st, ok := t.disableOnly(ab, id); ok {
			return st
		}
	}
	if prev == nil {
		prev = t.first
	}
	return readIdleStates(ab, id, prev, t)
}

// disableOnly gives CPU id the shared table with its own disable values. ok
// is false when the CPU's states do not match the table (read it in full).
func (t *idleTable) disableOnly(ab *powerAbsences, id int) ([]snapshot.IdleState, bool) {
	idleDir := sysCPU + "/cpu" + strconv.Itoa(id) + "/cpuidle"
	ab.rd.enter(idleDir)
	defer ab.rd.leave()
	out := make([]snapshot.IdleState, len(t.first))
	for i, st := range t.first {
		p := idleDir + "/state" + strconv.Itoa(st.Index) + "/disable"
		st.Disabled = nil
		s, err := ab.rd.read(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && i == 0:
			return nil, true // no cpuidle device for this CPU
		case errors.Is(err, fs.ErrNotExist):
			return nil, false
		case err != nil:
			ab.add("cpu_power.cpuidle.states.disabled", p, err)
		default:
			if v, err := parseSysUint(s); err != nil {
				ab.add("cpu_power.cpuidle.states.disabled", p, err)
			} else {
				st.Disabled = nonZero(&v)
			}
		}
		out[i] = st
	}
	return out, true
}

// readIdleStates reads every C-state of one CPU. States are probed (state0,
// state1, ...) rather than listed, which saves a directory read per CPU.
// A state is kept with what could be read of it: name and latency are
// required (every kernel with cpuidle has them), desc, residency and
// disable are filled when the kernel has them (t) and left empty otherwise,
// each missing file recorded under its field's absence.
//
// desc and residency come from the same driver table entry as name and
// latency, so they are copied from the previous CPU's state (prev) when its
// name and latency are the same, and read otherwise (hybrid tables differ).
func readIdleStates(ab *powerAbsences, id int, prev []snapshot.IdleState, t *idleTable) []snapshot.IdleState {
	idleDir := sysCPU + "/cpu" + strconv.Itoa(id) + "/cpuidle"
	base := idleDir + "/state"
	ab.rd.enter(idleDir)
	defer ab.rd.leave()
	// missing records a file the kernel lacks; while probing, it also
	// remembers that the kernel lacks it.
	missing := func(fact, p string, err error, has *bool) {
		ab.add(fact, p, err)
		if t.probing && errors.Is(err, fs.ErrNotExist) {
			*has = false
		}
	}
	var states []snapshot.IdleState
	for i := 0; i < maxIdleStat; i++ {
		dir := base + strconv.Itoa(i)
		name, err := ab.rd.read(dir + "/name")
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			ab.add("cpu_power.cpuidle.states.name", dir+"/name", err)
			continue
		}
		st := snapshot.IdleState{Index: i, Name: name}
		lat := sysUint(ab, "cpu_power.cpuidle.states.latency_us", dir+"/latency")
		if lat == nil {
			continue // a state without its exit latency says nothing a rule can use; recorded above
		}
		st.LatencyUS = *lat
		if p := sameState(prev, i, name, *lat); p != nil {
			st.Desc, st.ResidencyUS, st.DefaultDisabled = p.Desc, p.ResidencyUS, p.DefaultDisabled
		} else {
			if t.hasDesc {
				if s, err := ab.rd.read(dir + "/desc"); err == nil {
					st.Desc = s
				} else {
					missing("cpu_power.cpuidle.states.desc", dir+"/desc", err, &t.hasDesc)
				}
			}
			if t.hasResidency {
				st.ResidencyUS = t.optUint(ab, "cpu_power.cpuidle.states.residency_us", dir+"/residency", &t.hasResidency)
			}
			if t.hasDefault {
				st.DefaultDisabled = t.optDefaultStatus(ab, dir+"/default_status")
			}
		}
		if t.hasDisable {
			st.Disabled = nonZero(t.optUint(ab, "cpu_power.cpuidle.states.disabled", dir+"/disable", &t.hasDisable))
		}
		states = append(states, st)
	}
	return states
}

// optUint reads a per-state integer file the kernel may lack: nil, with
// its absence, when it is missing or malformed; a file missing while the
// first CPU is probed is one the kernel lacks (*has = false).
func (t *idleTable) optUint(ab *powerAbsences, fact, p string, has *bool) *int64 {
	v, err := readSysUint(ab, fact, p)
	if t.probing && errors.Is(err, fs.ErrNotExist) {
		*has = false
	}
	return v
}

// optDefaultStatus reads stateN/default_status (Linux 5.6+): nil, with its
// absence, when it is missing or malformed (see optUint).
func (t *idleTable) optDefaultStatus(ab *powerAbsences, p string) *bool {
	const fact = "cpu_power.cpuidle.states.default_disabled"
	s, err := ab.rd.read(p)
	if err == nil {
		var off bool
		if off, err = parseDefaultStatus(s); err == nil {
			return &off
		}
	}
	ab.add(fact, p, err)
	if t.probing && errors.Is(err, fs.ErrNotExist) {
		t.hasDefault = false
	}
	return nil
}

// parseDefaultStatus parses stateN/default_status: "disabled" (true: the
// driver disables the state from boot) or "enabled" (drivers/cpuidle/sysfs.c
// prints one of the two and a newline).
func parseDefaultStatus(s string) (bool, error) {
	switch strings.TrimSpace(s) {
	case "disabled":
		return true, nil
	case "enabled":
		return false, nil
	}
	return false, parseErr(1, "expected \"enabled\" or \"disabled\", got %q", trunc(strings.TrimSpace(s), 40))
}

// nonZero is a flag file's value as a bool (nil stays nil).
func nonZero(v *int64) *bool {
	if v == nil {
		return nil
	}
	b := *v != 0
	return &b
}

// sameState returns prev's state of that index when it has the same name and latency.
func sameState(prev []snapshot.IdleState, index int, name string, latency int64) *snapshot.IdleState {
	for i := range prev {
		if prev[i].Index == index && prev[i].Name == name && prev[i].LatencyUS == latency {
			return &prev[i]
		}
	}
	return nil
}

// cmdlineLimits picks the C-/P-state arguments out of the parsed command
// line; nil when there are none.
func cmdlineLimits(args map[string]string) map[string]string {
	var out map[string]string
	for _, k := range cmdlinePowerArgs {
		if v, ok := args[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// summarizeByCPU gives the common value of a per-CPU map, or
// "mixed: A on CPUs 0-3; B on CPUs 4-7" ordered by first CPU.
func summarizeByCPU(vals map[int]string) string {
	byVal := map[string][]int{}
	for id, v := range vals {
		byVal[v] = append(byVal[v], id)
	}
	if len(byVal) == 1 {
		for v := range byVal {
			return v
		}
	}
	type group struct {
		v   string
		ids []int
	}
	gs := make([]group, 0, len(byVal))
	for v, ids := range byVal {
		sort.Ints(ids)
		gs = append(gs, group{v, ids})
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].ids[0] < gs[j].ids[0] })
	var b strings.Builder
	b.WriteString("mixed: ")
	for i, g := range gs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(g.v + " on CPUs " + cpulist.Format(g.ids))
	}
	return b.String()
}
