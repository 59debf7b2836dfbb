package facts

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// idleFiles writes one C-state of one CPU; an empty value leaves the file
// out, and default_status is written only when given (Linux 5.6+).
func idleFiles(files map[string]string, cpu, i int, name, desc, lat, res, dis string, def ...string) {
	d := "/sys/devices/system/cpu/cpu" + strconv.Itoa(cpu) + "/cpuidle/state" + strconv.Itoa(i) + "/"
	m := map[string]string{"name": name, "desc": desc, "latency": lat, "residency": res, "disable": dis}
	if len(def) > 0 {
		m["default_status"] = def[0]
	}
	for f, v := range m {
		if v != "" {
			files[d+f] = v + "\n"
		}
	}
}

// A hybrid CPU (same state names, other latencies) gets its own desc and
// residency; a CPU with the same table as the previous one reuses them.
func TestIdleStatesTableReuse(t *testing.T) {
	files := map[string]string{}
	idleFiles(files, 0, 0, "POLL", "CPUIDLE CORE POLL IDLE", "0", "0", "0")
	idleFiles(files, 0, 1, "C6", "MWAIT 0x20", "170", "600", "0")
	idleFiles(files, 1, 0, "POLL", "CPUIDLE CORE POLL IDLE", "0", "0", "0")
	idleFiles(files, 1, 1, "C6", "MWAIT 0x20", "170", "1", "0") // residency not read: the table is CPU 0's
	idleFiles(files, 2, 0, "POLL", "CPUIDLE CORE POLL IDLE", "0", "0", "0")
	idleFiles(files, 2, 1, "C6", "MWAIT 0x20 (E-core)", "220", "900", "0") // same name, other latency
	root := Root{Dir: topoTree(t, files)}
	ab := newPowerAbsences(newSysReader(root), 3)
	tbl := &idleTable{cpu: -1, hasDesc: true, hasResidency: true, hasDisable: true}
	var prev []snapshot.IdleState
	var got [][]snapshot.IdleState
	for cpu := 0; cpu < 3; cpu++ {
		st := readIdleStates(ab, cpu, prev, tbl)
		got, prev = append(got, st), st
	}
	if r := got[1][1].ResidencyUS; r == nil || *r != 600 || got[1][1].Desc != "MWAIT 0x20" {
		t.Errorf("cpu 1 C6 = %+v, want the table of cpu 0 reused", got[1][1])
	}
	if r := got[2][1].ResidencyUS; r == nil || *r != 900 || got[2][1].Desc != "MWAIT 0x20 (E-core)" || got[2][1].LatencyUS != 220 {
		t.Errorf("cpu 2 C6 = %+v, want its own table read", got[2][1])
	}
}

// idleCollector reads CPU power of n online CPUs laid out by files.
func idleCollector(t *testing.T, n int, files map[string]string) *Collector {
	files["/sys/devices/system/cpu/online"] = "0-" + strconv.Itoa(n-1) + "\n"
	files["/sys/devices/system/cpu/cpuidle/current_driver"] = "intel_idle\n"
	c := powerCollectorA(t, files, nil)
	readCPUPower(c)
	return c
}

// idleAbsences are the absences of cpuidle facts.
func idleAbsences(c *Collector) []snapshot.Absence {
	var out []snapshot.Absence
	for _, a := range c.Snap.Absent {
		if strings.HasPrefix(a.Fact, "cpu_power.cpuidle.") {
			out = append(out, a)
		}
	}
	return out
}

// One cpuidle driver, per-state disable (3.5+): the table is read from the
// first CPU only, and each other CPU contributes its disable files. A CPU
// whose states do not match the table is read in full.
func TestIdleStatesSharedTable(t *testing.T) {
	files := map[string]string{}
	for cpu := 0; cpu < 4; cpu++ {
		idleFiles(files, cpu, 0, "POLL", "CPUIDLE CORE POLL IDLE", "0", "0", "0", "enabled")
		idleFiles(files, cpu, 1, "C1", "MWAIT 0x00", "2", "2", "0", "enabled")
		idleFiles(files, cpu, 2, "C6", "MWAIT 0x20", "133", "600", map[bool]string{true: "1", false: "0"}[cpu == 1], "enabled")
	}
	// Were CPU 1's table files read, these would show.
	idleFiles(files, 1, 2, "C6-other", "other", "999", "999", "1")
	// CPU 3 lacks state2: not the table, read in full.
	for _, f := range []string{"name", "desc", "latency", "residency", "disable", "default_status"} {
		delete(files, "/sys/devices/system/cpu/cpu3/cpuidle/state2/"+f)
	}
	c := idleCollector(t, 4, files)
	p := c.Snap.CPUPower
	if len(p.Cpuidle) != 4 || len(idleAbsences(c)) != 0 {
		t.Fatalf("cpuidle = %+v absences %+v", p.Cpuidle, idleAbsences(c))
	}
	c6 := p.Cpuidle[1].States[2]
	if c6.Name != "C6" || c6.LatencyUS != 133 || *c6.ResidencyUS != 600 || !*c6.Disabled || !c6.OffAtRunTime() {
		t.Errorf("cpu1 C6 = %+v, want the shared table with cpu1's disable", c6)
	}
	if d := p.Cpuidle[2].States[2].Disabled; d == nil || *d {
		t.Errorf("cpu2 C6 disabled = %v", d)
	}
	if n := len(p.Cpuidle[3].States); n != 2 {
		t.Errorf("cpu3 states = %+v", p.Cpuidle[3].States)
	}
	// The states are separate values: one CPU's disable is not another's.
	if p.Cpuidle[0].States[2].Disabled == p.Cpuidle[2].States[2].Disabled {
		t.Error("CPUs share a Disabled pointer")
	}
}

// RHEL 6 (2.6.32): name, desc, latency, usage, time and power only. Every
// CPU's states are kept; residency and disabled are null, each absence
// recorded once with the kernel version that brought the file.
func TestIdleStatesRHEL6(t *testing.T) {
	files := map[string]string{}
	for cpu := 0; cpu < 4; cpu++ {
		idleFiles(files, cpu, 0, "POLL", "CPUIDLE CORE POLL IDLE", "0", "", "")
		idleFiles(files, cpu, 1, "C1", "MWAIT 0x00", "3", "", "")
		idleFiles(files, cpu, 2, "C3", "MWAIT 0x10", "20", "", "")
	}
	c := idleCollector(t, 4, files)
	p := c.Snap.CPUPower
	if len(p.Cpuidle) != 4 {
		t.Fatalf("cpuidle = %+v", p.Cpuidle)
	}
	for _, ci := range p.Cpuidle {
		if len(ci.States) != 3 || ci.States[2].Name != "C3" || ci.States[2].LatencyUS != 20 || ci.States[2].Desc != "MWAIT 0x10" ||
			ci.States[2].ResidencyUS != nil || ci.States[2].Disabled != nil {
			t.Errorf("cpu %d states = %+v", ci.CPU, ci.States)
		}
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.disabled"); a == nil || !strings.Contains(a.Reason, "Linux 3.5+") ||
		!strings.Contains(a.Reason, "in 1 file of CPU 0;") || !strings.Contains(a.Reason, "intel_idle.max_cstate") {
		t.Errorf("disabled absence = %+v", a)
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.residency_us"); a == nil || !strings.Contains(a.Reason, "Linux 3.15+") {
		t.Errorf("residency absence = %+v", a)
	}
	if a := absenceA(c, "cpu_power.cpuidle"); a != nil {
		t.Errorf("cpuidle said absent: %+v", a)
	}
}

// RHEL 7 (3.10): per-state disable but no residency. The table is shared:
// read once, and every CPU's disable read.
func TestIdleStatesRHEL7(t *testing.T) {
	files := map[string]string{}
	for cpu := 0; cpu < 4; cpu++ {
		idleFiles(files, cpu, 0, "POLL", "CPUIDLE CORE POLL IDLE", "0", "", "0")
		idleFiles(files, cpu, 1, "C1-HSW", "MWAIT 0x00", "2", "", "0")
		idleFiles(files, cpu, 2, "C6-HSW", "MWAIT 0x20", "133", "", map[bool]string{true: "1", false: "0"}[cpu == 3])
	}
	c := idleCollector(t, 4, files)
	p := c.Snap.CPUPower
	if len(p.Cpuidle) != 4 || !*p.Cpuidle[3].States[2].Disabled || *p.Cpuidle[2].States[2].Disabled || p.Cpuidle[3].States[2].ResidencyUS != nil {
		t.Fatalf("cpuidle = %+v", p.Cpuidle)
	}
	if len(idleAbsences(c)) != 2 { // residency (3.15) and default_status (5.6)
		t.Errorf("absences = %+v", idleAbsences(c))
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.default_disabled"); a == nil || !strings.Contains(a.Reason, "Linux 5.6+") || !strings.Contains(a.Reason, "in 1 file of CPU 0;") {
		t.Errorf("default_status absence = %+v", a)
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.residency_us"); a == nil || !strings.Contains(a.Reason, "RHEL 7") || !strings.Contains(a.Reason, "in 1 file of CPU 0;") {
		t.Errorf("residency absence = %+v", a)
	}
}

// Linux 5.6+: stateN/default_status tells a state the driver disables from
// boot (intel_idle.states_off) from one disabled at run time. It is the
// driver's, read once with the shared table; a malformed file is an
// absence of that field only.
func TestIdleStatesDefaultStatus(t *testing.T) {
	files := map[string]string{}
	for cpu := 0; cpu < 3; cpu++ {
		idleFiles(files, cpu, 0, "POLL", "CPUIDLE CORE POLL IDLE", "0", "0", "0", "enabled")
		idleFiles(files, cpu, 1, "C1", "MWAIT 0x00", "2", "2", "0", "enabled")
		// C6 off from boot on every CPU (states_off=4), except CPU 2 where
		// someone enabled it again at run time.
		idleFiles(files, cpu, 2, "C6", "MWAIT 0x20", "133", "600", map[bool]string{true: "0", false: "1"}[cpu == 2], "disabled")
		idleFiles(files, cpu, 3, "C8", "MWAIT 0x40", "400", "1000", "1", "enabled") // off at run time
	}
	c := idleCollector(t, 3, files)
	p := c.Snap.CPUPower
	if len(p.Cpuidle) != 3 || len(idleAbsences(c)) != 0 {
		t.Fatalf("cpuidle = %+v absences %+v", p.Cpuidle, idleAbsences(c))
	}
	for _, ci := range p.Cpuidle {
		c6, c8 := ci.States[2], ci.States[3]
		if c6.DefaultDisabled == nil || !*c6.DefaultDisabled || c6.OffAtRunTime() || c6.Off() == (ci.CPU == 2) {
			t.Errorf("cpu %d C6 = %+v", ci.CPU, c6)
		}
		if c8.DefaultDisabled == nil || *c8.DefaultDisabled || !c8.OffAtRunTime() {
			t.Errorf("cpu %d C8 = %+v", ci.CPU, c8)
		}
	}
	files["/sys/devices/system/cpu/cpu0/cpuidle/state3/default_status"] = "maybe\n"
	c = idleCollector(t, 3, files)
	if a := absenceA(c, "cpu_power.cpuidle.states.default_disabled"); a == nil || !strings.Contains(a.Reason, `expected "enabled" or "disabled", got "maybe"`) {
		t.Errorf("malformed default_status: %+v", idleAbsences(c))
	}
	if st := c.Snap.CPUPower.Cpuidle[0].States[3]; st.DefaultDisabled != nil || st.Disabled == nil {
		t.Errorf("malformed default_status cost more than its field: %+v", st)
	}
}

// FuzzParseDefaultStatus: a value the kernel prints (with the fuzzer's
// surrounding whitespace) parses back to the flag it was printed from;
// anything else is a *ParseError.
func FuzzParseDefaultStatus(f *testing.F) {
	f.Add(true, " ", "\n", "")
	f.Fuzz(func(t *testing.T, off bool, pre, post, other string) {
		word := map[bool]string{true: "disabled", false: "enabled"}[off]
		if strings.TrimSpace(pre) == "" && strings.TrimSpace(post) == "" {
			if got, err := parseDefaultStatus(pre + word + post); err != nil || got != off {
				t.Fatalf("parseDefaultStatus(%q) = %v, %v", pre+word+post, got, err)
			}
		}
		got, err := parseDefaultStatus(other)
		if w := strings.TrimSpace(other); w != "enabled" && w != "disabled" {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("parseDefaultStatus(%q) = %v, %v", other, got, err)
			}
		} else if err != nil || got != (w == "disabled") {
			t.Fatalf("parseDefaultStatus(%q) = %v, %v", other, got, err)
		}
	})
}
