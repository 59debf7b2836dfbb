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
