package facts

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Sosreport fallback: a sosreport keeps no /proc/PID copies, but its process
// plugin saves ps output. "ps alxwww" gives UID, PID, PPID, RSS and the
// (retitled) command line; "ps auxwww" (older or trimmed reports) stands in
// for it with user names and no PPID; "ps axo pid,ppid,user,group,lwp,nlwp,
// start_time,comm,cgroup" adds PPID, comm, the thread count and the non-root
// cgroup paths. What ps cannot show stays absent: UID and PPID are -1 when
// unknown, Threads 0 with a "processes.threads" absence.
const (
	sosPsAlx = "/sos_commands/process/ps_alxwww"
	sosPsAux = "/sos_commands/process/ps_auxwww"
	sosPsAxo = "/sos_commands/process/ps_axo_pid_ppid_user_group_lwp_nlwp_start_time_comm_cgroup"
)

func init() { register("processes-sos", StageSos, sosProcesses, "processes") }

// psRow is one process of the sosreport's ps outputs.
type psRow struct {
	PID, PPID, UID int // PPID and UID -1 when the output does not show them
	User           string
	RSSKB          int64
	Command        string // alxwww COMMAND (arguments joined by single spaces)
	Comm           string // axo COMMAND
	Threads        int    // axo NLWP; 0 when unknown
	Cgroup         string // axo CGROUP ("-" when every path is /)
}

// psTable is one ps output format: its header, the columns a row needs,
// and how a row's fields become a psRow.
type psTable struct {
	header   func(f []string) bool
	expected string // the header, for the error message
	cols     int
	row      func(f []string) (psRow, bool)
	bad      string // what a row's fields must be
}

// parse reads the table: a header line, then one row per line (blank lines
// skipped), every row checked.
func (t psTable) parse(r io.Reader) ([]psRow, error) {
	var out []psRow
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	header := false
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if !header {
			if !t.header(f) {
				return nil, parseErr(n, "expected the header %q", t.expected)
			}
			header = true
			continue
		}
		if len(f) < t.cols {
			return nil, parseErr(n, "expected %d columns, got %d", t.cols, len(f))
		}
		row, ok := t.row(f)
		if !ok {
			return nil, parseErr(n, "%s", t.bad)
		}
		out = append(out, row)
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	if !header {
		return nil, parseErr(0, "empty ps output")
	}
	return out, nil
}

// psAlx is "ps alxwww": F UID PID PPID PRI NI VSZ RSS WCHAN STAT TTY TIME COMMAND.
var psAlx = psTable{
	header: func(f []string) bool {
		return len(f) >= 13 && f[1] == "UID" && f[2] == "PID" && f[3] == "PPID" && f[7] == "RSS" && f[12] == "COMMAND"
	},
	expected: "F UID PID PPID PRI NI VSZ RSS WCHAN STAT TTY TIME COMMAND",
	cols:     13,
	row: func(f []string) (psRow, bool) {
		uid, e1 := strconv.Atoi(f[1])
		pid, e2 := strconv.Atoi(f[2])
		ppid, e3 := strconv.Atoi(f[3])
		rss, e4 := strconv.ParseInt(f[7], 10, 64)
		ok := e1 == nil && e2 == nil && e3 == nil && e4 == nil && uid >= 0 && pid > 0 && ppid >= 0 && rss >= 0
		return psRow{PID: pid, PPID: ppid, UID: uid, RSSKB: rss, Command: strings.Join(f[12:], " ")}, ok
	},
	bad: "expected numeric UID, PID, PPID and RSS",
}

// psAux is "ps auxwww": USER PID %CPU %MEM VSZ RSS TTY STAT START TIME
// COMMAND. It has no PPID and names users (PPID and UID are -1).
var psAux = psTable{
	header: func(f []string) bool {
		return len(f) >= 11 && f[0] == "USER" && f[1] == "PID" && f[5] == "RSS" && f[10] == "COMMAND"
	},
	expected: "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND",
	cols:     11,
	row: func(f []string) (psRow, bool) {
		pid, e1 := strconv.Atoi(f[1])
		rss, e2 := strconv.ParseInt(f[5], 10, 64)
		ok := e1 == nil && e2 == nil && pid > 0 && rss >= 0
		return psRow{PID: pid, PPID: -1, UID: -1, User: f[0], RSSKB: rss, Command: strings.Join(f[10:], " ")}, ok
	},
	bad: "expected numeric PID and RSS",
}

// psAxo is "ps axo pid,ppid,user,group,lwp,nlwp,start_time,comm,cgroup".
// COMMAND (comm) may hold spaces; CGROUP is the last column.
var psAxo = psTable{
	header: func(f []string) bool {
		return len(f) == 9 && f[0] == "PID" && f[5] == "NLWP" && f[8] == "CGROUP"
	},
	expected: "PID PPID USER GROUP LWP NLWP START COMMAND CGROUP",
	cols:     9,
	row: func(f []string) (psRow, bool) {
		pid, e1 := strconv.Atoi(f[0])
		ppid, e2 := strconv.Atoi(f[1])
		nlwp, e3 := strconv.Atoi(f[5])
		ok := e1 == nil && e2 == nil && e3 == nil && pid > 0 && ppid >= 0 && nlwp >= 0
		return psRow{PID: pid, PPID: ppid, User: f[2], Threads: nlwp, Comm: strings.Join(f[7:len(f)-1], " "), Cgroup: f[len(f)-1]}, ok
	},
	bad: "expected numeric PID, PPID and NLWP",
}

// parsePsAlx parses "ps alxwww" output.
func parsePsAlx(r io.Reader) ([]psRow, error) { return psAlx.parse(r) }

// parsePsAux parses "ps auxwww" output.
func parsePsAux(r io.Reader) ([]psRow, error) { return psAux.parse(r) }

// parsePsAxo parses "ps axo ..." output into rows by PID.
func parsePsAxo(r io.Reader) (map[int]psRow, error) {
	rows, err := psAxo.parse(r)
	if err != nil {
		return nil, err
	}
	out := make(map[int]psRow, len(rows))
	for _, row := range rows {
		out[row.PID] = row
	}
	return out, nil
}

// psCpusetPath picks the cpuset path out of ps's CGROUP column
// ("4:memory:/x,3:cpuset:/db,0::/y"; controllers may themselves hold commas).
func psCpusetPath(s string) string {
	v2 := ""
	for _, part := range strings.Split(s, ",") {
		f := strings.SplitN(part, ":", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
			continue
		}
		if f[1] == "cpuset" {
			return f[2]
		}
		if f[0] == "0" && f[1] == "" {
			v2 = f[2]
		}
	}
	return v2
}

// commFromCommand guesses comm from a command line when ps axo output is
// missing: the program's base name, cut to 15 bytes as the kernel does.
func commFromCommand(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 || strings.HasPrefix(f[0], "[") {
		return ""
	}
	s := strings.TrimSuffix(f[0], ":")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 15 {
		s = s[:15]
	}
	return s
}

func sosProcesses(c *Collector) {
	if !c.Root.Sos {
		return
	}
	v, ok := daemonScans.Load(c)
	if !ok || v.(daemonScan).scanned {
		return
	}
	b, err := c.Root.ReadFile(sosPsAlx)
	var rows []psRow
	if err == nil {
		rows, err = parsePsAlx(bytes.NewReader(b))
	}
	src := sosPsAlx
	if err != nil {
		b, err2 := c.Root.ReadFile(sosPsAux)
		if err2 == nil {
			rows, err2 = parsePsAux(bytes.NewReader(b))
		}
		if err2 != nil {
			c.Absent("processes", sosPsAlx, err)
			c.Absent("processes", sosPsAux, err2)
			return
		}
		src = sosPsAux
	}
	var axo map[int]psRow
	if b, err := c.Root.ReadFile(sosPsAxo); err != nil {
		c.Absent("processes.threads", sosPsAxo, err)
	} else if axo, err = parsePsAxo(bytes.NewReader(b)); err != nil {
		c.Absent("processes.threads", sosPsAxo, err)
		axo = nil
	}
	ds := daemonScan{scanned: true}
	procs := []snapshot.Process{}
	argsOf := map[int][]string{}
	var passwd map[int]string
	var uids map[string]int
	unknownUID := 0
	for _, r := range rows {
		comm := commFromCommand(r.Command)
		a, haveAxo := axo[r.PID]
		if haveAxo {
			comm = a.Comm
			r.PPID = a.PPID
			if r.User == "" {
				r.User = a.User
			}
		}
		args := strings.Fields(r.Command)
		switch {
		case comm == "irqbalance":
			ds.irqbalance = true
			continue
		case comm == "tuned" || strings.HasPrefix(comm, "python") && len(args) > 1 && slicesContainsSuffix(args[1:min(len(args), 4)], "tuned"):
			ds.tund = true
			continue
		}
		if !dbComm(comm) {
			continue
		}
		engine, role, inst, ok := classifyProcess(comm, args)
		if !ok {
			continue
		}
		if passwd == nil {
			if uids, passwd = c.readPasswd("processes.user"); passwd == nil {
				uids, passwd = map[string]int{}, map[int]string{}
			}
		}
		if r.UID < 0 {
			if uid, ok := uids[r.User]; ok {
				r.UID = uid
			} else if uid, err := strconv.Atoi(r.User); err == nil && uid >= 0 {
				r.UID = uid
			} else {
				unknownUID++
			}
		}
		user := passwd[r.UID]
		if user == "" && r.UID < 0 {
			user = r.User
		}
		p := snapshot.Process{PID: r.PID, Comm: comm, Cmdline: cmdlineText(args), UID: r.UID, User: user,
			Engine: engine, Role: role, Instance: inst, PPID: r.PPID, RSSKB: r.RSSKB}
		if haveAxo {
			p.Threads = a.Threads
			p.Cgroup = psCpusetPath(a.Cgroup)
		}
		procs = append(procs, p)
		argsOf[r.PID] = args
	}
	sort.Slice(procs, func(i, j int) bool { return procs[i].PID < procs[j].PID })
	resolvePostgres(procs, argsOf)
	c.Snap.Processes = procs
	c.Resolve("processes")
	daemonScans.Store(c, ds)
	if len(procs) > 0 {
		for _, f := range []string{"processes.cpus_allowed", "processes.mems_allowed", "processes.last_cpu", "processes.numa"} {
			c.AbsentReason(f, src, "a sosreport's ps output does not show it")
		}
		if axo == nil && src == sosPsAux {
			c.AbsentReason("processes.ppid", src, "ps auxwww does not show parent PIDs (ppid -1)")
		}
	}
	if unknownUID > 0 {
		c.AbsentReason("processes.uid", src, fmt.Sprintf("%d process(es) whose user is not in /etc/passwd (uid -1)", unknownUID))
	}
}

func slicesContainsSuffix(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasSuffix(a, "/"+name) {
			return true
		}
	}
	return false
}
