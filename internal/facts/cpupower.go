package facts

import (
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("cpupower", StageSources, readCPUPower) }

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
// parsed kernel command line is available. Per-CPU files are read once each;
// failures of the same file on many CPUs are recorded as one absence.
func readCPUPower(c *Collector) {
	p := &c.Snap.CPUPower
	cpus := powerCPUs(c)
	ab := newPowerAbsences(newSysReader(c.Root), len(cpus))
	p.Cpufreq = readCpufreq(c, cpus, ab)
	p.IntelPstate = readIntelPstate(c)
	p.CpuidleDriver = c.String("cpu_power.cpuidle_driver", sysCPUIdle+"/current_driver")
	if s, err := c.Root.ReadString(sysCPUIdle + "/current_governor"); err == nil {
		p.CpuidleGovernor = &s
	} else if s, err2 := c.Root.ReadString(sysCPUIdle + "/current_governor_ro"); err2 == nil {
		p.CpuidleGovernor = &s
	} else {
		c.Absent("cpu_power.cpuidle_governor", sysCPUIdle+"/current_governor", err)
	}
	p.Cpuidle = readCpuidle(c, cpus, p.CpuidleDriver, ab)
	if c.Snap.Host.Cmdline == "" && c.IsAbsent("host.cmdline") {
		c.AbsentReason("cpu_power.cmdline_limits", "/proc/cmdline", "kernel command line unknown (see host.cmdline)")
	} else {
		p.CmdlineLimits = cmdlineLimits(c.Snap.Host.CmdlineArgs)
	}
	p.EnergyPerfBias = readEPB(c, ab.rd, cpus)
	ab.flush(c)
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
// absence: "not present on this host (240 of 240 CPUs)".
type powerAbsences struct {
	rd    *sysReader
	total int
	facts map[string]*powerAbsence
	order []string
}

type powerAbsence struct {
	n    int
	path string
	err  error
}

func newPowerAbsences(rd *sysReader, total int) *powerAbsences {
	return &powerAbsences{rd: rd, total: total, facts: map[string]*powerAbsence{}}
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

func (a *powerAbsences) flush(c *Collector) {
	for _, f := range a.order {
		e := a.facts[f]
		c.AbsentReason(f, e.path, Reason(e.err)+" ("+strconv.Itoa(e.n)+" of "+strconv.Itoa(a.total)+" CPUs; "+e.path+" is the first)")
	}
}

// sysReader reads small host files (sysfs attributes, regular files of a
// captured tree) with open, read and close only. os.ReadFile also stats the file, sets it non-blocking and
// registers it with the poller: on a 240-CPU tree that costs more than the
// reads themselves. The buffer is reused across files.
type sysReader struct {
	root Root
	buf  []byte
}

func newSysReader(root Root) *sysReader { return &sysReader{root: root, buf: make([]byte, 4096)} }

// read returns the file's content with surrounding whitespace trimmed. Errors
// are *fs.PathError wrapping the errno, as os.ReadFile returns them.
func (r *sysReader) read(p string) (string, error) {
	full := r.root.Path(p)
	var fd int
	var err error
	for {
		fd, err = syscall.Open(full, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return "", &fs.PathError{Op: "open", Path: full, Err: err}
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := syscall.Read(fd, r.buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			syscall.Close(fd)
			return "", &fs.PathError{Op: "read", Path: full, Err: err}
		}
		if m <= 0 {
			break
		}
		n += m
		if n < len(r.buf) {
			// A short read of a regular file, a sysfs attribute (one record
			// of at most a page, all of it in the first read) or a /proc/sys
			// value is the end: skip the read that would return 0, a third
			// of the cost. Not so for seq_file /proc files of many records
			// (/proc/vmstat, /proc/sysvipc/shm), which may return short reads
			// before the end: do not read those with sysReader.
			break
		}
	}
	syscall.Close(fd)
	return strings.TrimSpace(string(r.buf[:n])), nil
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
func sysUint(c *Collector, ab *powerAbsences, fact, p string) *int64 {
	s, err := ab.rd.read(p)
	if err == nil {
		var v int64
		if v, err = parseSysUint(s); err == nil {
			return &v
		}
	}
	ab.add(fact, p, err)
	return nil
}

// sysText reads a one-line sysfs file; on failure it folds the absence into ab.
func sysText(c *Collector, ab *powerAbsences, fact, p string) (string, bool) {
	s, err := ab.rd.read(p)
	if err != nil {
		ab.add(fact, p, err)
		return "", false
	}
	return s, true
}

// readPolicy reads one cpufreq policy directory.
func readPolicy(c *Collector, ab *powerAbsences, dir string) snapshot.CPUFreq {
	var f snapshot.CPUFreq
	f.Driver, _ = sysText(c, ab, "cpu_power.cpufreq.driver", dir+"/scaling_driver")
	f.Governor, _ = sysText(c, ab, "cpu_power.cpufreq.governor", dir+"/scaling_governor")
	if s, ok := sysText(c, ab, "cpu_power.cpufreq.available_governors", dir+"/scaling_available_governors"); ok {
		f.Governors = strings.Fields(s)
	}
	f.MinKHz = sysUint(c, ab, "cpu_power.cpufreq.min_khz", dir+"/scaling_min_freq")
	f.MaxKHz = sysUint(c, ab, "cpu_power.cpufreq.max_khz", dir+"/scaling_max_freq")
	f.CurKHz = sysUint(c, ab, "cpu_power.cpufreq.cur_khz", dir+"/scaling_cur_freq")
	f.HWMinKHz = sysUint(c, ab, "cpu_power.cpufreq.hw_min_khz", dir+"/cpuinfo_min_freq")
	f.HWMaxKHz = sysUint(c, ab, "cpu_power.cpufreq.hw_max_khz", dir+"/cpuinfo_max_freq")
	// energy_performance_preference exists only with HWP (intel_pstate,
	// amd-pstate active): its absence elsewhere is normal and not recorded.
	if s, err := ab.rd.read(dir + "/energy_performance_preference"); err == nil {
		f.EPP = s
	} else if !errors.Is(err, fs.ErrNotExist) {
		ab.add("cpu_power.cpufreq.energy_performance_preference", dir+"/energy_performance_preference", err)
	}
	return f
}

// readCpufreq reads the cpufreq policies: the policyN directories of
// /sys/devices/system/cpu/cpufreq (Linux 4.3+; each read once and given to
// the online CPUs it covers), else the per-CPU cpuN/cpufreq directories.
func readCpufreq(c *Collector, cpus []int, ab *powerAbsences) []snapshot.CPUFreq {
	online := map[int]bool{}
	for _, id := range cpus {
		online[id] = true
	}
	var out []snapshot.CPUFreq
	names, _ := c.Root.ReadDirNames(sysCPUFreq)
	policies := numberedEntries(names, "policy")
	covered := map[int]bool{}
	for _, pid := range policies {
		dir := sysCPUFreq + "/policy" + strconv.Itoa(pid)
		var members []int
		s, err := ab.rd.read(dir + "/affected_cpus")
		if err == nil {
			members, err = cpulist.Parse(strings.Join(strings.Fields(s), ","))
		}
		if err != nil {
			members = []int{pid} // the policy is named after its first CPU
		}
		var mine []int
		for _, id := range members {
			if online[id] && !covered[id] {
				mine = append(mine, id)
			}
		}
		if len(mine) == 0 {
			continue // an inactive policy (all its CPUs offline)
		}
		f := readPolicy(c, ab, dir)
		for _, id := range mine {
			covered[id] = true
			g := f
			g.CPU = id
			out = append(out, g)
		}
	}
	if len(policies) == 0 {
		for _, id := range cpus {
			dir := sysCPU + "/cpu" + strconv.Itoa(id) + "/cpufreq"
			if !c.Root.Exists(dir) {
				continue
			}
			f := readPolicy(c, ab, dir)
			f.CPU = id
			covered[id] = true
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		c.AbsentReason("cpu_power.cpufreq", sysCPUFreq, "not present on this host: no cpufreq policy (no frequency scaling driver, common in VMs)")
		return nil
	}
	if missing := len(cpus) - len(covered); missing > 0 {
		c.AbsentReason("cpu_power.cpufreq", sysCPUFreq, strconv.Itoa(missing)+" online CPUs have no cpufreq policy")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CPU < out[j].CPU })
	return out
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

// readCpuidle reads every C-state of every online CPU. States are probed
// (state0, state1, ...) rather than listed, which saves a directory read per CPU.
func readCpuidle(c *Collector, cpus []int, driver *string, ab *powerAbsences) []snapshot.CPUIdle {
	var out []snapshot.CPUIdle
	without := 0
	firstMissing := ""
	for _, id := range cpus {
		base := sysCPU + "/cpu" + strconv.Itoa(id) + "/cpuidle/state"
		var states []snapshot.IdleState
		for i := 0; i < maxIdleStat; i++ {
			dir := base + strconv.Itoa(i)
			name, err := ab.rd.read(dir + "/name")
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil {
				ab.add("cpu_power.cpuidle.states", dir+"/name", err)
				continue
			}
			st := snapshot.IdleState{Index: i, Name: name}
			if s, err := ab.rd.read(dir + "/desc"); err == nil {
				st.Desc = s
			} else {
				ab.add("cpu_power.cpuidle.desc", dir+"/desc", err)
			}
			lat := sysUint(c, ab, "cpu_power.cpuidle.states", dir+"/latency")
			res := sysUint(c, ab, "cpu_power.cpuidle.states", dir+"/residency")
			if lat == nil || res == nil {
				continue // a state without its latency is no use; recorded above
			}
			st.LatencyUS, st.ResidencyUS = *lat, *res
			// "disable" appeared in Linux 3.9; older kernels cannot disable states.
			if d := sysUint(c, ab, "cpu_power.cpuidle.disable", dir+"/disable"); d != nil {
				st.Disabled = *d != 0
			}
			states = append(states, st)
		}
		if len(states) == 0 {
			if without == 0 {
				firstMissing = sysCPU + "/cpu" + strconv.Itoa(id) + "/cpuidle"
			}
			without++
			continue
		}
		out = append(out, snapshot.CPUIdle{CPU: id, States: states})
	}
	if without > 0 {
		reason := "not present on this host: no cpuidle states"
		if driver != nil {
			reason += " (cpuidle driver " + strconv.Quote(*driver) + ")"
		}
		if len(out) > 0 {
			reason = strconv.Itoa(without) + " of " + strconv.Itoa(len(cpus)) + " online CPUs have no cpuidle states"
		}
		c.AbsentReason("cpu_power.cpuidle", firstMissing, reason)
	}
	return out
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

// readEPB reads cpuN/power/energy_perf_bias (x86, Linux 5.2+) of the online
// CPUs: the value when all agree, else a summary such as
// "mixed: 6 on CPUs 0-3; 0 on CPUs 4-7".
func readEPB(c *Collector, rd *sysReader, cpus []int) *string {
	if len(cpus) == 0 {
		c.AbsentReason("cpu_power.energy_perf_bias", sysCPU+"/online", "no online CPUs known")
		return nil
	}
	vals := make(map[int]string, len(cpus))
	for i, id := range cpus {
		p := sysCPU + "/cpu" + strconv.Itoa(id) + "/power/energy_perf_bias"
		s, err := rd.read(p)
		if err != nil {
			if i == 0 {
				c.Absent("cpu_power.energy_perf_bias", p, err)
				return nil
			}
			s = "unreadable"
		}
		vals[id] = s
	}
	s := summarizeByCPU(vals)
	return &s
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
