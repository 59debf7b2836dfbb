package livedb

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testdb"
)

// realServers skips under -short (./scripts/test --quick): each test starts a server.
func realServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real database server: not under -short")
	}
}

func readOne(t *testing.T, engine, dsn string) snapshot.Database {
	t.Helper()
	ds := Read(context.Background(), []Target{{Engine: engine, DSN: dsn, dialUID: -1}}, Options{Timeout: 20 * time.Second})
	return ds[0]
}

func val(t *testing.T, d snapshot.Database, name string) string {
	t.Helper()
	s := d.Setting(name)
	if s == nil || s.Value == nil {
		t.Fatalf("%s not read: %+v", name, s)
	}
	return *s.Value
}

// A real cluster: every setting read with its unit, the WAL directory
// resolved through initdb -X's symlink.
func TestPostgresSettings(t *testing.T) {
	realServers(t)
	p := testdb.StartPostgres(t, testdb.PGOptions{WALDir: true,
		Settings: []string{"random_page_cost=4", "effective_io_concurrency=7", "huge_pages=off"}})
	d := readOne(t, Postgres, p.DSN)
	if d.Error != "" {
		t.Fatal(d.Error)
	}
	if d.Engine != "postgres" || d.User != "postgres" || !d.Local || d.VersionNum < 120000 || d.Version == "" {
		t.Errorf("%+v", d)
	}
	if sb := d.Setting("shared_buffers"); sb == nil || *sb.Value != "4096" || sb.Unit != "8kB" || sb.Source != "command line" {
		t.Errorf("shared_buffers %+v", sb)
	}
	if v := val(t, d, "random_page_cost"); v != "4" {
		t.Errorf("random_page_cost %s", v)
	}
	if v := val(t, d, "effective_io_concurrency"); v != "7" {
		t.Errorf("effective_io_concurrency %s", v)
	}
	if v := val(t, d, "huge_pages"); v != "off" {
		t.Errorf("huge_pages %s", v)
	}
	if d.VersionNum >= 150000 {
		if n, err := strconv.Atoi(val(t, d, "shared_memory_size_in_huge_pages")); err != nil || n <= 0 {
			t.Errorf("shared_memory_size_in_huge_pages %v %v", n, err)
		}
	}
	if d.DataDirectory != p.Data {
		t.Errorf("data_directory %q, want %q", d.DataDirectory, p.Data)
	}
	wal, _ := filepath.EvalSymlinks(filepath.Join(p.Dir, "wal"))
	if d.WALDirectory != wal || !strings.Contains(d.WALResolved, "is a symlink to") {
		t.Errorf("WAL %q (%s), want %q", d.WALDirectory, d.WALResolved, wal)
	}
	for _, s := range d.Settings {
		if s.Value == nil && !strings.HasPrefix(s.Reason, "not present on this server") {
			t.Errorf("%s unread: %s", s.Name, s.Reason)
		}
	}
}

// A role without pg_read_all_settings reads what pg_settings shows it; the
// hidden data_directory is "could not check (permission)", never empty.
func TestPostgresRoleWithoutRights(t *testing.T) {
	realServers(t)
	p := testdb.StartPostgres(t, testdb.PGOptions{})
	p.SQL(t, "CREATE ROLE dbhost_norights LOGIN")
	d := readOne(t, Postgres, strings.Replace(p.DSN, "user=postgres", "user=dbhost_norights", 1))
	if d.Error != "" {
		t.Fatal(d.Error)
	}
	dd := d.Setting("data_directory")
	if dd == nil || dd.Value != nil || !strings.HasPrefix(dd.Reason, PermissionReason) || !strings.Contains(dd.Reason, "pg_monitor") {
		t.Errorf("data_directory %+v", dd)
	}
	if d.DataDirectory != "" || !strings.Contains(d.WALResolved, PermissionReason) {
		t.Errorf("data %q WAL %q", d.DataDirectory, d.WALResolved)
	}
	if val(t, d, "shared_buffers") != "4096" {
		t.Error("shared_buffers")
	}
	// Granted pg_monitor, the same role sees it.
	p.SQL(t, "GRANT pg_monitor TO dbhost_norights")
	d = readOne(t, Postgres, strings.Replace(p.DSN, "user=postgres", "user=dbhost_norights", 1))
	if d.DataDirectory != p.Data {
		t.Errorf("with pg_monitor: %q", d.DataDirectory)
	}
}

// A password given in the connection string (URL or key=value) or in a
// PGPASSFILE is never in the Database, in its JSON, nor in an error.
func TestPostgresPasswordNeverKept(t *testing.T) {
	realServers(t)
	p := testdb.StartPostgres(t, testdb.PGOptions{AuthHost: "scram-sha-256"})
	const pw = "Sekr1t-pw-dbhost"
	p.SQL(t, "CREATE ROLE dbhost_mon LOGIN PASSWORD '"+pw+"'; GRANT pg_monitor TO dbhost_mon")
	check := func(what string, d snapshot.Database, wantErr bool) {
		t.Helper()
		b, _ := json.Marshal(d)
		if strings.Contains(string(b), pw) || strings.Contains(string(b), "Sekr1t") {
			t.Errorf("%s: the password is in %s", what, b)
		}
		if (d.Error != "") != wantErr {
			t.Errorf("%s: error %q", what, d.Error)
		}
	}
	url := fmt.Sprintf("postgres://dbhost_mon:%s@127.0.0.1:%d/postgres?sslmode=disable", pw, p.Port)
	d := readOne(t, Postgres, url)
	check("url", d, false)
	if d.Connection != fmt.Sprintf("user=dbhost_mon host=127.0.0.1 port=%d dbname=postgres", p.Port) || d.DataDirectory != p.Data {
		t.Errorf("url: %q %q", d.Connection, d.DataDirectory)
	}
	kv := fmt.Sprintf("host=127.0.0.1 port=%d user=dbhost_mon password=%s dbname=postgres sslmode=disable", p.Port, pw)
	check("key=value", readOne(t, Postgres, kv), false)
	// A wrong password: the error says so, without the password tried.
	wrong := strings.Replace(kv, pw, pw+"-wrong", 1)
	d = readOne(t, Postgres, wrong)
	check("wrong", d, true)
	if !strings.Contains(d.Error, "password authentication failed") {
		t.Errorf("wrong password: %q", d.Error)
	}
	// PGPASSFILE.
	pass := filepath.Join(t.TempDir(), "pgpass")
	os.WriteFile(pass, []byte(fmt.Sprintf("127.0.0.1:%d:postgres:dbhost_mon:%s\n", p.Port, pw)), 0o600)
	t.Setenv("PGPASSFILE", pass)
	check("pgpassfile", readOne(t, Postgres, fmt.Sprintf("host=127.0.0.1 port=%d user=dbhost_mon dbname=postgres sslmode=disable", p.Port)), false)
	// A malformed connection string: refused, its password not echoed.
	if err := CheckDSN(Postgres, "postgres://dbhost_mon:"+pw+"@127.0.0.1:notaport/x"); err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("CheckDSN: %v", err)
	}
}

// A server that accepts and never answers: the connection gives up at the
// timeout and says so.
func TestPostgresConnectTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	ds := Read(context.Background(), []Target{{Engine: Postgres, DSN: fmt.Sprintf("host=127.0.0.1 port=%d user=x sslmode=disable", port), dialUID: -1}}, Options{Timeout: 300 * time.Millisecond})
	if !strings.Contains(ds[0].Error, "timeout") {
		t.Errorf("error %q", ds[0].Error)
	}
	ds = Read(context.Background(), []Target{{Engine: MySQL, DSN: fmt.Sprintf("x@tcp(127.0.0.1:%d)/", port), dialUID: -1}}, Options{Timeout: 300 * time.Millisecond})
	if !strings.Contains(ds[0].Error, "timeout") {
		t.Errorf("mysql error %q", ds[0].Error)
	}
}

// As root, a cluster found from its postmaster is read over its socket as
// its OS user with peer authentication; as another user, what is needed is said.
func TestPostgresDiscoverPeer(t *testing.T) {
	realServers(t)
	if os.Geteuid() != 0 {
		t.Skip("peer authentication as the cluster's OS user needs root")
	}
	p := testdb.StartPostgres(t, testdb.PGOptions{AuthLocal: "peer"})
	u, _ := user.Lookup("postgres")
	uid, _ := strconv.Atoi(u.Uid)
	for _, instance := range []string{p.Data, ""} { // "" : the data directory from /proc/PID/cwd
		procs := []snapshot.Process{{PID: p.PID, Comm: "postgres", Engine: "postgres", Role: "postmaster", Instance: instance, User: "postgres", UID: uid},
			{PID: p.PID + 1, Comm: "postgres", Engine: "postgres", Role: "checkpointer", User: "postgres", UID: uid}}
		ts := Discover(procs, Postgres)
		if len(ts) != 1 || ts[0].notConnectable != "" {
			t.Fatalf("targets %+v", ts)
		}
		d := Read(context.Background(), ts, Options{})[0]
		if d.Error != "" || d.User != "postgres" || d.DataDirectory != p.Data || d.Discovered == nil ||
			d.Discovered.Socket != filepath.Join(p.Dir, ".s.PGSQL."+strconv.Itoa(p.Port)) {
			t.Fatalf("%+v %+v", d, d.Discovered)
		}
	}
	// This process keeps its own credentials after lending them to one thread.
	if os.Geteuid() != 0 {
		t.Fatal("euid changed")
	}
	// As an unprivileged user: not connected, and why.
	old := euid
	euid = func() int { return 65534 }
	defer func() { euid = old }()
	ts := Discover([]snapshot.Process{{PID: p.PID, Engine: "postgres", Role: "postmaster", Instance: p.Data, User: "postgres", UID: uid}}, Postgres)
	d := Read(context.Background(), ts, Options{})[0]
	if !strings.Contains(d.Error, "needs root") || len(d.Settings) != 0 {
		t.Errorf("%+v", d)
	}
}
