package livedb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// procRoot is where Discover reads the live host's /proc (a test may point
// it elsewhere).
var procRoot = "/proc"

// Discover finds the local servers of engine (Postgres or MySQL) among the
// snapshot's database processes: each PostgreSQL postmaster (its data
// directory from its command line or its working directory, its socket from
// postmaster.pid), each mysqld/mariadbd (its listening unix socket from its
// open files). A server dbhost cannot connect to as this user is still
// returned, with the reason and what is needed, so the audit says it.
func Discover(procs []snapshot.Process, engine string) []Target {
	var out []Target
	for _, p := range procs {
		switch {
		case engine == Postgres && p.Engine == "postgres" && p.Role == "postmaster":
			out = append(out, discoverPG(p))
		case engine == MySQL && (p.Engine == "mysql" || p.Engine == "mariadb") && p.Role == "server":
			out = append(out, discoverMySQL(p))
		}
	}
	return out
}

// euid is the effective uid dbhost runs as (a test may change it).
var euid = os.Geteuid

// dialCreds decides how to connect to a server run by OS user uid with peer
// (or unix_socket) authentication: as that user's credentials (root can
// take them for one socket), as dbhost itself (already that user), or not
// at all (why, and what is needed).
func dialCreds(uid int, osUser string) (dialUID, dialGID int, why string) {
	me := euid()
	switch {
	case me == uid:
		return -1, -1, ""
	case me == 0:
		u, err := user.LookupId(strconv.Itoa(uid))
		if err != nil {
			return 0, 0, fmt.Sprintf("the server's OS user (uid %d) is not in /etc/passwd: %v", uid, err)
		}
		gid, _ := strconv.Atoi(u.Gid)
		return uid, gid, ""
	}
	return 0, 0, fmt.Sprintf("dbhost runs as uid %d: connecting with peer authentication as the server's OS user %s needs root (or that user); or give a connection string with a role that may read the settings", me, osUser)
}

func discoverPG(p snapshot.Process) Target {
	t := Target{Engine: Postgres, dialUID: -1, dialGID: -1}
	data := p.Instance
	if data == "" {
		data, _ = os.Readlink(filepath.Join(procRoot, strconv.Itoa(p.PID), "cwd")) // the postmaster runs in its data directory
	}
	t.Discovered = &snapshot.DBDiscovery{PID: p.PID, DataDir: data, OSUser: p.User}
	t.DSN = fmt.Sprintf("postmaster %d, data directory %s", p.PID, data)
	if data == "" {
		t.notConnectable = fmt.Sprintf("the data directory of postmaster %d is unknown (no -D on its command line, and its working directory cannot be read as uid %d)", p.PID, euid())
		return t
	}
	pidFile := filepath.Join(data, "postmaster.pid")
	sockDir, port, err := readPostmasterPID(pidFile)
	switch {
	case errors.Is(err, os.ErrPermission):
		t.notConnectable = fmt.Sprintf("%s: %s: finding the cluster's socket needs root or its OS user %s; or give --pg with a connection string", pidFile, PermissionReason, p.User)
		return t
	case err != nil:
		t.notConnectable = fmt.Sprintf("%s: %v", pidFile, err)
		return t
	case sockDir == "":
		t.notConnectable = fmt.Sprintf("%s: the cluster listens on no unix socket (unix_socket_directories is empty); give --pg with a connection string", pidFile)
		return t
	}
	t.Discovered.Socket = filepath.Join(sockDir, ".s.PGSQL."+port)
	osUser := p.User
	if osUser == "" {
		if u, err := user.LookupId(strconv.Itoa(p.UID)); err == nil {
			osUser = u.Username
		}
	}
	t.Discovered.OSUser = osUser
	t.DSN = fmt.Sprintf("host=%s port=%s user=%s dbname=postgres", kvQuote(sockDir), port, kvQuote(osUser))
	t.dialUID, t.dialGID, t.notConnectable = dialCreds(p.UID, osUser)
	return t
}

// readPostmasterPID reads the socket directory and port from postmaster.pid
// (line 4: port, line 5: the first unix_socket_directories entry).
func readPostmasterPID(path string) (sockDir, port string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	return parsePostmasterPID(f)
}

// parsePostmasterPID parses postmaster.pid: line 1 the PID, 2 the data
// directory, 3 the start time, 4 the port, 5 the first socket directory
// (empty when the server listens on no unix socket), then the listen
// address and the shared memory key (PostgreSQL 9.1+).
func parsePostmasterPID(r io.Reader) (sockDir, port string, err error) {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() && len(lines) < 8 {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	if len(lines) < 5 {
		return "", "", fmt.Errorf("malformed: %d line(s); expected at least 5 (pid, data directory, start time, port, socket directory)", len(lines))
	}
	port = strings.TrimSpace(lines[3])
	if _, err := strconv.Atoi(port); err != nil {
		return "", "", fmt.Errorf("malformed: line 4: expected a port number, got %q", port)
	}
	return strings.TrimSpace(lines[4]), port, nil
}

func discoverMySQL(p snapshot.Process) Target {
	t := Target{Engine: MySQL, dialUID: -1, dialGID: -1}
	data := p.Instance
	if data == "" {
		data, _ = os.Readlink(filepath.Join(procRoot, strconv.Itoa(p.PID), "cwd")) // mysqld runs in its datadir
	}
	t.Discovered = &snapshot.DBDiscovery{PID: p.PID, DataDir: data, OSUser: p.User}
	t.DSN = fmt.Sprintf("%s %d", p.Comm, p.PID)
	sock, err := listeningSocket(p.PID)
	switch {
	case errors.Is(err, os.ErrPermission):
		t.notConnectable = fmt.Sprintf("/proc/%d/fd: %s: finding the server's socket needs root or its OS user %s; or give --mysql with a connection string", p.PID, PermissionReason, p.User)
		return t
	case err != nil:
		t.notConnectable = err.Error()
		return t
	case sock == "":
		t.notConnectable = fmt.Sprintf("%s %d listens on no unix socket; give --mysql with a connection string", p.Comm, p.PID)
		return t
	}
	t.Discovered.Socket = sock
	// unix_socket authentication: root connects as root (Debian's MariaDB and
	// MySQL packages create root@localhost so); the server's own OS user as itself.
	dbUser := "root"
	if euid() != 0 {
		dbUser = p.User
		t.dialUID, t.dialGID, t.notConnectable = dialCreds(p.UID, p.User)
	}
	t.DSN = fmt.Sprintf("%s@unix(%s)/", dbUser, sock)
	return t
}

// listeningSocket finds the path of a unix socket the process listens on:
// its socket file descriptors (/proc/PID/fd) matched with the listening
// entries of /proc/net/unix.
func listeningSocket(pid int) (string, error) {
	fdDir := filepath.Join(procRoot, strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return "", err
	}
	inodes := map[string]bool{}
	for _, e := range ents {
		l, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err != nil {
			continue
		}
		if in, ok := strings.CutPrefix(l, "socket:["); ok {
			inodes[strings.TrimSuffix(in, "]")] = true
		}
	}
	f, err := os.Open(filepath.Join(procRoot, strconv.Itoa(pid), "net", "unix"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	return parseUnixListeners(f, inodes)
}

// kvQuote quotes a libpq key=value value when it needs it.
func kvQuote(v string) string {
	if v != "" && !strings.ContainsAny(v, ` '\`) {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
