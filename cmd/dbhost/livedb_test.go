package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testbin"
	"github.com/dbhost/dbhost/internal/testdb"
)

// The end-to-end tests of live databases run the real binary against real
// servers (internal/testdb); scripts/suites/livedb.sh runs them, with the
// suite protocol's skip when a package or root is missing.
func liveDBSuite(t *testing.T) {
	t.Helper()
	if os.Getenv("DBHOST_LIVEDB_SUITE") == "" {
		t.Skip("run by scripts/suites/livedb.sh (DBHOST_LIVEDB_SUITE=1)")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: discovery connects as the cluster's OS user, and a check runs dbhost as nobody")
	}
}

// run runs the binary; it returns stdout, stderr and the exit code.
func runDB(t *testing.T, asNobody bool, args ...string) (string, string, int) {
	t.Helper()
	bin := dbhostBinary(t)
	var cmd *exec.Cmd
	if asNobody {
		cmd = exec.Command("runuser", append([]string{"-u", "nobody", "--", bin}, args...)...)
		cmd.Env = testbin.Env(os.Environ())
	} else {
		cmd = testbin.Command(bin, args...)
	}
	cmd.Dir = "/"
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func snapshotDB(t *testing.T, js string, pid int) snapshot.Database {
	t.Helper()
	s, err := snapshot.Parse("collect", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Databases {
		if d.Discovered != nil && d.Discovered.PID == pid {
			return d
		}
	}
	t.Fatalf("server %d not among the databases: %+v", pid, s.Databases)
	return snapshot.Database{}
}

func TestLiveDBPostgresCLI(t *testing.T) {
	liveDBSuite(t)
	p := testdb.StartPostgres(t, testdb.PGOptions{AuthLocal: "peer", AuthHost: "scram-sha-256", WALDir: true})
	dir := t.TempDir()
	os.Chmod(dir, 0o777)

	// As root: the cluster is found from its postmaster and read as postgres (peer).
	out, errOut, code := runDB(t, false, "collect", "--db", "postgres", "--format", "json")
	if code != 0 {
		t.Fatalf("collect: %d %s", code, errOut)
	}
	d := snapshotDB(t, out, p.PID)
	if d.Error != "" || d.User != "postgres" || d.DataDirectory != p.Data || d.WALDirectory == "" || d.Setting("shared_buffers") == nil {
		t.Fatalf("%+v", d)
	}
	snap := filepath.Join(dir, "snap.json")
	os.WriteFile(snap, []byte(out), 0o644)
	// The facts flow through a saved snapshot into audits and the summary.
	out, _, code = runDB(t, false, "audit", "--snapshot", snap, "--db", "postgres")
	if code != 0 || !strings.Contains(out, "Server: postgres") {
		t.Errorf("audit --snapshot: %d\n%s", code, out)
	}
	// The HTML report's databases section shows the server read over its socket.
	page := filepath.Join(dir, "report.html")
	if _, errOut, code := runDB(t, false, "report", "--snapshot", snap, "--db", "postgres", "-o", page); code != 0 {
		t.Fatalf("report: %d %s", code, errOut)
	}
	hb, _ := os.ReadFile(page)
	sec := html.UnescapeString(string(hb))
	if i := strings.Index(sec, `<section id="databases"`); i >= 0 {
		sec = sec[i:]
	}
	for _, want := range []string{`<section id="databases"`, `<article class="server"`, "postgres " + d.Version, d.DataDirectory,
		fmt.Sprintf("pid %d", p.PID), "shared_buffers", "32.0 MiB"} {
		if !strings.Contains(sec, want) {
			t.Errorf("report: the databases section lacks %q", want)
		}
	}
	// The hugepage plan of a PostgreSQL 15+ server is its own shared_memory_size_in_huge_pages
	// (this machine's pool is empty: huge_pages = try fell back). Only this cluster: another
	// engineer's running beside it would add its own need.
	if d.VersionNum >= 150000 {
		one, err := snapshot.Load(snap)
		if err != nil {
			t.Fatal(err)
		}
		one.Databases = []snapshot.Database{d}
		b, _ := snapshot.Marshal(one)
		oneSnap := filepath.Join(dir, "one.json")
		os.WriteFile(oneSnap, b, 0o644)
		planDir := filepath.Join(dir, "plan")
		if _, errOut, code := runDB(t, false, "plan", "--snapshot", oneSnap, "--db", "postgres", "-o", planDir); code != 0 {
			t.Fatalf("plan: %d %s", code, errOut)
		}
		pj, _ := os.ReadFile(filepath.Join(planDir, "plan.json"))
		var plan struct {
			Changes []struct{ Key, Value, Rule string } `json:"changes"`
		}
		json.Unmarshal(pj, &plan)
		want := *d.Setting("shared_memory_size_in_huge_pages").Value
		found := ""
		for _, c := range plan.Changes {
			if c.Key == "vm.nr_hugepages" {
				found = c.Value + " (" + c.Rule + ")"
			}
		}
		if found != want+" (db.pg-huge-pages-pool)" {
			t.Errorf("plan: vm.nr_hugepages %q, want %s from db.pg-huge-pages-pool\n%s", found, want, pj)
		}
	}
	out, _, _ = runDB(t, false, "collect", "--snapshot", snap)
	if !strings.Contains(out, "Database servers (read over a connection)") || !strings.Contains(out, "shared_buffers=32.0 MiB") {
		t.Errorf("summary:\n%s", out)
	}

	// As nobody: found, not connected, and told what is needed (exit 2 after the snapshot).
	out, errOut, code = runDB(t, true, "collect", "--db", "postgres", "--format", "json")
	if code != 2 {
		t.Fatalf("collect as nobody: %d %s", code, errOut)
	}
	s, _ := snapshot.Parse("nobody", []byte(out))
	found := false
	for _, d := range s.Databases {
		if strings.Contains(d.Connection, p.Data) || (d.Discovered != nil && d.Discovered.PID == p.PID) {
			found = true
			if !strings.Contains(d.Error, "root") {
				t.Errorf("as nobody: %+v", d)
			}
		}
	}
	if !found || !strings.Contains(errOut, "needs root") {
		t.Errorf("as nobody: %s\n%s", out, errOut)
	}

	// --pg with a password: read, and the password nowhere in what dbhost says.
	const pw = "Cli-Sekr1t-pw"
	p.SQL(t, "CREATE ROLE dbhost_cli LOGIN PASSWORD '"+pw+"'")
	dsn := fmt.Sprintf("postgres://dbhost_cli:%s@127.0.0.1:%d/postgres?sslmode=disable", pw, p.Port)
	for _, args := range [][]string{
		{"audit", "--pg", dsn, "--explain"},
		{"audit", "--pg", dsn, "--format", "json"},
		{"collect", "--pg", dsn, "--format", "json"},
		{"audit", "--pg", strings.Replace(dsn, pw, pw+"x", 1)},
	} {
		out, errOut, code = runDB(t, false, args...)
		if want := map[bool]int{false: 0, true: 2}[strings.Contains(args[2], pw+"x")]; strings.Contains(out+errOut, pw) || code != want {
			t.Errorf("%v: exit %d; the password shown or a failure:\n%s\n%s", args[:2], code, out, errOut)
		}
	}
	if !strings.Contains(out, "password authentication failed") {
		t.Errorf("wrong password not reported:\n%s", out)
	}
	// report --pg: the server in the databases section, its password nowhere in the file.
	page2 := filepath.Join(dir, "report-pg.html")
	if out, errOut, code := runDB(t, false, "report", "--pg", dsn, "--interval", "0", "-o", page2); code != 0 || strings.Contains(out+errOut, pw) {
		t.Errorf("report --pg: exit %d:\n%s\n%s", code, out, errOut)
	}
	if hb, _ := os.ReadFile(page2); strings.Contains(string(hb), pw) || !strings.Contains(html.UnescapeString(string(hb)), "<dt>Read as</dt><dd>dbhost_cli</dd>") {
		t.Errorf("report --pg: the password shown, or the server not read as dbhost_cli")
	}
	// A malformed connection string is exit 2, without its password; so is --pg with --snapshot.
	_, errOut, code = runDB(t, false, "audit", "--pg", "postgres://u:"+pw+"@127.0.0.1:notaport/x")
	if code != 2 || strings.Contains(errOut, pw) {
		t.Errorf("bad DSN: %d %s", code, errOut)
	}
	if _, errOut, code = runDB(t, false, "audit", "--snapshot", snap, "--pg", "host=/tmp"); code != 2 || !strings.Contains(errOut, "cannot be joined") {
		t.Errorf("--pg with --snapshot: %d %s", code, errOut)
	}
}

// A server dbhost could not read (a wrong password) is a could-not-check
// with its reason on every output: the text header does not say it was
// read, the JSON carries the error, the metrics say dbhost_database_up 0,
// and audit, collect and plan exit 2 after their output.
func TestLiveDBNotReadCLI(t *testing.T) {
	liveDBSuite(t)
	p := testdb.StartPostgres(t, testdb.PGOptions{AuthLocal: "peer", AuthHost: "scram-sha-256"})
	p.SQL(t, "CREATE ROLE dbhost_nr LOGIN PASSWORD 'right-pw'")
	dsn := fmt.Sprintf("postgres://dbhost_nr:wrong-pw@127.0.0.1:%d/postgres?sslmode=disable", p.Port)
	conn := fmt.Sprintf("user=dbhost_nr host=127.0.0.1 port=%d dbname=postgres", p.Port)
	const why = "password authentication failed"

	out, errOut, code := runDB(t, false, "audit", "--pg", dsn, "--explain")
	header, _, _ := strings.Cut(out, "\nRules:")
	if code != 2 || strings.Contains(header, "server read") || !strings.Contains(header, "NOT read") ||
		!strings.Contains(header, why) || !strings.Contains(errOut, why) || strings.Contains(out+errOut, "wrong-pw") {
		t.Errorf("audit text: exit %d\n%s\n%s", code, out, errOut)
	}
	if !regexp.MustCompile(`db\.pg-huge-pages-pool[^\n]*\n?[^\n]*` + regexp.QuoteMeta(conn) + `: not read: [^\n]*` + why).MatchString(out) {
		t.Errorf("audit --explain: the rule's could-not-check lacks the server's reason:\n%s", out)
	}

	out, _, code = runDB(t, false, "audit", "--pg", dsn, "--format", "json")
	var reps struct {
		Hosts []struct {
			DBSource       string                                       `json:"db_source"`
			ServersNotRead []struct{ Engine, Connection, Error string } `json:"servers_not_read"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil || code != 2 || len(reps.Hosts) != 1 {
		t.Fatalf("audit json: exit %d %v\n%s", code, err, out)
	}
	h := reps.Hosts[0]
	if len(h.ServersNotRead) != 1 || h.ServersNotRead[0].Connection != conn || !strings.Contains(h.ServersNotRead[0].Error, why) || strings.Contains(h.DBSource, "server read") {
		t.Errorf("audit json: %+v", h)
	}

	out, _, code = runDB(t, false, "audit", "--pg", dsn, "--format", "prometheus")
	if want := `dbhost_database_up{engine="postgres",instance="` + conn + `"} 0`; code != 2 || !strings.Contains(out, want+"\n") {
		t.Errorf("prometheus: exit %d, want %s:\n%s", code, want, out)
	}
	// The right password: up 1, exit 0.
	good := strings.Replace(dsn, "wrong-pw", "right-pw", 1)
	out, _, code = runDB(t, false, "audit", "--pg", good, "--format", "prometheus")
	if want := `dbhost_database_up{engine="postgres",instance="` + conn + `"} 1`; code != 0 || !strings.Contains(out, want+"\n") {
		t.Errorf("prometheus, the right password: exit %d, want %s:\n%s", code, want, out)
	}

	if _, errOut, code = runDB(t, false, "collect", "--pg", dsn, "--format", "json"); code != 2 || !strings.Contains(errOut, why) {
		t.Errorf("collect: exit %d %s", code, errOut)
	}
	if _, errOut, code = runDB(t, false, "plan", "--pg", dsn, "-o", filepath.Join(t.TempDir(), "plan")); code != 2 || !strings.Contains(errOut, why) {
		t.Errorf("plan: exit %d %s", code, errOut)
	}
}

func TestLiveDBMariaDBCLI(t *testing.T) {
	liveDBSuite(t)
	m := testdb.StartMariaDB(t, testdb.MariaDBOptions{Args: []string{"--innodb-flush-method=fsync"}})
	out, errOut, code := runDB(t, false, "collect", "--db", "mysql", "--format", "json")
	if code != 0 {
		t.Fatalf("collect: %d %s", code, errOut)
	}
	d := snapshotDB(t, out, m.PID)
	if d.Error != "" || d.Engine != "mariadb" || d.DataDirectory != m.Data || d.Discovered.Socket != m.Socket {
		t.Fatalf("%+v", d)
	}
	out, _, _ = runDB(t, false, "audit", "--mysql", "root@unix("+m.Socket+")/", "--db", "mysql", "--explain")
	if !strings.Contains(out, "Server: mariadb") {
		t.Errorf("audit --mysql:\n%s", out)
	}
}
