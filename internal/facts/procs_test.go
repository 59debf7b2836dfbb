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
	status    string // overrides the generated status when set
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
	// One absence per kind: the malformed status of 600, the garbage numa_maps
	// of 300 and the missing numa_maps of 301.
	if a := absentFor(c, "processes.status"); len(a) != 1 || !strings.Contains(a[0].Reason, "PID 600") {
		t.Errorf("status absences = %+v", a)
	}
	if a := absentFor(c, "processes.numa"); len(a) != 1 || !strings.Contains(a[0].Reason, "2 process(es)") {
		t.Errorf("numa absences = %+v", a)
	}
	irq, tuned := c.Snap.IRQs.IrqbalanceRunning, c.Snap.Config.Tuned.Running
	if irq == nil || !*irq || tuned == nil || !*tuned {
		t.Errorf("irqbalance running = %v, tuned running = %v", irq, tuned)
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

func TestNumaMapsCap(t *testing.T) {
	var ps []fakeProc
	for i := 0; i < maxNumaMapsProcs+3; i++ {
		ps = append(ps, fakeProc{pid: 1000 + i, comm: "mysqld", cmdline: "mysqld\x00", ppid: 1, uid: 27,
			numaMaps: "7f0000000000 default anon=1 N0=1 kernelpagesize_kB=4\n"})
	}
	c := newTestCollector(t, fakeProcFiles(ps))
	readProcesses(c)
	withNUMA := 0
	for _, p := range c.Snap.Processes {
		if p.NUMA != nil {
			withNUMA++
		}
	}
	if withNUMA != maxNumaMapsProcs {
		t.Errorf("numa_maps read for %d processes, want %d", withNUMA, maxNumaMapsProcs)
	}
	if a := absentFor(c, "processes.numa"); len(a) != 1 || !strings.Contains(a[0].Reason, "3 more skipped") {
		t.Errorf("absent = %+v", a)
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

func TestParsePIDStatus(t *testing.T) {
	st, err := parsePIDStatus(strings.NewReader(pidStatusText("x", 7, 1000, 12, 4096, "0,2-3", "0")))
	if err != nil {
		t.Fatal(err)
	}
	want := pidStatus{Name: "x", State: "S", UID: 1000, PPID: 7, Threads: 12, RSSKB: 4096, CPUs: []int{0, 2, 3}, Mems: []int{0}}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got %+v want %+v", st, want)
	}
	// A kernel thread has no VmRSS: zero, not an error.
	st, err = parsePIDStatus(strings.NewReader("Name:\tkthreadd\nPPid:\t0\nUid:\t0\t0\t0\t0\nThreads:\t1\nCpus_allowed_list:\t0-1\n"))
	if err != nil || st.RSSKB != 0 || st.Mems != nil {
		t.Errorf("kthread: %+v %v", st, err)
	}
	for _, bad := range []string{
		"",
		"PPid:\t1\nThreads:\t1\n",
		"Uid:\t0\nThreads:\t1\n",
		"Uid:\t0\nPPid:\t1\n",
		"Uid:\tx\nPPid:\t1\nThreads:\t1\n",
		"Uid:\t0\nPPid:\t1\nThreads:\t1\nVmRSS:\t12 MB\n",
		"Uid:\t0\nPPid:\t1\nThreads:\t1\nCpus_allowed_list:\t3-1\n",
		"Uid:\nPPid:\t1\nThreads:\t1\n",
	} {
		if _, err := parsePIDStatus(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		} else if _, ok := err.(*ParseError); !ok {
			t.Errorf("%q: error %T", bad, err)
		}
	}
}

func TestParsePIDStat(t *testing.T) {
	cpu, err := parsePIDStat(pidStatText(42, "odd) (name ) x", 17))
	if err != nil || cpu != 17 {
		t.Errorf("got %d %v", cpu, err)
	}
	for _, bad := range []string{"", "42 (x) S 1 2 3", "no paren at all", strings.Replace(pidStatText(1, "x", 5), " 5 ", " -5 ", 1)} {
		if _, err := parsePIDStat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParsePIDCgroup(t *testing.T) {
	cg, err := parsePIDCgroup(strings.NewReader("9:name=systemd:/\n3:cpuset:/db/ora:cle\n1:cpu,cpuacct:/cpu\n0::/user.slice\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cg.cpusetPath() != "/db/ora:cle" || cg.V1["cpuacct"] != "/cpu" || cg.V1["name=systemd"] != "/" || cg.V2 != "/user.slice" || !cg.HasV2 {
		t.Errorf("got %+v", cg)
	}
	cg, err = parsePIDCgroup(strings.NewReader("0::/system.slice/postgresql.service\n"))
	if err != nil || cg.cpusetPath() != "/system.slice/postgresql.service" {
		t.Errorf("v2: %+v %v", cg, err)
	}
	for _, bad := range []string{"garbage\n", "x:cpuset:/\n", "3:cpuset:relative\n"} {
		if _, err := parsePIDCgroup(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestClassifyProcess(t *testing.T) {
	for _, tc := range []struct {
		comm, cmdline      string
		engine, role, inst string
		ok                 bool
	}{
		{"ora_pmon_ORCL", "ora_pmon_ORCL", "oracle", "pmon", "ORCL", true},
		{"ora_dbw0_ORCL_1", "", "oracle", "background", "ORCL_1", true},
		{"mdb_pmon_-MGMTD", "mdb_pmon_-MGMTDB", "oracle", "pmon", "-MGMTDB", true},
		{"oracle+ASM1", "oracle+ASM1 (DESCRIPTION=(LOCAL=YES)(ADDRESS=(PROTOCOL=beq)))", "oracle", "shadow", "+ASM1", true},
		{"oracleORCL", "", "oracle", "shadow", "ORCL", true},
		{"oracle-cloud-ag", "/usr/bin/oracle-cloud-agent", "", "", "", false},
		{"oracleasm", "/bin/sh\x00/usr/sbin/oracleasm\x00scandisks", "", "", "", false},
		{"tnslsnr", "/u01/bin/tnslsnr\x00LISTENER\x00-inherit", "oracle", "listener", "LISTENER", true},
		{"mysqld", "/usr/sbin/mysqld\x00--datadir\x00/data", "mysql", "server", "/data", true},
		{"postgres", "postgres", "postgres", "", "", true},
		{"bash", "bash", "", "", "", false},
	} {
		e, r, i, ok := classifyProcess(tc.comm, cmdlineArgs([]byte(tc.cmdline)))
		if e != tc.engine || r != tc.role || i != tc.inst || ok != tc.ok {
			t.Errorf("%q %q: got %q %q %q %v", tc.comm, tc.cmdline, e, r, i, ok)
		}
	}
}

func TestPGRole(t *testing.T) {
	for title, want := range map[string]string{
		"postgres: checkpointer":                             "checkpointer",
		"postgres: 15/main: background writer   ":            "background writer",
		"postgres: writer process":                           "background writer",
		"postgres: wal writer process":                       "walwriter",
		"postgres: bgworker: logical replication launcher":   "logical replication launcher",
		"postgres: walsender repl 10.0.0.2(4312) streaming":  "walsender",
		"postgres: app db [local] idle":                      "backend",
		"postgres: main: app db ::1(5432) SELECT":            "backend",
		"postgres: 16/main: autovacuum worker appdb":         "autovacuum worker",
		"postgres: pg_cron launcher":                         "background worker",
		"/usr/lib/postgresql/15/bin/postgres --single":       "backend",
		"postgres: 15/main: parallel worker for PID 4242   ": "parallel worker",
	} {
		if got := pgRole([]string{title}); got != want {
			t.Errorf("pgRole(%q) = %q, want %q", title, got, want)
		}
	}
}

func TestCmdlineText(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	s := cmdlineText([]string{long})
	if len(s) > maxCmdlineBytes || !strings.HasPrefix(long, s) || len(s) != 256 {
		t.Errorf("truncated to %d bytes: %q", len(s), s)
	}
	s = cmdlineText([]string{"a" + strings.Repeat("é", 200)})
	if len(s) != 255 || !strings.HasPrefix("a"+long, s) {
		t.Errorf("truncated to %d bytes", len(s))
	}
	if got := cmdlineText(cmdlineArgs([]byte("/bin/x\x00-a\x00b\x00\x00"))); got != "/bin/x -a b" {
		t.Errorf("got %q", got)
	}
}

func FuzzParsePIDStatus(f *testing.F) {
	f.Add([]byte(pidStatusText("x", 1, 0, 1, 10, "0-3", "0")))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parsePIDStatus(strings.NewReader(string(b)))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		if st.UID < 0 || st.PPID < 0 || st.Threads < 0 || st.RSSKB < 0 {
			t.Fatalf("negative values %+v", st)
		}
	})
}

func FuzzParsePIDStat(f *testing.F) {
	f.Add(pidStatText(1, "x", 3))
	f.Fuzz(func(t *testing.T, s string) {
		cpu, err := parsePIDStat(s)
		if err == nil && (cpu < 0 || cpu > 1<<16) {
			t.Fatalf("cpu %d", cpu)
		}
	})
}

func FuzzParsePIDCgroup(f *testing.F) {
	f.Add([]byte("3:cpuset:/db\n0::/x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cg, err := parsePIDCgroup(strings.NewReader(string(b)))
		if err == nil && cg.cpusetPath() != "" && !strings.HasPrefix(cg.cpusetPath(), "/") {
			t.Fatalf("path %q", cg.cpusetPath())
		}
	})
}

func FuzzClassifyProcess(f *testing.F) {
	f.Add("ora_pmon_ORCL", []byte("ora_pmon_ORCL\x00"))
	f.Add("postgres", []byte("postgres: 15/main: app db [local] idle\x00"))
	f.Fuzz(func(t *testing.T, comm string, cmdline []byte) {
		args := cmdlineArgs(cmdline)
		e, _, _, ok := classifyProcess(comm, args)
		if ok != (e != "") {
			t.Fatalf("ok=%v engine=%q", ok, e)
		}
		if r := pgRole(args); r == "" {
			t.Fatal("empty pg role")
		}
		if s := cmdlineText(args); len(s) > maxCmdlineBytes {
			t.Fatalf("cmdline %d bytes", len(s))
		}
	})
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

const psAlxSample = `F   UID   PID  PPID PRI  NI    VSZ   RSS WCHAN  STAT TTY        TIME COMMAND
4     0     1     0  20   0  51204 19964 -      Ss   ?          0:18 /sbin/init
1     0     2     0  20   0      0     0 kthrea S    ?          0:00 [kthreadd]
4     0   610     1  20   0  20000  3000 -      Ss   ?          0:01 /usr/sbin/irqbalance --foreground
4     0   620     1  20   0  90000 30000 -      Ssl  ?          0:05 /usr/bin/python3 -Es /usr/sbin/tuned -l -P
0 54321  1000     1  20   0 900000 40000 -      Ss   ?          0:09 ora_pmon_ORCLCDB1
0 54321  1001     1  20   0 900000 50000 -      Ss   ?          0:09 oracleORCLCDB1 (LOCAL=NO)
0   101  2000     1  20   0 217120 29396 -      Ss   ?          0:00 /usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf
1   101  2001  2000  20   0 217252  9324 -      Ss   ?          0:00 postgres: 15/main: checkpointer
1   101  2002  2000  20   0 217252  9324 -      Ss   ?          0:00 postgres: 15/main: app appdb 10.1.1.1(40000) idle
`

const psAxoSample = `  PID  PPID USER     GROUP      LWP NLWP START COMMAND         CGROUP
    1     0 root     root         1    1 05:34 systemd         -
    2     0 root     root         2    1 05:34 kthreadd        -
  610     1 root     root       610    2 05:34 irqbalance      0::/system.slice/irqbalance.service
  620     1 root     root       620    4 05:34 tuned           0::/system.slice/tuned.service
 1000     1 oracle   oinstall  1000    1 05:40 ora_pmon_ORCLCD 4:cpu,cpuacct:/ora,3:cpuset:/oracle,0::/
 1001     1 oracle   oinstall  1001    1 05:41 oracleORCLCDB1  -
 2000     1 postgres postgres  2000    1 06:04 postgres        0::/system.slice/postgresql@15-main.service
 2001  2000 postgres postgres  2001    1 06:04 postgres        0::/system.slice/postgresql@15-main.service
 2002  2000 postgres postgres  2002    1 06:04 postgres        0::/system.slice/postgresql@15-main.service
`

func TestSosProcesses(t *testing.T) {
	files := map[string]string{
		"/proc/meminfo": "MemTotal: 1 kB\n",
		"/etc/passwd":   "root:x:0:0::/:\noracle:x:54321:54321::/:\npostgres:x:101:101::/:\n",
		sosPsAlx:        psAlxSample,
		sosPsAxo:        psAxoSample,
	}
	c := newTestCollector(t, files)
	c.Root.Sos = true
	readProcesses(c)
	sosProcesses(c)
	deriveDaemons(c)
	type row struct {
		pid, ppid, uid, threads int
		comm, user, role, inst  string
		cgroup                  string
	}
	var got []row
	for _, p := range c.Snap.Processes {
		got = append(got, row{p.PID, p.PPID, p.UID, p.Threads, p.Comm, p.User, p.Role, p.Instance, p.Cgroup})
	}
	want := []row{
		{1000, 1, 54321, 1, "ora_pmon_ORCLCD", "oracle", "pmon", "ORCLCDB1", "/oracle"},
		{1001, 1, 54321, 1, "oracleORCLCDB1", "oracle", "shadow", "ORCLCDB1", ""},
		{2000, 1, 101, 1, "postgres", "postgres", "postmaster", "/var/lib/postgresql/15/main", "/system.slice/postgresql@15-main.service"},
		{2001, 2000, 101, 1, "postgres", "postgres", "checkpointer", "/var/lib/postgresql/15/main", "/system.slice/postgresql@15-main.service"},
		{2002, 2000, 101, 1, "postgres", "postgres", "backend", "/var/lib/postgresql/15/main", "/system.slice/postgresql@15-main.service"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("processes:\n got %+v\nwant %+v", got, want)
	}
	if c.Snap.Processes[0].RSSKB != 40000 {
		t.Errorf("rss = %d", c.Snap.Processes[0].RSSKB)
	}
	if len(absentFor(c, "processes")) != 0 || len(absentFor(c, "processes.cpus_allowed")) != 1 {
		t.Errorf("absent = %+v", c.Snap.Absent)
	}
	irq, tuned := c.Snap.IRQs.IrqbalanceRunning, c.Snap.Config.Tuned.Running
	if irq == nil || !*irq || tuned == nil || !*tuned {
		t.Errorf("irqbalance %v tuned %v", irq, tuned)
	}

	// Without the axo output: comm from the command, threads unknown (absent).
	delete(files, sosPsAxo)
	c = newTestCollector(t, files)
	c.Root.Sos = true
	readProcesses(c)
	sosProcesses(c)
	deriveDaemons(c)
	if len(c.Snap.Processes) != 5 || c.Snap.Processes[0].Comm != "ora_pmon_ORCLCD" || c.Snap.Processes[3].Role != "checkpointer" {
		t.Errorf("processes without axo = %+v", c.Snap.Processes)
	}
	if len(absentFor(c, "processes.threads")) != 1 || c.Snap.Config.Tuned.Running == nil || !*c.Snap.Config.Tuned.Running {
		t.Errorf("absent = %+v tuned=%v", c.Snap.Absent, c.Snap.Config.Tuned.Running)
	}

	// Neither /proc copies nor ps output: processes stay absent, daemons unknown.
	c = newTestCollector(t, map[string]string{"/proc/meminfo": "MemTotal: 1 kB\n"})
	c.Root.Sos = true
	readProcesses(c)
	sosProcesses(c)
	deriveDaemons(c)
	if len(absentFor(c, "processes")) != 3 || c.Snap.IRQs.IrqbalanceRunning != nil {
		t.Errorf("absent = %+v irq=%v", c.Snap.Absent, c.Snap.IRQs.IrqbalanceRunning)
	}
}

const psAuxSample = `USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
root           1  0.1  0.2 245000 14000 ?        Ss   Nov01   0:12 /usr/lib/systemd/systemd --switched-root --system
root         610  0.0  0.0  20000  3000 ?        Ss   Nov01   0:01 /usr/sbin/irqbalance --foreground
oracle      3011  0.1  0.2 50600000 58000 ?      Ss   Nov01   0:12 ora_pmon_PROD
oracle      7120  0.1  0.2 50620000 88000 ?      Ss   Nov01   0:12 oraclePROD (LOCAL=NO)
postgres    2000  0.0  0.1 217120 29396 ?        Ss   06:04   0:00 /usr/pgsql-16/bin/postgres -D /pgdata/16
postgres    2001  0.0  0.0 217252  9324 ?        Ss   06:04   0:00 postgres: walwriter
postgres    2002  0.0  0.0 217252  9324 ?        Ss   06:04   0:00 postgres: app appdb [local] idle
mysql       2500  0.5  1.0 1800000 400000 ?      Ssl  06:04   1:00 /usr/sbin/mysqld
`

// TestSosProcessesAux covers reports that only have ps auxwww: user names,
// no parent PIDs (PostgreSQL children told apart by their titles).
func TestSosProcessesAux(t *testing.T) {
	c := newTestCollector(t, map[string]string{
		"/etc/passwd": "root:x:0:0::/:\noracle:x:54321:54321::/:\npostgres:x:26:26::/:\n",
		sosPsAux:      psAuxSample,
	})
	c.Root.Sos = true
	readProcesses(c)
	sosProcesses(c)
	deriveDaemons(c)
	type row struct {
		pid, ppid, uid   int
		comm, user, role string
		inst             string
	}
	var got []row
	for _, p := range c.Snap.Processes {
		got = append(got, row{p.PID, p.PPID, p.UID, p.Comm, p.User, p.Role, p.Instance})
	}
	want := []row{
		{2000, -1, 26, "postgres", "postgres", "postmaster", "/pgdata/16"},
		{2001, -1, 26, "postgres", "postgres", "walwriter", "/pgdata/16"},
		{2002, -1, 26, "postgres", "postgres", "backend", "/pgdata/16"},
		{2500, -1, -1, "mysqld", "mysql", "server", ""},
		{3011, -1, 54321, "ora_pmon_PROD", "oracle", "pmon", "PROD"},
		{7120, -1, 54321, "oraclePROD", "oracle", "shadow", "PROD"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("processes:\n got %+v\nwant %+v", got, want)
	}
	for _, f := range []string{"processes.ppid", "processes.uid", "processes.threads"} {
		if len(absentFor(c, f)) != 1 {
			t.Errorf("want one absence for %s: %+v", f, c.Snap.Absent)
		}
	}
	if irq := c.Snap.IRQs.IrqbalanceRunning; irq == nil || !*irq {
		t.Errorf("irqbalance running = %v", irq)
	}
	if tuned := c.Snap.Config.Tuned.Running; tuned == nil || *tuned {
		t.Errorf("tuned running = %v", tuned)
	}
}

func TestParsePsMalformed(t *testing.T) {
	for _, bad := range []string{"", "USER PID\n", psAuxSample + "x 1 2\n", strings.Replace(psAuxSample, " 3011 ", " pid ", 1)} {
		if _, err := parsePsAux(strings.NewReader(bad)); err == nil {
			t.Errorf("aux %q: no error", trunc(bad, 40))
		}
	}
	for _, bad := range []string{"", "F UID PID\n", strings.Replace(psAlxSample, " 19964 ", " x ", 1), psAlxSample + "1 2 3\n"} {
		if _, err := parsePsAlx(strings.NewReader(bad)); err == nil {
			t.Errorf("alx %q: no error", trunc(bad, 40))
		}
	}
	for _, bad := range []string{"", "PID PPID\n", psAxoSample + "1 2\n", strings.Replace(psAxoSample, "    1 05:34 systemd", "    x 05:34 systemd", 1)} {
		if _, err := parsePsAxo(strings.NewReader(bad)); err == nil {
			t.Errorf("axo %q: no error", trunc(bad, 40))
		}
	}
	if p := psCpusetPath("4:cpu,cpuacct:/a,3:cpuset:/b:c,0::/d"); p != "/b:c" {
		t.Errorf("psCpusetPath = %q", p)
	}
	if p := psCpusetPath("-"); p != "" {
		t.Errorf("psCpusetPath(-) = %q", p)
	}
}

func FuzzParsePsAlx(f *testing.F) {
	f.Add([]byte(psAlxSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := parsePsAlx(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.PID <= 0 || r.UID < 0 || r.RSSKB < 0 {
				t.Fatalf("bad row %+v", r)
			}
			_ = commFromCommand(r.Command)
		}
	})
}

func FuzzParsePsAux(f *testing.F) {
	f.Add([]byte(psAuxSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := parsePsAux(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.PID <= 0 || r.UID != -1 || r.PPID != -1 || r.User == "" {
				t.Fatalf("bad row %+v", r)
			}
		}
	})
}

func FuzzParsePsAxo(f *testing.F) {
	f.Add([]byte(psAxoSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := parsePsAxo(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		for pid, r := range rows {
			if pid != r.PID || r.Threads < 0 {
				t.Fatalf("bad row %+v", r)
			}
			if p := psCpusetPath(r.Cgroup); p != "" && !strings.HasPrefix(p, "/") {
				t.Fatalf("cgroup path %q", p)
			}
		}
	})
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
