package facts

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// pidStatusText is a /proc/PID/status with the lines dbhost reads.
func pidStatusText(name string, ppid, uid, threads int, rss int64, cpus, mems string) string {
	return fmt.Sprintf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t1\nPPid:\t%d\nUid:\t%d\t%d\t%d\t%d\nGid:\t0\t0\t0\t0\n"+
		"VmPeak:\t  1000 kB\nVmRSS:\t  %d kB\nThreads:\t%d\nCpus_allowed:\tf\nCpus_allowed_list:\t%s\nMems_allowed:\t1\nMems_allowed_list:\t%s\n",
		name, ppid, uid, uid, uid, uid, rss, threads, cpus, mems)
}

// pidStatText is a /proc/PID/stat whose field 39 (processor) is cpu.
func pidStatText(pid int, comm string, cpu int) string {
	f := make([]string, 50) // fields 3..52
	for i := range f {
		f[i] = "0"
	}
	f[0] = "S"
	f[36] = strconv.Itoa(cpu)
	return fmt.Sprintf("%d (%s) %s\n", pid, comm, strings.Join(f, " "))
}

type fakeProc struct {
	pid       int
	comm      string
	cmdline   string // NUL-separated
	ppid, uid int
	cpus      string
	cgroup    string
	numaMaps  string
	status    string   // overrides the generated status when set
	fds       []string // /proc/PID/fd link targets; nil: one on /dev/null
}

func fakeProcFiles(ps []fakeProc) map[string]string {
	files := map[string]string{}
	for _, p := range ps {
		d := fmt.Sprintf("/proc/%d/", p.pid)
		files[d+"comm"] = p.comm + "\n"
		files[d+"cmdline"] = p.cmdline
		cpus := p.cpus
		if cpus == "" {
			cpus = "0-3"
		}
		st := p.status
		if st == "" {
			st = pidStatusText(p.comm, p.ppid, p.uid, 3, 2048, cpus, "0-1")
		}
		files[d+"status"] = st
		files[d+"stat"] = pidStatText(p.pid, p.comm, p.pid%4)
		cg := p.cgroup
		if cg == "" {
			cg = "3:cpuset:/\n1:cpu,cpuacct:/\n0::/system.slice\n"
		}
		files[d+"cgroup"] = cg
		if p.numaMaps != "" {
			files[d+"numa_maps"] = p.numaMaps
		}
		fds := p.fds
		if fds == nil {
			fds = []string{"/dev/null"}
		}
		for i, target := range fds {
			files[fmt.Sprintf("%sfd/%d", d, i)] = "->" + target
		}
	}
	return files
}

const sgaNumaMaps = "7f0000000000 default file=/SYSV00000000\\040(deleted) huge dirty=512 N0=256 N1=256 kernelpagesize_kB=2048\n" +
	"7f1000000000 default heap anon=10 dirty=10 N0=10 kernelpagesize_kB=4\n" +
	"7f2000000000 default file=/u01/app/oracle/bin/oracle mapped=100 N1=100 kernelpagesize_kB=4\n"

var dbProcs = []fakeProc{
	{pid: 100, comm: "ora_pmon_ORCLCD", cmdline: "ora_pmon_ORCLCDB1\x00", ppid: 1, uid: 54321, cgroup: "3:cpuset:/oracle\n0::/\n", numaMaps: sgaNumaMaps},
	{pid: 101, comm: "ora_lgwr_ORCLCD", cmdline: "ora_lgwr_ORCLCDB1\x00", ppid: 1, uid: 54321},
	{pid: 102, comm: "oracleORCLCDB1", cmdline: "oracleORCLCDB1 (LOCAL=NO)\x00", ppid: 1, uid: 54321},
	{pid: 103, comm: "asm_pmon_+ASM1", cmdline: "asm_pmon_+ASM1\x00", ppid: 1, uid: 54322},
	{pid: 104, comm: "oracle-cloud-ag", cmdline: "/usr/bin/oracle-cloud-agent\x00", ppid: 1, uid: 0},
	{pid: 200, comm: "postgres", cmdline: "/usr/lib/postgresql/15/bin/postgres\x00-D\x00/var/lib/postgresql/15/main\x00-c\x00config_file=/etc/postgresql/15/main/postgresql.conf\x00", ppid: 1, uid: 105, numaMaps: "55d000000000 default file=/SYSV0052e2c1\\040(deleted) dirty=100 N0=100 kernelpagesize_kB=4\n"},
	{pid: 201, comm: "postgres", cmdline: "postgres: 15/main: checkpointer \x00", ppid: 200, uid: 105},
	{pid: 202, comm: "postgres", cmdline: "postgres: 15/main: app appdb 10.0.0.5(51234) idle\x00", ppid: 200, uid: 105},
	{pid: 203, comm: "postgres", cmdline: "postgres: walwriter process   \x00", ppid: 200, uid: 105},
	{pid: 300, comm: "mysqld", cmdline: "/usr/sbin/mysqld\x00--datadir=/var/lib/mysql\x00", ppid: 1, uid: 27, numaMaps: "garbage line\n"},
	{pid: 301, comm: "mariadbd", cmdline: "/usr/sbin/mariadbd\x00", ppid: 1, uid: 27},
	{pid: 400, comm: "irqbalance", cmdline: "/usr/sbin/irqbalance\x00", ppid: 1},
	{pid: 401, comm: "python3", cmdline: "/usr/bin/python3\x00-Es\x00/usr/sbin/tuned\x00-l\x00-P\x00", ppid: 1},
	{pid: 500, comm: "bash", cmdline: "bash\x00", ppid: 1},
	{pid: 700, comm: "qemu-kvm", cmdline: "/usr/libexec/qemu-kvm\x00-name\x00guest=db7\x00", ppid: 1},
	{pid: 701, comm: "qemu-system-x86", cmdline: "/usr/bin/qemu-system-x86_64\x00-name\x00guest=lab\x00", ppid: 1},
	{pid: 600, comm: "postgres", cmdline: "postgres\x00", status: "Name:\tpostgres\nPPid:\tx\n"},
}

func TestScanProcesses(t *testing.T) {
	files := fakeProcFiles(dbProcs)
	files["/etc/passwd"] = "root:x:0:0::/:\noracle:x:54321:54321::/:\npostgres:x:105:110::/:\nmysql:x:27:27::/:\n"
	files["/proc/self"] = "->100"
	c := newTestCollector(t, files)
	readProcesses(c)
	deriveDaemons(c)
	type row struct {
		pid                      int
		engine, role, inst, user string
	}
	var got []row
	for _, p := range c.Snap.Processes {
		got = append(got, row{p.PID, p.Engine, p.Role, p.Instance, p.User})
	}
	want := []row{
		{100, "oracle", "pmon", "ORCLCDB1", "oracle"},
		{101, "oracle", "background", "ORCLCDB1", "oracle"},
		{102, "oracle", "shadow", "ORCLCDB1", "oracle"},
		{103, "oracle", "asm", "+ASM1", ""},
		{200, "postgres", "postmaster", "/var/lib/postgresql/15/main", "postgres"},
		{201, "postgres", "checkpointer", "/var/lib/postgresql/15/main", "postgres"},
		{202, "postgres", "backend", "/var/lib/postgresql/15/main", "postgres"},
		{203, "postgres", "walwriter", "/var/lib/postgresql/15/main", "postgres"},
		{300, "mysql", "server", "/var/lib/mysql", "mysql"},
		{301, "mariadb", "server", "", "mysql"},
		{600, "postgres", "postmaster", "", ""}, // its malformed status costs its fields, not the process
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("processes:\n got %+v\nwant %+v", got, want)
	}
	pmon := c.Snap.Processes[0]
	if pmon.UID != 54321 || pmon.PPID != 1 || pmon.Threads != 3 || pmon.RSSKB != 2048 ||
		!reflect.DeepEqual(pmon.CPUsAllowed, []int{0, 1, 2, 3}) || !reflect.DeepEqual(pmon.MemsAllowed, []int{0, 1}) ||
		pmon.LastCPU == nil || *pmon.LastCPU != 0 || pmon.Cgroup != "/oracle" || pmon.Cmdline != "ora_pmon_ORCLCDB1" {
		t.Errorf("pmon = %+v", pmon)
	}
	wantNUMA := []snapshot.NodeMem{
		{Node: 0, AnonKB: 40, HugeKB: 512 * 1024, TotalKB: 512*1024 + 40},
		{Node: 1, FileKB: 400, HugeKB: 512 * 1024, TotalKB: 512*1024 + 400},
	}
	if !reflect.DeepEqual(pmon.NUMA, wantNUMA) {
		t.Errorf("pmon numa = %+v, want %+v", pmon.NUMA, wantNUMA)
	}
	if c.Snap.Processes[1].NUMA != nil || c.Snap.Processes[2].NUMA != nil {
		t.Error("numa_maps read for a non-main process")
	}
	if pm := c.Snap.Processes[4]; len(pm.NUMA) != 1 || pm.NUMA[0].ShmKB != 400 {
		t.Errorf("postmaster numa = %+v", pm.NUMA)
	}
	if c.Snap.Processes[3].LastCPU == nil || *c.Snap.Processes[3].LastCPU != 3 {
		t.Errorf("asm last cpu = %v", c.Snap.Processes[3].LastCPU)
	}
	// One absence per field and kind: the malformed PPid line and the
	// missing Uid line of 600, the garbage numa_maps of 300 and the missing
	// numa_maps of 301 and 600.
	if p := c.Snap.Processes[10]; p.PPID != -1 || p.UID != -1 {
		t.Errorf("600 = %+v", p)
	}
	for _, f := range []string{"processes.ppid", "processes.uid", "processes.threads"} {
		if a := absentFor(c, f); len(a) != 1 || !strings.Contains(a[0].Reason, "PID 600") {
			t.Errorf("%s absences = %+v", f, a)
		}
	}
	if a := absentFor(c, "processes.status"); len(a) != 0 {
		t.Errorf("status absences = %+v", a)
	}
	if a := absentFor(c, "processes.numa"); len(a) != 1 || !strings.Contains(a[0].Reason, "3 process(es)") {
		t.Errorf("numa absences = %+v", a)
	}
	irq, tuned := c.Snap.IRQs.IrqbalanceRunning, c.Snap.Config.Tuned.Running
	if irq == nil || !*irq || tuned == nil || !*tuned {
		t.Errorf("irqbalance running = %v, tuned running = %v", irq, tuned)
	}
	if k := c.Snap.Host.Virt.KVMGuests; k == nil || *k != 2 {
		t.Errorf("kvm guests = %v, want 2 (qemu-kvm, qemu-system-x86)", k)
	}
}

func TestScanProcessesNoDaemons(t *testing.T) {
	c := newTestCollector(t, fakeProcFiles([]fakeProc{{pid: 1, comm: "systemd", cmdline: "/sbin/init\x00"}}))
	readProcesses(c)
	deriveDaemons(c)
	if len(c.Snap.Processes) != 0 || c.Snap.Processes == nil {
		t.Errorf("processes = %+v", c.Snap.Processes)
	}
	irq, tuned := c.Snap.IRQs.IrqbalanceRunning, c.Snap.Config.Tuned.Running
	if irq == nil || *irq || tuned == nil || *tuned {
		t.Errorf("irqbalance running = %v, tuned running = %v; want false, false", irq, tuned)
	}
	if k := c.Snap.Host.Virt.KVMGuests; k == nil || *k != 0 {
		t.Errorf("kvm guests = %v, want 0", k)
	}
	if len(c.Snap.Absent) != 0 {
		t.Errorf("absent = %+v", c.Snap.Absent)
	}
}

func TestScanProcessesNotCaptured(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no /proc":       {"/etc/hostname": "x\n"},
		"no pid entries": {"/proc/meminfo": "MemTotal: 1 kB\n"},
	} {
		c := newTestCollector(t, files)
		readProcesses(c)
		deriveDaemons(c)
		if c.Snap.IRQs.IrqbalanceRunning != nil || c.Snap.Config.Tuned.Running != nil {
			t.Errorf("%s: daemons guessed: %v %v", name, c.Snap.IRQs.IrqbalanceRunning, c.Snap.Config.Tuned.Running)
		}
		if len(absentFor(c, "processes")) != 1 {
			t.Errorf("%s: absent = %+v", name, c.Snap.Absent)
		}
	}
}

// TestScanLiveSelf scans the real /proc with a hook that treats this test
// binary as a database server, and checks the facts read about itself.
func TestScanLiveSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	self := strings.TrimSpace(string(b))
	procMatchHook = func(comm string) (string, string, bool) { return "test", "server", comm == self }
	defer func() { procMatchHook = nil }()
	c := &Collector{Root: Root{Dir: "/", Live: true}, Snap: &snapshot.Snapshot{}}
	procs, ds := scanProcesses(c)
	if !ds.scanned {
		t.Fatalf("live /proc not scanned: %+v", c.Snap.Absent)
	}
	var me *snapshot.Process
	for i := range procs {
		if procs[i].PID == os.Getpid() {
			me = &procs[i]
		}
	}
	if me == nil {
		t.Fatalf("own PID %d (comm %q) not found in %+v", os.Getpid(), self, procs)
	}
	if me.UID != os.Getuid() || me.PPID != os.Getppid() || me.Threads < 1 || me.RSSKB <= 0 ||
		len(me.CPUsAllowed) == 0 || len(me.MemsAllowed) == 0 || me.LastCPU == nil || me.Comm != self {
		t.Errorf("self = %+v", *me)
	}
	if !strings.Contains(me.Cmdline, self) && !strings.Contains(me.Cmdline, ".test") {
		t.Errorf("cmdline %q", me.Cmdline)
	}
	if _, err := os.Stat("/proc/self/numa_maps"); err == nil {
		total := int64(0)
		for _, n := range me.NUMA {
			total += n.TotalKB
		}
		if total <= 0 {
			t.Errorf("own numa_maps sum to %d kB: %+v", total, me.NUMA)
		}
	}
	if _, err := os.Stat("/proc/self/cgroup"); err == nil && me.Cgroup == "" {
		t.Errorf("no cgroup path for self")
	}
}

func TestReadProcFile(t *testing.T) {
	big := strings.Repeat("7f0000000000 default anon=1 N0=1 kernelpagesize_kB=4\n", 3000) // ~160 kB
	c := newTestCollector(t, map[string]string{"/proc/1/numa_maps": big, "/proc/1/comm": "bash\n",
		"/proc/2/huge": strings.Repeat("x", maxProcFileBytes+5000)})
	b, err := c.readProcFile("/proc/1/numa_maps", false)
	if err != nil || string(b) != big {
		t.Errorf("read %d of %d bytes, %v", len(b), len(big), err)
	}
	if b, err := c.readProcFile("/proc/1/comm", true); err != nil || string(b) != "bash\n" {
		t.Errorf("comm %q %v", b, err)
	}
	if b, err := c.readProcFile("/proc/2/huge", false); err != nil || len(b) != maxProcFileBytes {
		t.Errorf("huge file: %d bytes, %v", len(b), err)
	}
	_, err = c.readProcFile("/proc/3/comm", true)
	if !vanished(err) || Reason(err) != "not present on this host" {
		t.Errorf("missing file: %v (%s)", err, Reason(err))
	}
}

// BenchmarkScanProcesses scans a fake /proc of 1000 processes, 10 of them
// database processes (the cost is one comm read per process plus the DB ones).
func BenchmarkScanProcesses(b *testing.B) {
	var ps []fakeProc
	for i := 0; i < 1000; i++ {
		p := fakeProc{pid: 1000 + i, comm: "bash", cmdline: "bash\x00", ppid: 1}
		if i%100 == 0 {
			p = fakeProc{pid: 1000 + i, comm: "mysqld", cmdline: "mysqld\x00", ppid: 1, uid: 27,
				numaMaps: "7f0000000000 default anon=1 N0=1 kernelpagesize_kB=4\n"}
		}
		ps = append(ps, p)
	}
	c := newTestCollector(b, fakeProcFiles(ps))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Snap.Absent = nil
		procs, _ := scanProcesses(c)
		if len(procs) != 10 {
			b.Fatalf("%d processes", len(procs))
		}
	}
}

func TestProcHidepid(t *testing.T) {
	for in, want := range map[string]string{
		"proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n":                 "",
		"sysfs /sys sysfs rw 0 0\nproc /proc proc rw,relatime,hidepid=2 0 0\n":  "hidepid=2",
		"proc /proc proc rw,relatime,hidepid=invisible,gid=10 0 0\n":            "hidepid=invisible",
		"proc /proc proc rw,hidepid=0 0 0\nproc /run/x proc rw,hidepid=2 0 0\n": "",
		"": "",
	} {
		if got := procHidepid(in); got != want {
			t.Errorf("procHidepid(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLatencyHolders: a process holding /dev/cpu_dma_latency is found from
// its fd links, whatever it is (tuned, RHEL 6 tuned's pmqos-static.py, an
// application); a process whose fd directory cannot be read is counted in
// an absence, not taken for "holds nothing".
func TestLatencyHolders(t *testing.T) {
	files := fakeProcFiles([]fakeProc{
		{pid: 1, comm: "systemd", cmdline: "/sbin/init\x00"},
		{pid: 700, comm: "tuned", cmdline: "/usr/bin/python3\x00-Es\x00/usr/sbin/tuned\x00-l\x00-P\x00", fds: []string{"/dev/null", "socket:[4711]", "/dev/cpu_dma_latency"}},
		{pid: 800, comm: "pmqos-static.py", cmdline: "python\x00/usr/libexec/tuned/pmqos-static.py\x00cpu_dma_latency=0\x00", fds: []string{"/dev/null", "/dev/cpu_dma_latency"}},
		{pid: 900, comm: "java", cmdline: "java\x00-jar\x00app.jar\x00", fds: []string{"/dev/null", "pipe:[12]", "/var/log/app.log"}},
		{pid: 901, comm: "bash", cmdline: "bash\x00"},
	})
	files["/proc/901/fd"] = "not a directory\n" // unreadable
	delete(files, "/proc/901/fd/0")
	c := newTestCollector(t, files)
	readProcesses(c)
	deriveDaemons(c)
	h := c.Snap.CPUPower.LatencyHolders
	if len(h) != 2 || h[0].PID != 700 || h[0].Comm != "tuned" || h[1].PID != 800 || h[1].Cmdline != "python /usr/libexec/tuned/pmqos-static.py cpu_dma_latency=0" {
		t.Errorf("holders = %+v", h)
	}
	if a := absentFor(c, "cpu_power.dma_latency_holders"); len(a) != 1 || !strings.Contains(a[0].Reason, "1 process(es), first PID 901") {
		t.Errorf("absences = %+v", c.Snap.Absent)
	}

	// No holder: an empty list, not null.
	c = newTestCollector(t, fakeProcFiles([]fakeProc{{pid: 1, comm: "systemd", cmdline: "/sbin/init\x00"}}))
	readProcesses(c)
	deriveDaemons(c)
	if h := c.Snap.CPUPower.LatencyHolders; h == nil || len(h) != 0 || len(c.Snap.Absent) != 0 {
		t.Errorf("holders = %#v, absent = %+v", h, c.Snap.Absent)
	}

	// No /proc: null, with the reason.
	c = newTestCollector(t, map[string]string{"/etc/hostname": "x\n"})
	readProcesses(c)
	deriveDaemons(c)
	if c.Snap.CPUPower.LatencyHolders != nil || len(absentFor(c, "cpu_power.dma_latency_holders")) != 1 {
		t.Errorf("holders = %#v, absent = %+v", c.Snap.CPUPower.LatencyHolders, c.Snap.Absent)
	}
}
