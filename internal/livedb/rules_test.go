package livedb

import (
	"context"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testdb"
)

// flashHost is a host whose every directory is on one NVMe device, with a
// 2 MB hugepage pool of poolPages (all free): the real servers' settings
// are judged against it.
func flashHost(poolPages int64, dbs ...snapshot.Database) *snapshot.Snapshot {
	f := false
	return &snapshot.Snapshot{
		SchemaVersion: snapshot.SchemaVersion, Host: snapshot.Host{Hostname: "t", CmdlineArgs: map[string]string{}},
		Storage: snapshot.Storage{
			Devices: []snapshot.BlockDevice{{Name: "nvme0n1", Kind: "nvme", Rotational: &f}},
			Mounts:  []snapshot.Mount{{Device: "/dev/nvme0n1", Path: "/", FSType: "xfs"}},
		},
		Memory: snapshot.Memory{Meminfo: map[string]int64{"Hugepagesize": 2048},
			Hugepages: []snapshot.Hugepages{{SizeKB: 2048, Total: poolPages, Free: poolPages, Default: true}}},
		Sysctl: map[string]string{}, Absent: []snapshot.Absence{}, Processes: []snapshot.Process{}, Databases: dbs,
	}
}

// audit runs one rule; it returns "fires", "passed", "cannot: reason" or "n/a: reason".
func audit(t *testing.T, id, db string, s *snapshot.Snapshot) string {
	t.Helper()
	r, ok := rules.Lookup(id)
	if !ok {
		t.Fatalf("no rule %s", id)
	}
	rep := rules.RunRules([]rules.Rule{r}, &rules.Input{Snap: s, Workload: rules.WorkloadOLTP, DB: db})
	switch {
	case len(rep.Findings) > 0:
		return "fires"
	case len(rep.CannotCheck) > 0:
		return "cannot: " + rep.CannotCheck[0].Reason
	case len(rep.NotApplicable) > 0:
		return "n/a: " + rep.NotApplicable[0].Reason
	}
	return "passed"
}

// The rules on a real PostgreSQL's settings: each setting that fires a rule
// and one that does not (changed with ALTER SYSTEM and a reload between
// reads), and a role without rights: could not check (permission).
func TestRulesOnRealPostgres(t *testing.T) {
	realServers(t)
	p := testdb.StartPostgres(t, testdb.PGOptions{Settings: []string{"huge_pages=try"}})
	read := func(dsn string) snapshot.Database {
		d := Read(context.Background(), []Target{NewTarget(Postgres, dsn)}, Options{})[0]
		if d.Error != "" {
			t.Fatal(d.Error)
		}
		return d
	}
	d := read(p.DSN)
	need, _ := dbInt(d, "shared_memory_size_in_huge_pages")
	for _, c := range []struct {
		id   string
		s    *snapshot.Snapshot
		want string
	}{
		{"db.pg-random-page-cost", flashHost(0, d), "fires"},         // 4 on NVMe
		{"db.pg-effective-io-concurrency", flashHost(0, d), "fires"}, // 1 on NVMe
		{"db.pg-wal-same-device", flashHost(0, d), "fires"},          // pg_wal in the data directory
		{"db.pg-huge-pages-pool", flashHost(need-1, d), "fires"},     // try, one page short
		{"db.pg-huge-pages-pool", flashHost(need, d), "passed"},      // try, room for its own figure
		{"db.pg-huge-pages-on-short", flashHost(need, d), "n/a: "},   // try
	} {
		if got := audit(t, c.id, rules.DBPostgres, c.s); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %s, want %s (shared_memory_size_in_huge_pages %d)", c.id, got, c.want, need)
		}
	}
	p.SQL(t, "ALTER SYSTEM SET random_page_cost = 1.1")
	p.SQL(t, "ALTER SYSTEM SET effective_io_concurrency = 200")
	p.SQL(t, "SELECT pg_reload_conf()")
	d = read(p.DSN)
	for _, id := range []string{"db.pg-random-page-cost", "db.pg-effective-io-concurrency"} {
		if got := audit(t, id, rules.DBPostgres, flashHost(0, d)); got != "passed" {
			t.Errorf("%s after ALTER SYSTEM: %s", id, got)
		}
	}
	// A role without pg_read_all_settings: the data directory is hidden, the device rules say why.
	p.SQL(t, "CREATE ROLE dbhost_rules_norights LOGIN")
	d = read(strings.Replace(p.DSN, "user=postgres", "user=dbhost_rules_norights", 1))
	if got := audit(t, "db.pg-random-page-cost", rules.DBPostgres, flashHost(0, d)); !strings.Contains(got, "could not check (permission)") {
		t.Errorf("without rights: %s", got)
	}
}

// The MySQL rules on real MariaDB servers: fsync fires the flush method
// rule, the default O_DIRECT does not; io_capacity 200 on NVMe fires, 2000
// (SET GLOBAL) does not.
func TestRulesOnRealMariaDB(t *testing.T) {
	realServers(t)
	m := testdb.StartMariaDB(t, testdb.MariaDBOptions{Args: []string{"--innodb-flush-method=fsync", "--innodb-io-capacity=200"}})
	d := readOne(t, MySQL, "root@unix("+m.Socket+")/")
	if got := audit(t, "db.mysql-flush-method", rules.DBMySQL, flashHost(0, d)); got != "fires" {
		t.Errorf("flush method fsync: %s", got)
	}
	if got := audit(t, "db.mysql-io-capacity", rules.DBMySQL, flashHost(0, d)); got != "fires" {
		t.Errorf("io capacity 200: %s", got)
	}
	m.SQL(t, "SET GLOBAL innodb_io_capacity = 2000")
	d = readOne(t, MySQL, "root@unix("+m.Socket+")/")
	if got := audit(t, "db.mysql-io-capacity", rules.DBMySQL, flashHost(0, d)); got != "passed" {
		t.Errorf("io capacity 2000: %s", got)
	}
	m2 := testdb.StartMariaDB(t, testdb.MariaDBOptions{})
	d = readOne(t, MySQL, "root@unix("+m2.Socket+")/")
	if got := audit(t, "db.mysql-flush-method", rules.DBMySQL, flashHost(0, d)); got != "passed" {
		t.Errorf("flush method default (%v): %s", d.Setting("innodb_flush_method").Value, got)
	}
}

// dbInt reads an integer setting for the test.
func dbInt(d snapshot.Database, name string) (int64, bool) {
	s := d.Setting(name)
	if s == nil || s.Value == nil {
		return 0, false
	}
	var n int64
	for _, c := range *s.Value {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
