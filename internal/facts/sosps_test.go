package facts

import (
	"reflect"
	"strings"
	"testing"
)

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
