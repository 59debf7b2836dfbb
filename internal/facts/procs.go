package facts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() {
	register("processes", StageSources, readProcesses)
	register("processes-daemons", StageDerived, deriveDaemons)
}

const (
	maxCmdlineBytes = 256
	// maxNumaMapsProcs caps how many processes' numa_maps are read: the kernel
	// walks the page tables of the whole mapping for each read.
	maxNumaMapsProcs = 32
	maxProcFileBytes = 1 << 20
)

// procMatchHook lets a test treat another comm as a database process
// (engine, role). nil outside tests.
var procMatchHook func(comm string) (engine, role string, ok bool)

// daemonScan is what the process scan learned about non-database daemons;
// it is handed from the sources stage to deriveDaemons, which writes the
// fields that belong to other parts of the snapshot (IRQs, Config.Tuned).
type daemonScan struct {
	scanned          bool
	irqbalance, tund bool
}

var daemonScans sync.Map // *Collector → daemonScan

// pidStatus is what dbhost keeps of /proc/PID/status.
type pidStatus struct {
	Name    string
	State   string
	UID     int
	PPID    int
	Threads int
	RSSKB   int64 // 0 when VmRSS is not printed (kernel threads, zombies)
	CPUs    []int // Cpus_allowed_list; nil when not printed
	Mems    []int // Mems_allowed_list; nil when not printed
}

// parsePIDStatus parses /proc/PID/status. Uid, PPid and Threads are required.
func parsePIDStatus(r io.Reader) (pidStatus, error) {
	var st pidStatus
	var haveUID, havePPID, haveThreads bool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		var err error
		switch k {
		case "Name":
			st.Name = v
		case "State":
			st.State, _, _ = strings.Cut(v, " ")
		case "Uid":
			f := strings.Fields(v)
			if len(f) == 0 {
				return st, parseErr(n, "expected uids after Uid:")
			}
			st.UID, err = strconv.Atoi(f[0])
			haveUID = err == nil && st.UID >= 0
		case "PPid":
			st.PPID, err = strconv.Atoi(v)
			havePPID = err == nil && st.PPID >= 0
		case "Threads":
			st.Threads, err = strconv.Atoi(v)
			haveThreads = err == nil && st.Threads >= 0
		case "VmRSS":
			num, unit, _ := strings.Cut(v, " ")
			st.RSSKB, err = strconv.ParseInt(num, 10, 64)
			if err == nil && (st.RSSKB < 0 || strings.TrimSpace(unit) != "kB") {
				err = fmt.Errorf("unit")
			}
		case "Cpus_allowed_list":
			st.CPUs, err = cpulist.Parse(v)
		case "Mems_allowed_list":
			st.Mems, err = cpulist.Parse(v)
		}
		if err != nil {
			return st, parseErr(n, "unreadable %s: %q", k, trunc(v, 40))
		}
	}
	if err := sc.Err(); err != nil {
		return st, parseErr(n+1, "%v", err)
	}
	switch {
	case !haveUID:
		return st, parseErr(0, "no Uid line")
	case !havePPID:
		return st, parseErr(0, "no PPid line")
	case !haveThreads:
		return st, parseErr(0, "no Threads line")
	}
	return st, nil
}

// parsePIDStat returns field 39 (processor: the CPU the task last ran on)
// of /proc/PID/stat. The comm field is parenthesised and may itself hold
// spaces and ')', so fields are counted from the last ')'.
func parsePIDStat(s string) (int, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, parseErr(1, "expected \"pid (comm) state ...\"")
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field 39 is f[36].
	if len(f) < 37 {
		return 0, parseErr(1, "expected at least 39 fields, got %d", len(f)+2)
	}
	cpu, err := strconv.Atoi(f[36])
	if err != nil || cpu < 0 || cpu > 1<<16 {
		return 0, parseErr(1, "expected a CPU number in field 39, got %q", trunc(f[36], 20))
	}
	return cpu, nil
}

// pidCgroup is /proc/PID/cgroup: v1 controller → path and the v2 path.
type pidCgroup struct {
	V1    map[string]string // "cpuset" → "/db", "name=systemd" → "/..."
	V2    string
	HasV2 bool
}

// parsePIDCgroup parses /proc/PID/cgroup lines "ID:controllers:path" (v1)
// and "0::path" (v2).
func parsePIDCgroup(r io.Reader) (pidCgroup, error) {
	cg := pidCgroup{V1: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
			return cg, parseErr(n, "expected \"id:controllers:/path\", got %q", trunc(line, 60))
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			return cg, parseErr(n, "expected a hierarchy id, got %q", trunc(f[0], 20))
		}
		if f[1] == "" {
			cg.V2, cg.HasV2 = f[2], true
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			if ctl != "" {
				cg.V1[ctl] = f[2]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return cg, parseErr(n+1, "%v", err)
	}
	return cg, nil
}

// cpusetPath is the path that decides a process's cpuset: the v1 cpuset
// hierarchy's when it has one, else the v2 path.
func (cg pidCgroup) cpusetPath() string {
	if p, ok := cg.V1["cpuset"]; ok {
		return p
	}
	return cg.V2
}

// cmdlineArgs splits /proc/PID/cmdline at NULs. A process that rewrote its
// argv (Oracle, PostgreSQL) may leave one argument holding spaces.
func cmdlineArgs(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}

// cmdlineText joins arguments with spaces, truncated to maxCmdlineBytes on a
// UTF-8 boundary.
func cmdlineText(args []string) string {
	s := strings.TrimSpace(strings.Join(args, " "))
	if len(s) <= maxCmdlineBytes {
		return s
	}
	// Cut before the rune that the limit falls into.
	cut := maxCmdlineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// dbComm says whether a comm may be a database process worth reading (the
// cheap first filter; classifyProcess decides with the cmdline).
func dbComm(comm string) bool {
	switch {
	case strings.HasPrefix(comm, "ora_"), strings.HasPrefix(comm, "asm_"), strings.HasPrefix(comm, "mdb_"),
		strings.HasPrefix(comm, "oracle") && len(comm) > len("oracle"),
		comm == "tnslsnr", comm == "postgres", comm == "postmaster", comm == "mysqld", comm == "mariadbd":
		return true
	}
	return false
}

// oracleSIDChars are the characters of an ORACLE_SID as it appears in a
// shadow process's name ("+ASM1", "ORCL_1").
func oracleSID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '+' || r == '$' || r == '#') {
			return false
		}
	}
	return true
}

// classifyProcess names a process's engine, role and instance from its comm
// and arguments. PostgreSQL processes come back with role "" and are
// resolved by pgRole once parents are known. ok is false for anything that
// is not a database process.
func classifyProcess(comm string, args []string) (engine, role, instance string, ok bool) {
	argv0 := comm
	if len(args) > 0 {
		if f := strings.Fields(args[0]); len(f) > 0 {
			argv0 = f[0]
		}
	}
	// comm is cut at 15 bytes; argv[0] holds the full name when it is the same process name.
	name := func(prefix string) string {
		if strings.HasPrefix(argv0, prefix) {
			return argv0
		}
		return comm
	}
	switch {
	case strings.HasPrefix(comm, "ora_"), strings.HasPrefix(comm, "mdb_"):
		rest := name(comm[:4])[4:]
		bg, sid, _ := strings.Cut(rest, "_")
		role = "background"
		if bg == "pmon" {
			role = "pmon"
		}
		return "oracle", role, sid, true
	case strings.HasPrefix(comm, "asm_"):
		_, sid, _ := strings.Cut(name("asm_")[4:], "_")
		return "oracle", "asm", sid, true
	case strings.HasPrefix(comm, "oracle") && len(comm) > len("oracle"):
		joined := strings.Join(args, " ")
		bequeath := strings.Contains(joined, "(LOCAL=") || strings.Contains(joined, "(DESCRIPTION=")
		sid := name("oracle")[len("oracle"):]
		// A shadow's argv[0] is rewritten to "oracleSID"; a program such as
		// /usr/sbin/oracleasm run by a shell has a path there instead.
		if !bequeath && (!oracleSID(sid) || strings.Contains(argv0, "/")) {
			return "", "", "", false
		}
		return "oracle", "shadow", sid, true
	case comm == "tnslsnr":
		if len(args) > 1 {
			instance = args[1]
		}
		return "oracle", "listener", instance, true
	case comm == "postgres" || comm == "postmaster":
		return "postgres", "", "", true
	case comm == "mysqld" || comm == "mariadbd":
		engine = "mysql"
		if comm == "mariadbd" {
			engine = "mariadb"
		}
		return engine, "server", flagValue(args, "--datadir"), true
	}
	return "", "", "", false
}

// flagValue finds "--name=value" or "--name value" in args.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// pgDataDir is the -D / --pgdata argument of a postmaster.
func pgDataDir(args []string) string {
	for i, a := range args {
		switch {
		case a == "-D" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "-D") && len(a) > 2:
			return a[2:]
		}
	}
	return flagValue(args, "--pgdata")
}

// pgAuxTitles are the process titles of PostgreSQL's auxiliary processes
// (PG 11+ spelling; older "... process" spellings are mapped to these).
var pgAuxTitles = []string{
	"logical replication parallel apply worker", "logical replication tablesync worker",
	"logical replication apply worker", "logical replication launcher", "logical replication worker",
	"autovacuum launcher", "autovacuum worker", "background writer", "checkpointer", "walwriter",
	"walsender", "walreceiver", "walsummarizer", "stats collector", "archiver", "startup", "logger",
	"io worker", "slotsync worker", "parallel worker", "syslogger",
}

var pgOldTitles = map[string]string{"writer": "background writer", "wal writer": "walwriter", "wal sender": "walsender", "wal receiver": "walreceiver"}

// pgRole names a PostgreSQL child process from its title ("postgres:
// [cluster_name: ]title"): an auxiliary process's title ("walwriter",
// "checkpointer", ...), "backend" for a client connection ("user db
// host(port) state" or "[local]"), else "background worker".
func pgRole(args []string) string {
	t := strings.Join(args, " ")
	rest, ok := strings.CutPrefix(t, "postgres: ")
	if !ok {
		rest, ok = strings.CutPrefix(t, "postmaster: ")
	}
	if !ok {
		return "backend"
	}
	rest = strings.TrimSpace(rest)
	// cluster_name prefix: "15/main: checkpointer".
	if i := strings.Index(rest, ": "); i > 0 && !strings.ContainsAny(rest[:i], " ") && rest[:i] != "bgworker" {
		rest = strings.TrimSpace(rest[i+2:])
	}
	rest = strings.TrimPrefix(rest, "bgworker: ")
	if r, ok := strings.CutSuffix(rest, " process"); ok {
		rest = r
	}
	if r, ok := pgOldTitles[rest]; ok {
		return r
	}
	for _, a := range pgAuxTitles {
		if rest == a || strings.HasPrefix(rest, a+" ") {
			return a
		}
	}
	f := strings.Fields(rest)
	if len(f) >= 3 && (f[2] == "[local]" || strings.HasSuffix(f[2], ")") && strings.Contains(f[2], "(")) {
		return "backend"
	}
	if strings.Contains(rest, "[local]") {
		return "backend"
	}
	return "background worker"
}

// procProblems counts per kind of fact the processes whose file could not
// be read, so that one absence is recorded per kind, not one per process.
type procProblems struct {
	kinds map[string]*procProblem
}

type procProblem struct {
	file   string // "/proc/PID/status"
	denied int
	other  int
	first  string // first non-permission reason, with its PID
}

func (pp *procProblems) add(kind, file string, pid int, err error) {
	if pp.kinds == nil {
		pp.kinds = map[string]*procProblem{}
	}
	p := pp.kinds[kind]
	if p == nil {
		p = &procProblem{file: file}
		pp.kinds[kind] = p
	}
	if errors.Is(err, fs.ErrPermission) {
		p.denied++
		return
	}
	p.other++
	if p.first == "" {
		p.first = fmt.Sprintf("PID %d: %s", pid, Reason(err))
	}
}

func (pp *procProblems) record(c *Collector) {
	for kind, p := range pp.kinds {
		var parts []string
		if p.denied > 0 {
			parts = append(parts, fmt.Sprintf("permission denied for %d process(es) (run as root to read them)", p.denied))
		}
		if p.other > 0 {
			parts = append(parts, fmt.Sprintf("unreadable for %d process(es), first %s", p.other, p.first))
		}
		c.AbsentReason(kind, p.file, strings.Join(parts, "; "))
	}
}

// vanished reports an error that means the process exited during the scan.
func vanished(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// readProcFile reads a /proc file (see readRaw), at most maxProcFileBytes;
// with oneRead, a single read (enough for comm, at most 16 bytes).
func (c *Collector) readProcFile(p string, oneRead bool) ([]byte, error) {
	size := 4096
	if oneRead {
		size = 256
	}
	return c.Root.readRaw(p, make([]byte, 0, size), !oneRead, maxProcFileBytes)
}

func readProcesses(c *Collector) {
	procs, ds := scanProcesses(c)
	c.Snap.Processes = procs
	daemonScans.Store(c, ds)
}

// deriveDaemons sets IRQs.IrqbalanceRunning and Config.Tuned.Running from
// the process scan: nil when /proc could not be scanned.
func deriveDaemons(c *Collector) {
	v, ok := daemonScans.LoadAndDelete(c)
	if !ok {
		return
	}
	ds := v.(daemonScan)
	if !ds.scanned {
		return
	}
	irq, tuned := ds.irqbalance, ds.tund
	c.Snap.IRQs.IrqbalanceRunning = &irq
	c.Snap.Config.Tuned.Running = &tuned
}

func scanProcesses(c *Collector) ([]snapshot.Process, daemonScan) {
	procs := []snapshot.Process{}
	var ds daemonScan
	names, err := c.Root.ReadDirNames("/proc")
	if err != nil {
		c.Absent("processes", "/proc", err)
		return procs, ds
	}
	var pids []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		c.AbsentReason("processes", "/proc", "no process directories under /proc (processes were not captured)")
		return procs, ds
	}
	sort.Ints(pids)
	var pp procProblems
	type cand struct {
		pid    int
		comm   string
		engine string
		role   string
	}
	var cands []cand
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid)
		b, err := c.readProcFile(dir+"/comm", true)
		if err != nil {
			if !vanished(err) {
				pp.add("processes", "/proc/PID/comm", pid, err)
			}
			continue
		}
		comm := strings.TrimSuffix(string(b), "\n")
		switch {
		case comm == "irqbalance":
			ds.irqbalance = true
			continue
		case comm == "tuned":
			ds.tund = true
			continue
		case strings.HasPrefix(comm, "python") && !ds.tund:
			// tuned run as "python3 /usr/sbin/tuned".
			if cb, err := c.readProcFile(dir+"/cmdline", false); err == nil {
				for i, a := range cmdlineArgs(cb) {
					if i > 0 && i < 4 && (a == "tuned" || strings.HasSuffix(a, "/tuned")) {
						ds.tund = true
					}
				}
			}
			continue
		}
		if procMatchHook != nil {
			if e, r, ok := procMatchHook(comm); ok {
				cands = append(cands, cand{pid, comm, e, r})
				continue
			}
		}
		if dbComm(comm) {
			cands = append(cands, cand{pid: pid, comm: comm})
		}
	}
	ds.scanned = true
	if c.Root.Live && os.Geteuid() != 0 {
		if b, err := c.Root.ReadFile("/proc/mounts"); err == nil {
			if opt := procHidepid(string(b)); opt != "" {
				c.AbsentReason("processes", "/proc", "/proc is mounted with "+opt+
					": other users' processes are hidden (run as root to see every database process)")
			}
		}
	}
	passwd := map[int]string(nil)
	if len(cands) > 0 {
		_, passwd = c.readPasswd("processes.user")
	}
	argsOf := map[int][]string{}
	for _, cd := range cands {
		dir := "/proc/" + strconv.Itoa(cd.pid)
		var args []string
		if b, err := c.readProcFile(dir+"/cmdline", false); err == nil {
			args = cmdlineArgs(b)
		} else if vanished(err) {
			continue
		} else {
			pp.add("processes.cmdline", "/proc/PID/cmdline", cd.pid, err)
		}
		engine, role, inst := cd.engine, cd.role, ""
		if engine == "" {
			var ok bool
			if engine, role, inst, ok = classifyProcess(cd.comm, args); !ok {
				continue
			}
		}
		b, err := c.readProcFile(dir+"/status", false)
		if err != nil {
			if !vanished(err) {
				pp.add("processes.status", "/proc/PID/status", cd.pid, err)
			}
			continue
		}
		st, err := parsePIDStatus(bytes.NewReader(b))
		if err != nil {
			pp.add("processes.status", "/proc/PID/status", cd.pid, err)
			continue
		}
		p := snapshot.Process{
			PID: cd.pid, Comm: cd.comm, Cmdline: cmdlineText(args), UID: st.UID, User: passwd[st.UID],
			Engine: engine, Role: role, Instance: inst, PPID: st.PPID, Threads: st.Threads, RSSKB: st.RSSKB,
			CPUsAllowed: st.CPUs, MemsAllowed: st.Mems,
		}
		if st.CPUs == nil {
			pp.add("processes.cpus_allowed", "/proc/PID/status", cd.pid, parseErr(0, "no Cpus_allowed_list line"))
		}
		if st.Mems == nil {
			pp.add("processes.mems_allowed", "/proc/PID/status", cd.pid, parseErr(0, "no Mems_allowed_list line"))
		}
		if b, err := c.readProcFile(dir+"/stat", false); err != nil {
			if !vanished(err) {
				pp.add("processes.last_cpu", "/proc/PID/stat", cd.pid, err)
			}
		} else if cpu, err := parsePIDStat(string(b)); err != nil {
			pp.add("processes.last_cpu", "/proc/PID/stat", cd.pid, err)
		} else {
			p.LastCPU = &cpu
		}
		if b, err := c.readProcFile(dir+"/cgroup", false); err != nil {
			if !vanished(err) {
				pp.add("processes.cgroup", "/proc/PID/cgroup", cd.pid, err)
			}
		} else if cg, err := parsePIDCgroup(bytes.NewReader(b)); err != nil {
			pp.add("processes.cgroup", "/proc/PID/cgroup", cd.pid, err)
		} else {
			p.Cgroup = cg.cpusetPath()
		}
		procs = append(procs, p)
		argsOf[cd.pid] = args
	}
	resolvePostgres(procs, argsOf)
	readMainNumaMaps(c, procs, &pp)
	pp.record(c)
	return procs, ds
}

// resolvePostgres gives PostgreSQL processes their roles: the postmaster is
// the one whose parent is not a PostgreSQL process; its children take their
// role from their title and the postmaster's data directory as instance.
func resolvePostgres(procs []snapshot.Process, argsOf map[int][]string) {
	idx := map[int]int{}
	for i, p := range procs {
		if p.Engine == "postgres" {
			idx[p.PID] = i
		}
	}
	args := func(p snapshot.Process) []string { return argsOf[p.PID] }
	postmasters := 0
	for i := range procs {
		p := &procs[i]
		if p.Engine != "postgres" || p.Role != "" {
			continue
		}
		_, child := idx[p.PPID]
		if p.PPID < 0 {
			// Parent unknown (ps auxwww): children carry a "postgres: " title.
			a := args(*p)
			child = len(a) > 0 && (a[0] == "postgres:" || a[0] == "postmaster:" ||
				strings.HasPrefix(a[0], "postgres: ") || strings.HasPrefix(a[0], "postmaster: "))
		}
		if !child {
			p.Role = "postmaster"
			p.Instance = pgDataDir(args(*p))
			postmasters++
		}
	}
	for i := range procs {
		p := &procs[i]
		if p.Engine != "postgres" || p.Role != "" {
			continue
		}
		p.Role = pgRole(args(*p))
		if p.PPID < 0 && postmasters == 1 {
			for _, q := range procs {
				if q.Role == "postmaster" {
					p.Instance = q.Instance
				}
			}
		}
		// Walk up to the postmaster (bounded against loops in a captured tree).
		pid := p.PPID
		for depth := 0; depth < 8; depth++ {
			j, ok := idx[pid]
			if !ok {
				break
			}
			if procs[j].Role == "postmaster" {
				p.Instance = procs[j].Instance
				break
			}
			pid = procs[j].PPID
		}
	}
}

// mainRole reports the process whose numa_maps stands for its instance:
// children (shadows, backends) map the same shared memory.
func mainRole(role string) bool {
	return role == "pmon" || role == "postmaster" || role == "server"
}

// procHidepid returns the /proc mount option that hides other users'
// processes ("hidepid=2", "hidepid=invisible", "hidepid=1" hides their
// files), or "" when /proc shows them.
func procHidepid(mounts string) string {
	for _, line := range strings.Split(mounts, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[2] != "proc" || f[1] != "/proc" {
			continue
		}
		for _, o := range strings.Split(f[3], ",") {
			if v, ok := strings.CutPrefix(o, "hidepid="); ok && v != "0" && v != "off" {
				return o
			}
		}
	}
	return ""
}

func readMainNumaMaps(c *Collector, procs []snapshot.Process, pp *procProblems) {
	read, skipped := 0, 0
	for i := range procs {
		p := &procs[i]
		if !mainRole(p.Role) {
			continue
		}
		if read >= maxNumaMapsProcs {
			skipped++
			continue
		}
		read++
		b, err := c.readProcFile("/proc/"+strconv.Itoa(p.PID)+"/numa_maps", false)
		if err != nil {
			pp.add("processes.numa", "/proc/PID/numa_maps", p.PID, err)
			continue
		}
		m, err := parseNumaMaps(bytes.NewReader(b))
		if err != nil {
			pp.add("processes.numa", "/proc/PID/numa_maps", p.PID, err)
			continue
		}
		p.NUMA = m
	}
	if skipped > 0 {
		c.AbsentReason("processes.numa", "/proc/PID/numa_maps",
			fmt.Sprintf("numa_maps read for the first %d main processes only; %d more skipped", maxNumaMapsProcs, skipped))
	}
}

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

func init() { register("processes-sos", StageSos, sosProcesses) }

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
