package facts

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

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
