package bench

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// startPG starts a scratch PostgreSQL cluster (Debian's package) for the
// test, on a Unix socket in its own directory and a TCP port on loopback
// picked at run time; it is stopped and removed at the end. It returns the
// DSN of its Unix socket.
func startPG(t *testing.T) (dsn string, tcpPort int) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("PostgreSQL server not installed (package postgresql)")
	}
	sort.Strings(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	pgUser, err := user.Lookup("postgres")
	if err != nil {
		t.Skip("no postgres user")
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
	dir, err := os.MkdirTemp("", "dbhost-bench-pg-")
	if err != nil {
		t.Fatal(err)
	}
	var uid, gid int
	fmt.Sscan(pgUser.Uid, &uid)
	fmt.Sscan(pgUser.Gid, &gid)
	if os.Geteuid() == 0 {
		os.Chown(dir, uid, gid)
	}
	os.Chmod(dir, 0o755)
	data := filepath.Join(dir, "data")
	if out, err := asPG(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tcpPort = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c shared_buffers=32MB -c fsync=off -c max_connections=40", tcpPort, dir)
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
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", dir, tcpPort), tcpPort
}

// pgTables lists the tables of the public schema whose name starts with prefix.
func pgTables(t *testing.T, dsn, prefix string) []string {
	t.Helper()
	out, err := exec.Command("psql", dsn, "-Atc", "SELECT tablename FROM pg_tables WHERE schemaname='public' AND tablename LIKE '"+prefix+"%'").CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v %s", err, out)
	}
	return strings.Fields(string(out))
}
