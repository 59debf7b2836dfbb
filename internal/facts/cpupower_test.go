package facts

import (
	"errors"
	"io/fs"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// powerTreeA builds an Intel host with n online CPUs: intel_pstate with one
// policy per CPU, and three C-states per CPU (C6 disabled on CPU 1).
func powerTreeA(n int, perCPUPolicy bool) map[string]string {
	files := map[string]string{
		"/sys/devices/system/cpu/online":                    "0-" + strconv.Itoa(n-1) + "\n",
		"/sys/devices/system/cpu/intel_pstate/status":       "active\n",
		"/sys/devices/system/cpu/intel_pstate/min_perf_pct": "100\n",
		"/sys/devices/system/cpu/intel_pstate/max_perf_pct": "100\n",
		"/sys/devices/system/cpu/intel_pstate/no_turbo":     "0\n",
		"/sys/devices/system/cpu/cpuidle/current_driver":    "intel_idle\n",
		"/sys/devices/system/cpu/cpuidle/current_governor":  "menu\n",
	}
	for id := 0; id < n; id++ {
		cs := strconv.Itoa(id)
		dir := "/sys/devices/system/cpu/cpufreq/policy" + cs
		if !perCPUPolicy {
			dir = "/sys/devices/system/cpu/cpu" + cs + "/cpufreq"
		} else {
			files[dir+"/affected_cpus"] = cs + "\n"
			files[dir+"/related_cpus"] = cs + "\n"
		}
		files[dir+"/scaling_driver"] = "intel_pstate\n"
		files[dir+"/scaling_governor"] = "performance\n"
		files[dir+"/scaling_available_governors"] = "performance powersave\n"
		files[dir+"/scaling_min_freq"] = "1000000\n"
		files[dir+"/scaling_max_freq"] = "3500000\n"
		files[dir+"/scaling_cur_freq"] = strconv.Itoa(2000000+id) + "\n"
		files[dir+"/cpuinfo_min_freq"] = "1000000\n"
		files[dir+"/cpuinfo_max_freq"] = "3500000\n"
		files[dir+"/energy_performance_preference"] = "performance\n"
		files["/sys/devices/system/cpu/cpu"+cs+"/power/energy_perf_bias"] = "0\n"
		for i, st := range []struct{ name, desc, lat, res string }{
			{"POLL", "CPUIDLE CORE POLL IDLE", "0", "0"},
			{"C1", "MWAIT 0x00", "2", "2"},
			{"C6", "MWAIT 0x20", "133", "600"},
		} {
			sd := "/sys/devices/system/cpu/cpu" + cs + "/cpuidle/state" + strconv.Itoa(i)
			files[sd+"/name"] = st.name + "\n"
			files[sd+"/desc"] = st.desc + "\n"
			files[sd+"/latency"] = st.lat + "\n"
			files[sd+"/residency"] = st.res + "\n"
			dis := "0\n"
			if id == 1 && st.name == "C6" {
				dis = "1\n"
			}
			files[sd+"/disable"] = dis
			files[sd+"/default_status"] = "enabled\n"
		}
	}
	return files
}

func powerCollectorA(t testing.TB, files map[string]string, cmdline map[string]string) *Collector {
	c := collectorA(fakeRootA(t, files))
	c.Snap.Host.CmdlineArgs = cmdline
	c.Snap.Host.Cmdline = "x"
	return c
}

func TestReadCPUPower(t *testing.T) {
	for _, perPolicy := range []bool{true, false} {
		c := powerCollectorA(t, powerTreeA(4, perPolicy), map[string]string{"intel_idle.max_cstate": "1", "processor.max_cstate": "1", "quiet": "", "idle": "poll"})
		readCPUPower(c)
		p := c.Snap.CPUPower
		if len(c.Snap.Absent) != 0 {
			t.Errorf("perPolicy=%v: absences %+v", perPolicy, c.Snap.Absent)
		}
		if len(p.Cpufreq) != 4 {
			t.Fatalf("perPolicy=%v: cpufreq = %+v", perPolicy, p.Cpufreq)
		}
		want := snapshot.CPUFreq{CPU: 2, Driver: "intel_pstate", Governor: "performance", Governors: []string{"performance", "powersave"},
			MinKHz: i64A(1000000), MaxKHz: i64A(3500000), HWMinKHz: i64A(1000000), HWMaxKHz: i64A(3500000), EPP: "performance"}
		if !reflect.DeepEqual(p.Cpufreq[2], want) {
			t.Errorf("perPolicy=%v: cpu2 cpufreq = %+v\nwant %+v", perPolicy, p.Cpufreq[2], want)
		}
		ip := p.IntelPstate
		if ip == nil || ip.Status != "active" || *ip.MinPerfPct != 100 || *ip.MaxPerfPct != 100 || *ip.NoTurbo {
			t.Errorf("intel_pstate = %+v", ip)
		}
		if p.CpuidleDriver == nil || *p.CpuidleDriver != "intel_idle" || p.CpuidleGovernor == nil || *p.CpuidleGovernor != "menu" {
			t.Errorf("cpuidle driver/governor = %v %v", p.CpuidleDriver, p.CpuidleGovernor)
		}
		if len(p.Cpuidle) != 4 || p.Cpuidle[1].CPU != 1 || len(p.Cpuidle[1].States) != 3 {
			t.Fatalf("cpuidle = %+v", p.Cpuidle)
		}
		c6 := p.Cpuidle[1].States[2]
		if !reflect.DeepEqual(c6, snapshot.IdleState{Index: 2, Name: "C6", Desc: "MWAIT 0x20", LatencyUS: 133, ResidencyUS: i64A(600), Disabled: boolA(true), DefaultDisabled: boolA(false)}) {
			t.Errorf("cpu1 C6 = %+v", c6)
		}
		if d := p.Cpuidle[0].States[2].Disabled; d == nil || *d {
			t.Errorf("cpu0 C6 disabled = %v", d)
		}
		wantLimits := map[string]string{"intel_idle.max_cstate": "1", "processor.max_cstate": "1", "idle": "poll"}
		if !reflect.DeepEqual(p.CmdlineLimits, wantLimits) {
			t.Errorf("cmdline limits = %v", p.CmdlineLimits)
		}
		if p.EnergyPerfBias == nil || *p.EnergyPerfBias != "0" {
			t.Errorf("epb = %v", p.EnergyPerfBias)
		}
	}
}

// A policy shared by several CPUs is read once and given to each online CPU;
// CPUs that are offline get nothing.
func TestReadCpufreqSharedPolicy(t *testing.T) {
	files := powerTreeA(4, true)
	for _, id := range []string{"1", "2", "3"} {
		for k := range files {
			if strings.HasPrefix(k, "/sys/devices/system/cpu/cpufreq/policy"+id+"/") {
				delete(files, k)
			}
		}
	}
	files["/sys/devices/system/cpu/cpufreq/policy0/affected_cpus"] = "0 1 2\n"
	files["/sys/devices/system/cpu/cpufreq/policy0/related_cpus"] = "0 1 2 3\n"
	files["/sys/devices/system/cpu/cpufreq/policy0/scaling_driver"] = "acpi-cpufreq\n"
	delete(files, "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference")
	files["/sys/devices/system/cpu/online"] = "0-2\n"
	c := powerCollectorA(t, files, nil)
	readCPUPower(c)
	fq := c.Snap.CPUPower.Cpufreq
	if len(fq) != 3 || fq[0].CPU != 0 || fq[2].CPU != 2 || fq[2].Driver != "acpi-cpufreq" || fq[1].EPP != "" {
		t.Errorf("shared policy = %+v", fq)
	}
	if a := absenceA(c, "cpu_power.cpufreq"); a != nil {
		t.Errorf("unexpected absence %+v", a)
	}
	if a := absenceA(c, "cpu_power.cpufreq.energy_performance_preference"); a != nil {
		t.Errorf("missing EPP file (no HWP) should not be an absence: %+v", a)
	}
	if len(c.Snap.CPUPower.Cpuidle) != 3 {
		t.Errorf("cpuidle for offline CPU read: %+v", c.Snap.CPUPower.Cpuidle)
	}
}

// This machine's shape: an empty cpufreq dir, cpuidle driver "none" and no
// per-CPU cpuidle, no intel_pstate, no EPB.
func TestReadCPUPowerVM(t *testing.T) {
	c := powerCollectorA(t, map[string]string{
		"/sys/devices/system/cpu/online":                      "0-1\n",
		"/sys/devices/system/cpu/cpufreq/":                    "",
		"/sys/devices/system/cpu/cpu0/topology/core_id":       "0\n",
		"/sys/devices/system/cpu/cpu1/topology/core_id":       "1\n",
		"/sys/devices/system/cpu/cpuidle/current_driver":      "none\n",
		"/sys/devices/system/cpu/cpuidle/current_governor_ro": "menu\n",
	}, map[string]string{"console": "ttyS0"})
	readCPUPower(c)
	p := c.Snap.CPUPower
	if p.Cpufreq != nil || p.Cpuidle != nil || p.IntelPstate != nil || p.CmdlineLimits != nil || p.EnergyPerfBias != nil {
		t.Errorf("VM power = %+v", p)
	}
	if p.CpuidleDriver == nil || *p.CpuidleDriver != "none" || p.CpuidleGovernor == nil || *p.CpuidleGovernor != "menu" {
		t.Errorf("driver %v governor %v", p.CpuidleDriver, p.CpuidleGovernor)
	}
	n := 0
	for _, a := range c.Snap.Absent {
		if strings.HasPrefix(a.Fact, "cpu_power.cpufreq") {
			n++
		}
	}
	if a := absenceA(c, "cpu_power.cpufreq"); n != 1 || a == nil || !strings.Contains(a.Reason, "not present") {
		t.Errorf("want exactly one cpufreq absence, got %d: %+v", n, c.Snap.Absent)
	}
	if a := absenceA(c, "cpu_power.cpuidle"); a == nil || !strings.Contains(a.Reason, `"none"`) {
		t.Errorf("cpuidle absence = %+v", a)
	}
	for _, f := range []string{"cpu_power.intel_pstate", "cpu_power.energy_perf_bias"} {
		if absenceA(c, f) == nil {
			t.Errorf("no absence for %s", f)
		}
	}
	if len(c.Snap.Absent) != 4 {
		t.Errorf("absences = %+v", c.Snap.Absent)
	}
}

// Malformed and unreadable per-CPU files: folded into one absence per fact,
// with the count; what could be read is kept.
func TestReadCPUPowerMalformed(t *testing.T) {
	files := powerTreeA(4, true)
	for id := 0; id < 4; id++ {
		cs := strconv.Itoa(id)
		files["/sys/devices/system/cpu/cpufreq/policy"+cs+"/scaling_max_freq"] = "<unknown>\n"
	}
	// Unreadable: directories in place of files.
	delete(files, "/sys/devices/system/cpu/cpufreq/policy1/scaling_governor")
	files["/sys/devices/system/cpu/cpufreq/policy1/scaling_governor/"] = ""
	// A table per CPU (a kernel with CONFIG_CPU_IDLE_MULTIPLE_DRIVERS), so
	// every CPU's states are read and their faults seen.
	for id := 0; id < 4; id++ {
		files["/sys/devices/system/cpu/cpu"+strconv.Itoa(id)+"/cpuidle/driver/name"] = "intel_idle\n"
	}
	delete(files, "/sys/devices/system/cpu/cpu2/cpuidle/state1/name")
	files["/sys/devices/system/cpu/cpu2/cpuidle/state1/name/"] = ""
	files["/sys/devices/system/cpu/cpu3/cpuidle/state2/latency"] = "-5\n"
	// No residency (a kernel before 3.15: a state without it is still a
	// state), and a malformed disable on CPU 2.
	for id := 0; id < 4; id++ {
		for i := 0; i < 3; i++ {
			delete(files, "/sys/devices/system/cpu/cpu"+strconv.Itoa(id)+"/cpuidle/state"+strconv.Itoa(i)+"/residency")
		}
	}
	files["/sys/devices/system/cpu/cpu2/cpuidle/state2/disable"] = "y\n"
	files["/sys/devices/system/cpu/intel_pstate/no_turbo"] = "yes\n"
	files["/sys/devices/system/cpu/cpu3/power/energy_perf_bias"] = "6\n"
	c := powerCollectorA(t, files, nil)
	readCPUPower(c)
	p := c.Snap.CPUPower
	if len(p.Cpufreq) != 4 || p.Cpufreq[0].MaxKHz != nil || p.Cpufreq[0].MinKHz == nil || p.Cpufreq[1].Governor != "" || p.Cpufreq[2].Governor != "performance" {
		t.Errorf("cpufreq = %+v", p.Cpufreq)
	}
	if a := absenceA(c, "cpu_power.cpufreq.max_khz"); a == nil || !strings.Contains(a.Reason, "malformed") || !strings.Contains(a.Reason, "in 4 files across 4 online CPUs") {
		t.Errorf("max_khz absence = %+v", a)
	}
	if a := absenceA(c, "cpu_power.cpufreq.governor"); a == nil || !strings.Contains(a.Reason, "in 1 file across 4 online CPUs") || !strings.Contains(a.Path, "policy1") {
		t.Errorf("governor absence = %+v", a)
	}
	if got := len(p.Cpuidle[2].States); got != 2 || p.Cpuidle[2].States[1].Name != "C6" {
		t.Errorf("cpu2 states = %+v", p.Cpuidle[2].States)
	}
	if got := len(p.Cpuidle[3].States); got != 2 {
		t.Errorf("cpu3 states = %+v", p.Cpuidle[3].States)
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.name"); a == nil || !strings.Contains(a.Reason, "in 1 file across 4 online CPUs") {
		t.Errorf("name absence = %+v", a)
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.latency_us"); a == nil || !strings.Contains(a.Reason, "in 1 file across 4 online CPUs") {
		t.Errorf("latency absence = %+v", a)
	}
	if got := p.Cpuidle[1].States; len(got) != 3 || got[2].ResidencyUS != nil || got[2].Disabled == nil || !*got[2].Disabled {
		t.Errorf("cpu1 states = %+v", got)
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.residency_us"); a == nil || !strings.Contains(a.Reason, "Linux 3.15+") || !strings.Contains(a.Reason, "in 1 file of CPU 0;") {
		t.Errorf("residency absence = %+v", a)
	}
	if got := p.Cpuidle[2].States; got[1].Disabled != nil || got[1].Name != "C6" {
		t.Errorf("cpu2 states = %+v", got)
	}
	if a := absenceA(c, "cpu_power.cpuidle.states.disabled"); a == nil || !strings.Contains(a.Reason, "malformed") || !strings.Contains(a.Reason, "in 1 file across 4") {
		t.Errorf("disable absence = %+v", a)
	}
	if p.IntelPstate == nil || p.IntelPstate.NoTurbo != nil || absenceA(c, "cpu_power.intel_pstate.no_turbo") == nil {
		t.Errorf("no_turbo = %+v", p.IntelPstate)
	}
	if p.EnergyPerfBias == nil || *p.EnergyPerfBias != "mixed: 0 on CPUs 0-2; 6 on CPUs 3" {
		t.Errorf("epb = %v", p.EnergyPerfBias)
	}
}

func TestReadCPUPowerNoCmdline(t *testing.T) {
	c := collectorA(fakeRootA(t, powerTreeA(1, true)))
	c.AbsentReason("host.cmdline", "/proc/cmdline", "not present on this host")
	readCPUPower(c)
	if a := absenceA(c, "cpu_power.cmdline_limits"); a == nil {
		t.Errorf("no absence for unknown command line")
	}
}

func TestSummarizeByCPU(t *testing.T) {
	if s := summarizeByCPU(map[int]string{0: "6", 1: "6"}); s != "6" {
		t.Errorf("same = %q", s)
	}
	if s := summarizeByCPU(map[int]string{5: "0", 0: "6", 1: "6", 4: "0", 2: "15"}); s != "mixed: 6 on CPUs 0-1; 15 on CPUs 2; 0 on CPUs 4-5" {
		t.Errorf("mixed = %q", s)
	}
}

func TestParseSysUint(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "3500000\n": 3500000, " 12 ": 12} {
		if v, err := parseSysUint(in); err != nil || v != want {
			t.Errorf("parseSysUint(%q) = %d, %v", in, v, err)
		}
	}
	for _, in := range []string{"", "-1", "<unknown>", "1.5", "99999999999999999999"} {
		if _, err := parseSysUint(in); err == nil {
			t.Errorf("parseSysUint(%q) accepted", in)
		}
	}
}

func FuzzParseSysUint(f *testing.F) {
	f.Add("3500000\n")
	f.Add("<unknown>")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseSysUint(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || v != 0 {
				t.Fatalf("error %v with %d", err, v)
			}
			return
		}
		if v < 0 {
			t.Fatalf("parseSysUint(%q) = %d", s, v)
		}
		if w, err := parseSysUint(strconv.FormatInt(v, 10)); err != nil || w != v {
			t.Fatalf("round trip of %d: %d, %v", v, w, err)
		}
	})
}

// BenchmarkReadCPUPower240 reads a 240-CPU tree (one policy per CPU, three
// C-states each), the size the speed bar names.
func BenchmarkReadCPUPower240(b *testing.B) {
	root := fakeRootA(b, powerTreeA(240, true))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := collectorA(root)
		c.Snap.Host.Cmdline = "x"
		readCPUPower(c)
		if len(c.Snap.CPUPower.Cpufreq) != 240 {
			b.Fatal("short read")
		}
	}
}

func TestSysReader(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1000) // 16000 bytes: several reads, buffer grows
	root := fakeRootA(t, map[string]string{"/big": big + "\n", "/empty": "", "/one": " 42\n", "/dir/": ""})
	r := newSysReader(root)
	for p, want := range map[string]string{"/big": big, "/empty": "", "/one": "42"} {
		if got, err := r.read(p); err != nil || got != want {
			t.Errorf("read(%s) = %d bytes, %v; want %d bytes", p, len(got), err, len(want))
		}
	}
	// The buffer is reused: a short file after a long one is not polluted.
	if got, _ := r.read("/one"); got != "42" {
		t.Errorf("after big: %q", got)
	}
	if _, err := r.read("/missing"); !errors.Is(err, fs.ErrNotExist) || Reason(err) != "not present on this host" {
		t.Errorf("missing: %v", err)
	}
	if _, err := r.read("/dir"); err == nil || !strings.Contains(Reason(err), "is a directory") {
		t.Errorf("dir: %v", err)
	}
}

// Several workers must give exactly what one worker gives: same entries in
// the same order, same absences with the same counts and first paths.
func TestReadCPUPowerWorkers(t *testing.T) {
	files := powerTreeA(9, true)
	files["/sys/devices/system/cpu/cpufreq/policy0/affected_cpus"] = "0 1\n" // shared policy
	delete(files, "/sys/devices/system/cpu/cpufreq/policy1/scaling_driver")
	files["/sys/devices/system/cpu/cpufreq/policy5/scaling_max_freq"] = "fast\n"
	files["/sys/devices/system/cpu/cpufreq/policy7/scaling_max_freq"] = "fast\n"
	files["/sys/devices/system/cpu/cpu8/cpuidle/state1/disable"] = "x\n"
	files["/sys/devices/system/cpu/cpu6/power/energy_perf_bias"] = "6\n"
	for f := range files { // CPU 3 has no cpuidle device
		if strings.HasPrefix(f, "/sys/devices/system/cpu/cpu3/cpuidle/") {
			delete(files, f)
		}
	}
	root := fakeRootA(t, files)
	run := func(perWorker, procs int) *snapshot.Snapshot {
		defer func(old int) { cpusPerWorker = old }(cpusPerWorker)
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		cpusPerWorker = perWorker
		c := collectorA(root)
		c.Snap.Host.Cmdline = "x"
		readCPUPower(c)
		return c.Snap
	}
	one := run(64, 1)
	many := run(1, 4)
	if !reflect.DeepEqual(one.CPUPower, many.CPUPower) {
		t.Errorf("workers differ:\none  %+v\nmany %+v", one.CPUPower, many.CPUPower)
	}
	if !reflect.DeepEqual(one.Absent, many.Absent) {
		t.Errorf("absences differ:\none  %+v\nmany %+v", one.Absent, many.Absent)
	}
	// And the content is right: CPU 1 comes from policy0 (shared), CPU 3 has no states.
	p := many.CPUPower
	if len(p.Cpufreq) != 9 || p.Cpufreq[1].Driver != "intel_pstate" || p.Cpufreq[1].MaxKHz == nil {
		t.Errorf("cpufreq = %+v", p.Cpufreq)
	}
	if len(p.Cpuidle) != 8 || p.Cpuidle[3].CPU != 4 || len(p.Cpuidle[7].States) != 3 || p.Cpuidle[7].States[1].Disabled != nil {
		t.Errorf("cpuidle = %+v", p.Cpuidle)
	}
	if p.EnergyPerfBias == nil || *p.EnergyPerfBias != "mixed: 0 on CPUs 0-5,7-8; 6 on CPUs 6" {
		t.Errorf("epb = %v", p.EnergyPerfBias)
	}
	c := &Collector{Snap: many}
	if a := absenceA(c, "cpu_power.cpufreq.max_khz"); a == nil || !strings.Contains(a.Reason, "in 2 files across 9 online CPUs") || !strings.Contains(a.Path, "policy5") {
		t.Errorf("max_khz absence = %+v", a)
	}
	if a := absenceA(c, "cpu_power.cpuidle"); a == nil || !strings.Contains(a.Reason, "1 of 9") {
		t.Errorf("cpuidle absence = %+v", a)
	}
}
