package facts

import (
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

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

// PSLine is one process of a ps listing on a host dbhost cannot read
// /proc of (an AIX ps -ef).
type PSLine struct {
	PID, PPID int
	User      string
	Command   string // the command line as ps prints it
}

// DBProcesses picks the database processes of a ps listing and names their
// engine, role and instance as the Linux readers do (comm taken from the
// command's program name): the sosreport reader's rules for a host known
// only by its ps output. Sorted by PID.
func DBProcesses(rows []PSLine) []snapshot.Process {
	procs := []snapshot.Process{}
	argsOf := map[int][]string{}
	for _, r := range rows {
		comm := commFromCommand(r.Command)
		if !dbComm(comm) {
			continue
		}
		args := strings.Fields(r.Command)
		engine, role, inst, ok := classifyProcess(comm, args)
		if !ok {
			continue
		}
		procs = append(procs, snapshot.Process{PID: r.PID, PPID: r.PPID, Comm: comm, Cmdline: cmdlineText(args),
			User: r.User, UID: -1, Engine: engine, Role: role, Instance: inst})
		argsOf[r.PID] = args
	}
	sort.Slice(procs, func(i, j int) bool { return procs[i].PID < procs[j].PID })
	resolvePostgres(procs, argsOf)
	return procs
}
