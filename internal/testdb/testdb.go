// Package testdb starts throwaway database servers for tests: a PostgreSQL
// cluster (Debian's postgresql package: initdb in a temporary directory, run
// as the postgres user) and a MariaDB server (mariadb-server:
// mariadb-install-db into a temporary datadir, mariadbd as the mysql user),
// each on a unix socket in its own temporary directory and, when asked, a
// loopback TCP port chosen at run time. Never the system services. Each is
// stopped and removed when the test ends (t.Cleanup), also when it fails.
// A test skips, with the missing package named, where they cannot run.
package testdb

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PGOptions shape a PostgreSQL test cluster.
type PGOptions struct {
	// Settings are extra "-c name=value" settings of the server.
	Settings []string
	// AuthLocal and AuthHost are initdb's --auth-local and --auth-host
	// (default trust for both).
	AuthLocal, AuthHost string
	// WALDir puts the WAL in a directory of its own (initdb -X: pg_wal
	// becomes a symlink to it), below the cluster's temporary directory.
	WALDir bool
}

// PG is a running test cluster.
type PG struct {
	Bin, Dir, Data string
	Port           int    // its loopback TCP port (and the socket's number)
	DSN            string // over its unix socket, as the postgres role
	PID            int    // the postmaster
	asPG           func(args ...string) *exec.Cmd
}

// StartPostgres starts a cluster for the test; it is stopped and removed at the end.
func StartPostgres(t testing.TB, o PGOptions) *PG {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("PostgreSQL server not installed (package postgresql)")
	}
	sort.Strings(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	pgUser, err := user.Lookup("postgres")
	if err != nil {
		t.Skip("no postgres user (package postgresql creates it)")
	}
	asPG := func(args ...string) *exec.Cmd {
		if os.Geteuid() == 0 {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
		cur, _ := user.Current()
		if cur == nil || cur.Username != "postgres" {
			return nil
		}
		return exec.Command(args[0], args[1:]...)
	}
	if asPG("true") == nil {
		t.Skip("PostgreSQL tests need root (to run as postgres) or the postgres user")
	}
	dir, err := os.MkdirTemp("", "dbhost-pg-")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(pgUser.Uid)
	gid, _ := strconv.Atoi(pgUser.Gid)
	if os.Geteuid() == 0 {
		os.Chown(dir, uid, gid)
	}
	os.Chmod(dir, 0o755)
	data := filepath.Join(dir, "data")
	authLocal, authHost := o.AuthLocal, o.AuthHost
	if authLocal == "" {
		authLocal = "trust"
	}
	if authHost == "" {
		authHost = "trust"
	}
	initdb := []string{filepath.Join(bin, "initdb"), "-D", data, "--auth-local=" + authLocal, "--auth-host=" + authHost, "-U", "postgres"}
	if o.WALDir {
		initdb = append(initdb, "-X", filepath.Join(dir, "wal"))
	}
	if out, err := asPG(initdb...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := FreePort(t)
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c shared_buffers=32MB -c fsync=off -c max_connections=40", port, dir)
	for _, s := range o.Settings {
		opts += " -c " + s
	}
	p := &PG{Bin: bin, Dir: dir, Data: data, Port: port, asPG: asPG,
		DSN: fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", dir, port)}
	if out, err := asPG(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		_ = asPG(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").Run()
		for i := 0; i < 50; i++ {
			if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); os.IsNotExist(err) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		os.RemoveAll(dir)
	})
	if b, err := os.ReadFile(filepath.Join(data, "postmaster.pid")); err == nil {
		p.PID, _ = strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	}
	return p
}

// SQL runs statements with psql as the postgres superuser over the socket.
func (p *PG) SQL(t testing.TB, sql string) string {
	t.Helper()
	out, err := p.asPG("psql", "-X", "-h", p.Dir, "-p", strconv.Itoa(p.Port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-Atc", sql).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}

// FreePort is a loopback TCP port free at the time of the call (the kernel
// picks it: port 0).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// MariaDBOptions shape a MariaDB test server.
type MariaDBOptions struct {
	Args []string // extra mariadbd options ("--innodb-io-capacity=100")
	TCP  bool     // also listen on a loopback port chosen at run time
}

// MariaDB is a running test server.
type MariaDB struct {
	Dir, Data, Socket string
	Port              int // 0 without TCP
	PID               int
}

// StartMariaDB starts a server for the test; it is stopped and removed at the end.
func StartMariaDB(t testing.TB, o MariaDBOptions) *MariaDB {
	t.Helper()
	server, err := exec.LookPath("mariadbd")
	if err != nil {
		if server, err = exec.LookPath("/usr/sbin/mariadbd"); err != nil {
			t.Skip("MariaDB server not installed (package mariadb-server)")
		}
	}
	install, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		t.Skip("mariadb-install-db not installed (package mariadb-server)")
	}
	if os.Geteuid() != 0 {
		t.Skip("MariaDB tests need root (to run the server as the mysql user)")
	}
	my, err := user.Lookup("mysql")
	if err != nil {
		t.Skip("no mysql user (package mariadb-server creates it)")
	}
	uid, _ := strconv.Atoi(my.Uid)
	gid, _ := strconv.Atoi(my.Gid)
	dir, err := os.MkdirTemp("", "dbhost-mariadb-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	os.Chown(dir, uid, gid)
	m := &MariaDB{Dir: dir, Data: filepath.Join(dir, "data"), Socket: filepath.Join(dir, "mysqld.sock")}
	if out, err := exec.Command(install, "--no-defaults", "--user=mysql", "--datadir="+m.Data, "--skip-test-db",
		"--auth-root-authentication-method=socket").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	args := []string{"--no-defaults", "--user=mysql", "--datadir=" + m.Data, "--socket=" + m.Socket,
		"--pid-file=" + filepath.Join(dir, "mysqld.pid"), "--log-error=" + filepath.Join(dir, "error.log"),
		"--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M", "--skip-log-bin"}
	if o.TCP {
		m.Port = FreePort(t)
		args = append(args, "--bind-address=127.0.0.1", "--port="+strconv.Itoa(m.Port))
	} else {
		args = append(args, "--skip-networking")
	}
	args = append(args, o.Args...)
	cmd := exec.Command(server, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("mariadbd: %v", err)
	}
	m.PID = cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(dir)
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if c, err := net.Dial("unix", m.Socket); err == nil {
			c.Close()
			return m
		}
		select {
		case err := <-done:
			done <- err
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("mariadbd exited: %v\n%s", err, log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("mariadbd: no socket after 60 s\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// SQL runs statements with the mariadb client as root over the socket
// (unix_socket authentication).
func (m *MariaDB) SQL(t testing.TB, sql string) string {
	t.Helper()
	out, err := exec.Command("mariadb", "--no-defaults", "-S", m.Socket, "-u", "root", "-N", "-B", "-e", sql).CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb %q: %v\n%s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}
