package facts

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// cgFiles adds a cgroup directory's files: dir + "/" + name → value.
func cgFiles(files map[string]string, dir string, kv ...string) {
	for i := 0; i+1 < len(kv); i += 2 {
		files[dir+"/"+kv[i]] = kv[i+1] + "\n"
	}
}

// cgSummary is a compact view of a recorded group for comparisons.
type cgSummary struct {
	Mount, Path   string
	CPUs, Mems    string
	Eff           string
	Quota, Shares int64
	Weight        int64
	Partition     string
	PIDs, DBPIDs  string
}

func summarize(gs []snapshot.CgroupGroup) []cgSummary {
	var out []cgSummary
	i64 := func(p *int64) int64 {
		if p == nil {
			return -99
		}
		return *p
	}
	for _, g := range gs {
		out = append(out, cgSummary{
			Mount: g.Mount, Path: g.Path, CPUs: deref(g.CPUs), Mems: deref(g.Mems), Eff: deref(g.EffectiveCPUs),
			Quota: i64(g.CPUQuotaUS), Shares: i64(g.CPUShares), Weight: i64(g.CPUWeight), Partition: deref(g.Partition),
			PIDs: fmt.Sprint(g.PIDs), DBPIDs: fmt.Sprint(g.DBPIDs),
		})
	}
	return out
}

func TestCgroupsV1(t *testing.T) {
	files := map[string]string{
		"/proc/mounts": "/dev/vda / ext4 rw 0 0\n" +
			"tmpfs /sys/fs/cgroup tmpfs rw,mode=755 0 0\n" +
			"cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n" +
			"cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,cpu,cpuacct 0 0\n" +
			"cgroup /sys/fs/cgroup/systemd cgroup rw,xattr,name=systemd 0 0\n" +
			"cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\n",
		"/sys/fs/cgroup/unified/cgroup.controllers": "\n",
	}
	cs := "/sys/fs/cgroup/cpuset"
	cgFiles(files, cs, "cpuset.cpus", "0-7", "cpuset.mems", "0-1", "cpuset.effective_cpus", "0-7", "cpuset.effective_mems", "0-1",
		"cpuset.memory_migrate", "0", "cpuset.cpu_exclusive", "1", "cgroup.procs", "1\n100")
	cgFiles(files, cs+"/oracle", "cpuset.cpus", "0-3", "cpuset.mems", "0", "cpuset.effective_cpus", "0-3", "cpuset.effective_mems", "0",
		"cpuset.memory_migrate", "1", "cpuset.cpu_exclusive", "1", "cgroup.procs", "201\n200")
	cgFiles(files, cs+"/oracle/child", "cpuset.cpus", "0-3", "cpuset.mems", "0", "cgroup.procs", "")
	cgFiles(files, cs+"/same", "cpuset.cpus", "0-7", "cpuset.mems", "0-1", "cgroup.procs", "")
	cgFiles(files, cs+"/same/db", "cpuset.cpus", "0,1,2,3,4,5,6,7", "cpuset.mems", "0-1", "cgroup.procs", "300\n301")
	cpu := "/sys/fs/cgroup/cpu,cpuacct"
	cgFiles(files, cpu, "cpu.shares", "1024", "cpu.cfs_quota_us", "-1", "cpu.cfs_period_us", "100000", "cgroup.procs", "1")
	cgFiles(files, cpu+"/limited", "cpu.shares", "1024", "cpu.cfs_quota_us", "200000", "cpu.cfs_period_us", "100000", "cgroup.procs", "")
	cgFiles(files, cpu+"/shares", "cpu.shares", "512", "cpu.cfs_quota_us", "-1", "cpu.cfs_period_us", "100000", "cgroup.procs", "")
	cgFiles(files, cpu+"/plain", "cpu.shares", "1024", "cpu.cfs_quota_us", "-1", "cpu.cfs_period_us", "100000", "cgroup.procs", "100")
	c := newTestCollector(t, files)
	c.Snap.Processes = []snapshot.Process{{PID: 100}, {PID: 300}}
	readCgroups(c)
	cg := c.Snap.Cgroups
	if cg.Version != "hybrid" || len(cg.Mounts) != 4 {
		t.Fatalf("version %q mounts %+v", cg.Version, cg.Mounts)
	}
	if m := cg.Mounts[0]; m.Path != "/sys/fs/cgroup/cpu,cpuacct" || !reflect.DeepEqual(m.Controllers, []string{"cpu", "cpuacct"}) || m.Version != 1 {
		t.Errorf("mount 0 = %+v", m)
	}
	if m := cg.Mounts[2]; !reflect.DeepEqual(m.Controllers, []string{"name=systemd"}) {
		t.Errorf("mount 2 = %+v", m)
	}
	got := summarize(cg.Groups)
	want := []cgSummary{
		{Mount: cpu, Path: "/limited", Quota: 200000, Shares: 1024, Weight: -99, PIDs: "[]", DBPIDs: "[]"},
		{Mount: cpu, Path: "/plain", Quota: -1, Shares: 1024, Weight: -99, PIDs: "[100]", DBPIDs: "[100]"},
		{Mount: cpu, Path: "/shares", Quota: -1, Shares: 512, Weight: -99, PIDs: "[]", DBPIDs: "[]"},
		{Mount: cs, Path: "/", CPUs: "0-7", Mems: "0-1", Eff: "0-7", Quota: -99, Shares: -99, Weight: -99, PIDs: "[]", DBPIDs: "[100]"},
		{Mount: cs, Path: "/oracle", CPUs: "0-3", Mems: "0", Eff: "0-3", Quota: -99, Shares: -99, Weight: -99, PIDs: "[200 201]", DBPIDs: "[]"},
		{Mount: cs, Path: "/same/db", CPUs: "0,1,2,3,4,5,6,7", Mems: "0-1", Quota: -99, Shares: -99, Weight: -99, PIDs: "[300 301]", DBPIDs: "[300]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups:\n got %+v\nwant %+v", got, want)
	}
	for _, g := range cg.Groups {
		if g.Path == "/oracle" && (g.MemoryMigrate == nil || !*g.MemoryMigrate || g.CPUExclusive == nil || !*g.CPUExclusive || g.Version != 1) {
			t.Errorf("/oracle = %+v", g)
		}
		if g.Path == "/limited" && (g.CPUPeriodUS == nil || *g.CPUPeriodUS != 100000) {
			t.Errorf("/limited = %+v", g)
		}
	}
	if len(c.Snap.Absent) != 0 {
		t.Errorf("absent = %+v", c.Snap.Absent)
	}
}

func TestCgroupsV2(t *testing.T) {
	files := map[string]string{"/proc/mounts": "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec 0 0\n"}
	r := "/sys/fs/cgroup"
	cgFiles(files, r, "cgroup.controllers", "cpuset cpu io memory pids", "cpuset.cpus.effective", "0-7", "cpuset.mems.effective", "0-1", "cgroup.procs", "1")
	cgFiles(files, r+"/db.slice", "cgroup.controllers", "cpuset cpu", "cpuset.cpus", "", "cpuset.mems", "", "cpuset.cpus.effective", "0-7",
		"cpuset.mems.effective", "0-1", "cpuset.cpus.partition", "member", "cpu.max", "max 100000", "cpu.weight", "100", "cgroup.procs", "")
	cgFiles(files, r+"/db.slice/pg.service", "cgroup.controllers", "cpuset cpu", "cpuset.cpus", "2-3", "cpuset.mems", "", "cpuset.cpus.effective", "2-3",
		"cpuset.mems.effective", "0-1", "cpuset.cpus.partition", "member", "cpu.max", "50000 100000", "cpu.weight", "100", "cgroup.procs", "501\n500")
	cgFiles(files, r+"/iso", "cgroup.controllers", "cpuset", "cpuset.cpus", "4-5", "cpuset.mems", "", "cpuset.cpus.effective", "4-5",
		"cpuset.mems.effective", "0-1", "cpuset.cpus.partition", "isolated", "cgroup.procs", "")
	cgFiles(files, r+"/system.slice", "cgroup.controllers", "cpu", "cpu.max", "max 100000", "cpu.weight", "100", "cgroup.procs", "600")
	cgFiles(files, r+"/system.slice/x.service", "cgroup.controllers", "", "cgroup.procs", "700")
	cgFiles(files, r+"/weighted", "cgroup.controllers", "cpu", "cpu.max", "max", "cpu.weight", "50", "cgroup.procs", "")
	c := newTestCollector(t, files)
	c.Snap.Processes = []snapshot.Process{{PID: 500}, {PID: 700}}
	readCgroups(c)
	cg := c.Snap.Cgroups
	if cg.Version != "v2" || len(cg.Mounts) != 1 || !reflect.DeepEqual(cg.Mounts[0].Controllers, []string{"cpu", "cpuset", "io", "memory", "pids"}) {
		t.Fatalf("version %q mounts %+v", cg.Version, cg.Mounts)
	}
	got := summarize(cg.Groups)
	want := []cgSummary{
		{Mount: r, Path: "/db.slice/pg.service", CPUs: "2-3", Eff: "2-3", Quota: 50000, Shares: -99, Weight: 100, Partition: "member", PIDs: "[500 501]", DBPIDs: "[500]"},
		{Mount: r, Path: "/iso", CPUs: "4-5", Eff: "4-5", Quota: -99, Shares: -99, Weight: -99, Partition: "isolated", PIDs: "[]", DBPIDs: "[]"},
		{Mount: r, Path: "/system.slice/x.service", Quota: -99, Shares: -99, Weight: -99, PIDs: "[700]", DBPIDs: "[700]"},
		{Mount: r, Path: "/weighted", Quota: -1, Shares: -99, Weight: 50, PIDs: "[]", DBPIDs: "[]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups:\n got %+v\nwant %+v", got, want)
	}
	if len(c.Snap.Absent) != 0 {
		t.Errorf("absent = %+v", c.Snap.Absent)
	}
}

func TestCgroupsWalkBound(t *testing.T) {
	old := maxCgroupDirs
	maxCgroupDirs = 4
	defer func() { maxCgroupDirs = old }()
	files := map[string]string{"/proc/mounts": "cgroup /cg cgroup rw,cpuset 0 0\n"}
	cgFiles(files, "/cg", "cpuset.cpus", "0-3", "cpuset.mems", "0")
	for i := 0; i < 6; i++ {
		cgFiles(files, fmt.Sprintf("/cg/g%d", i), "cpuset.cpus", "1", "cpuset.mems", "0", "cgroup.procs", "")
	}
	c := newTestCollector(t, files)
	readCgroups(c)
	if len(c.Snap.Cgroups.Groups) != 3 {
		t.Errorf("groups = %+v, want 3 (root + 3 children walked)", summarize(c.Snap.Cgroups.Groups))
	}
	if a := absentFor(c, "cgroups.groups"); len(a) != 1 || !strings.Contains(a[0].Reason, "walk stopped after 4") {
		t.Errorf("absent = %+v", c.Snap.Absent)
	}
}

func TestCgroupsAbsent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		version string
		fact    string
	}{
		{"no mounts file", map[string]string{"/etc/x": ""}, "", "cgroups"},
		{"malformed", map[string]string{"/proc/mounts": "cgroup /cg cgroup\n"}, "", "cgroups"},
		{"none", map[string]string{"/proc/mounts": "/dev/vda / ext4 rw 0 0\n"}, "none", ""},
		{"hierarchy missing", map[string]string{"/proc/mounts": "cgroup /cg cgroup rw,cpuset 0 0\n"}, "v1", "cgroups.groups"},
		{"bad values", map[string]string{"/proc/mounts": "cgroup /cg cgroup rw,cpu 0 0\n", "/cg/x/cpu.shares": "lots\n", "/cg/x/cgroup.procs": "1\n"}, "v1", "cgroups.groups"},
	} {
		c := newTestCollector(t, tc.files)
		readCgroups(c)
		if c.Snap.Cgroups.Version != tc.version || c.Snap.Cgroups.Groups == nil || len(c.Snap.Cgroups.Groups) != 0 {
			t.Errorf("%s: cgroups = %+v", tc.name, c.Snap.Cgroups)
		}
		if tc.fact == "" {
			if len(c.Snap.Absent) != 0 {
				t.Errorf("%s: absent = %+v", tc.name, c.Snap.Absent)
			}
		} else if len(absentFor(c, tc.fact)) != 1 {
			t.Errorf("%s: absent = %+v, want one %s", tc.name, c.Snap.Absent, tc.fact)
		}
	}
}

func TestParseCPUMax(t *testing.T) {
	for in, want := range map[string][2]int64{"max 100000": {-1, 100000}, "50000 100000": {50000, 100000}, "max": {-1, 100000}} {
		q, p, err := parseCPUMax(in)
		if err != nil || q != want[0] || p != want[1] {
			t.Errorf("%q: %d %d %v", in, q, p, err)
		}
	}
	for _, bad := range []string{"", "x 1", "1 0", "-5 100", "1 2 3"} {
		if _, _, err := parseCPUMax(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseCgroupProcs(t *testing.T) {
	got, err := parseCgroupProcs(strings.NewReader("30\n4\n\n12\n"))
	if err != nil || !reflect.DeepEqual(got, []int{4, 12, 30}) {
		t.Errorf("%v %v", got, err)
	}
	if _, err := parseCgroupProcs(strings.NewReader("1\nx\n")); err == nil {
		t.Error("no error for a non-PID")
	}
}

func TestParseCgroupMountsEscapes(t *testing.T) {
	ms, err := parseCgroupMounts(strings.NewReader("cgroup /sys/fs/cgroup/my\\040tree cgroup rw,cpuset,bogus,name= 0 0\n"))
	if err != nil || len(ms) != 1 || ms[0].Path != "/sys/fs/cgroup/my tree" || !reflect.DeepEqual(ms[0].Controllers, []string{"cpuset"}) {
		t.Errorf("%+v %v", ms, err)
	}
}

func FuzzParseCgroupMounts(f *testing.F) {
	f.Add([]byte("cgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := parseCgroupMounts(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		for _, m := range ms {
			if !strings.HasPrefix(m.Path, "/") || (m.Version != 1 && m.Version != 2) || m.Controllers == nil {
				t.Fatalf("bad mount %+v", m)
			}
		}
		_ = cgroupVersion(ms)
	})
}

// FuzzParseCPUMax: what cgroup v2 prints in cpu.max ("max PERIOD" or
// "QUOTA PERIOD", both in µs), or a quota alone as written by hand, with any
// blanks around and between, parses back to the values the fuzzer chose; a
// negative quota, a period of 0, a third word fail. Any text accepted reads
// back the same from its canonical form.
func FuzzParseCPUMax(f *testing.F) {
	f.Add("max 100000", int64(-1), uint32(100000), uint8(0))
	f.Fuzz(func(t *testing.T, s string, quota int64, period uint32, form uint8) {
		if q, p, err := parseCPUMax(s); err == nil {
			if q2, p2, err := parseCPUMax(cpuMaxText(q, p)); err != nil || q2 != q || p2 != p {
				t.Fatalf("%q → %d %d, but its canonical form %q → %d %d %v", s, q, p, cpuMaxText(q, p), q2, p2, err)
			}
		}

		if quota < 0 {
			quota = -1 // "max"
		}
		p := int64(period) + 1
		sp := []string{" ", "\t", "  "}[form%3]
		text := strings.Replace(cpuMaxText(quota, p), " ", sp, 1)
		if form&4 != 0 {
			text = " " + text + "\n"
		}
		wantP := p
		if form&8 != 0 { // a quota alone: the kernel's default period
			text, _, _ = strings.Cut(strings.TrimSpace(text), sp)
			wantP = 100000
		}
		q, gotP, err := parseCPUMax(text)
		if err != nil || q != quota || gotP != wantP {
			t.Fatalf("parseCPUMax(%q) = %d %d %v, want %d %d", text, q, gotP, err, quota, wantP)
		}
		for _, bad := range []string{cpuMaxText(quota, p) + " 1", fmt.Sprintf("-%d %d", 1+quota&0xffff, p), cpuMaxText(quota, 0), "max max"} {
			if q, p, err := parseCPUMax(bad); err == nil {
				t.Fatalf("parseCPUMax(%q) = %d %d, want an error", bad, q, p)
			}
		}
	})
}

// cpuMaxText is cpu.max as the kernel prints it (-1 = max).
func cpuMaxText(quota, period int64) string {
	if quota < 0 {
		return fmt.Sprintf("max %d", period)
	}
	return fmt.Sprintf("%d %d", quota, period)
}

// FuzzParseCgroupProcs: cgroup.procs as the kernel prints it (one PID per
// line, in any order; the PIDs drawn from the fuzzer's bytes, 1 to
// PID_MAX_LIMIT) parses to those PIDs, sorted; a line that is not a PID fails.
func FuzzParseCgroupProcs(f *testing.F) {
	f.Add([]byte("1\n20\n300\n"), []byte{0, 0, 1, 0, 0, 20})
	f.Fuzz(func(t *testing.T, b, raw []byte) {
		if pids, err := parseCgroupProcs(strings.NewReader(string(b))); err == nil {
			if !sort.IntsAreSorted(pids) {
				t.Fatalf("pids %v not sorted", pids)
			}
			if back, err := parseCgroupProcs(strings.NewReader(intsLines(pids))); err != nil || !slices.Equal(back, pids) {
				t.Fatalf("%q → %v, but its lines → %v %v", b, pids, back, err)
			}
		}
		var want []int
		for i := 0; i+3 <= len(raw); i += 3 {
			want = append(want, 1+(int(raw[i])<<16|int(raw[i+1])<<8|int(raw[i+2]))%(1<<22))
		}
		text := intsLines(want)
		got, err := parseCgroupProcs(strings.NewReader(text))
		sorted := slices.Sorted(slices.Values(want))
		if err != nil || !slices.Equal(got, sorted) {
			t.Fatalf("parseCgroupProcs(%q) = %v %v, want %v", text, got, err, sorted)
		}
		for _, bad := range []string{"0", "-1", "x", "1 2"} {
			if pids, err := parseCgroupProcs(strings.NewReader(text + bad + "\n")); err == nil {
				t.Fatalf("%q accepted as %v", text+bad, pids)
			}
		}
	})
}

// intsLines prints one number per line.
func intsLines(v []int) string {
	var b strings.Builder
	for _, n := range v {
		b.WriteString(strconv.Itoa(n) + "\n")
	}
	return b.String()
}

// TestCollectProcessesAndCgroups runs the whole collection over a fake tree:
// the cgroup reader (derived stage) must see the processes found in the
// sources stage, and the daemon flags must be set.
func TestCollectProcessesAndCgroups(t *testing.T) {
	files := fakeProcFiles([]fakeProc{
		{pid: 100, comm: "ora_pmon_ORCL", cmdline: "ora_pmon_ORCL\x00", ppid: 1, uid: 54321, cgroup: "3:cpuset:/oracle\n0::/\n",
			numaMaps: "7f0000000000 default anon=1 N0=1 kernelpagesize_kB=4\n"},
		{pid: 101, comm: "bash", cmdline: "bash\x00", ppid: 1},
		{pid: 102, comm: "irqbalance", cmdline: "irqbalance\x00", ppid: 1},
	})
	files["/proc/mounts"] = "cgroup /sys/fs/cgroup/cpuset cgroup rw,cpuset 0 0\n"
	files["/etc/passwd"] = "oracle:x:54321:54321::/:\n"
	cgFiles(files, "/sys/fs/cgroup/cpuset", "cpuset.cpus", "0-3", "cpuset.mems", "0", "cgroup.procs", "101\n102")
	cgFiles(files, "/sys/fs/cgroup/cpuset/oracle", "cpuset.cpus", "0-3", "cpuset.mems", "0", "cgroup.procs", "100")
	dir := t.TempDir()
	writeHostFiles(t, dir, files)
	s := Collect(Root{Dir: dir}, Options{Version: "test"})
	if len(s.Processes) != 1 || s.Processes[0].Role != "pmon" || s.Processes[0].Cgroup != "/oracle" || len(s.Processes[0].NUMA) != 1 {
		t.Fatalf("processes = %+v", s.Processes)
	}
	got := summarize(s.Cgroups.Groups)
	want := []cgSummary{{Mount: "/sys/fs/cgroup/cpuset", Path: "/oracle", CPUs: "0-3", Mems: "0", Quota: -99, Shares: -99, Weight: -99, PIDs: "[100]", DBPIDs: "[100]"}}
	if s.Cgroups.Version != "v1" || !reflect.DeepEqual(got, want) {
		t.Errorf("cgroups %q %+v", s.Cgroups.Version, got)
	}
	if s.IRQs.IrqbalanceRunning == nil || !*s.IRQs.IrqbalanceRunning || s.Config.Tuned.Running == nil || *s.Config.Tuned.Running {
		t.Errorf("irqbalance %v tuned %v", s.IRQs.IrqbalanceRunning, s.Config.Tuned.Running)
	}
	if s.Config.Users["oracle"] != 54321 {
		t.Errorf("users %v", s.Config.Users)
	}
}

// BenchmarkCgroupWalk walks a v1 cpuset hierarchy of 1000 groups, 10 of them
// with their own cpuset.
func BenchmarkCgroupWalk(b *testing.B) {
	files := map[string]string{"/proc/mounts": "cgroup /cg cgroup rw,cpuset 0 0\n"}
	cgFiles(files, "/cg", "cpuset.cpus", "0-3", "cpuset.mems", "0", "cgroup.procs", "1")
	for i := 0; i < 10; i++ {
		cgFiles(files, fmt.Sprintf("/cg/s%d", i), "cpuset.cpus", "0-3", "cpuset.mems", "0", "cgroup.procs", "")
	}
	for i := 0; i < 1000; i++ {
		cpus := "0-3"
		if i%100 == 0 {
			cpus = "1"
		}
		cgFiles(files, fmt.Sprintf("/cg/s%d/g%d", i%10, i), "cpuset.cpus", cpus, "cpuset.mems", "0", "cgroup.procs", "")
	}
	c := newTestCollector(b, files)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		readCgroups(c)
		if len(c.Snap.Cgroups.Groups) != 10 {
			b.Fatalf("%d groups", len(c.Snap.Cgroups.Groups))
		}
	}
}
