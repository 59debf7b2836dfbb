package livedb

import (
	"context"
	"encoding/json"
	"fmt"
	"os/user"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testdb"
)

// A real MariaDB: the InnoDB variables read; a user with no privilege at
// all still reads them (SHOW GLOBAL VARIABLES needs none), its password
// never kept; the server found from its process and read as root.
func TestMariaDBSettings(t *testing.T) {
	realServers(t)
	m := testdb.StartMariaDB(t, testdb.MariaDBOptions{Args: []string{"--innodb-io-capacity=3000", "--innodb-flush-method=fsync"}})
	d := readOne(t, MySQL, "root@unix("+m.Socket+")/")
	if d.Error != "" {
		t.Fatal(d.Error)
	}
	if d.Engine != "mariadb" || !d.Local || d.VersionNum < 100000 || !strings.HasPrefix(d.User, "root@") {
		t.Errorf("%+v", d)
	}
	for name, want := range map[string]string{"innodb_buffer_pool_size": "33554432", "innodb_io_capacity": "3000",
		"innodb_flush_method": "fsync", "innodb_log_file_size": "16777216", "large_pages": "OFF"} {
		if v := val(t, d, name); v != want {
			t.Errorf("%s = %s, want %s", name, v, want)
		}
	}
	if d.DataDirectory != m.Data || d.WALDirectory != m.Data || !strings.Contains(d.WALResolved, "innodb_log_group_home_dir") {
		t.Errorf("datadir %q wal %q (%s)", d.DataDirectory, d.WALDirectory, d.WALResolved)
	}
	if s := d.Setting("innodb_redo_log_capacity"); s == nil || s.Value != nil || !strings.HasPrefix(s.Reason, "not present on this server") {
		t.Errorf("redo capacity %+v", s)
	}

	const pw = "My-Sekr1t-pw"
	m.SQL(t, "CREATE USER 'dbhost_nopriv'@'localhost' IDENTIFIED BY '"+pw+"'")
	d = readOne(t, MySQL, "dbhost_nopriv:"+pw+"@unix("+m.Socket+")/")
	b, _ := json.Marshal(d)
	if d.Error != "" || strings.Contains(string(b), pw) || d.Connection != "dbhost_nopriv@unix("+m.Socket+")/" {
		t.Fatalf("%s", b)
	}
	if val(t, d, "innodb_buffer_pool_size") != "33554432" {
		t.Error("no-privilege user")
	}
	d = readOne(t, MySQL, "dbhost_nopriv:"+pw+"-wrong@unix("+m.Socket+")/")
	if !strings.Contains(d.Error, "Access denied") || strings.Contains(d.Error, pw) {
		t.Errorf("wrong password: %q", d.Error)
	}
	if err := CheckDSN(MySQL, "dbhost:"+pw+"@tcp(127.0.0.1:3306"); err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("CheckDSN: %v", err)
	}

	u, _ := user.Lookup("mysql")
	uid, _ := strconv.Atoi(u.Uid)
	for _, instance := range []string{m.Data, ""} {
		ts := Discover([]snapshot.Process{{PID: m.PID, Comm: "mariadbd", Engine: "mariadb", Role: "server", Instance: instance, User: "mysql", UID: uid}}, MySQL)
		if len(ts) != 1 || ts[0].notConnectable != "" || ts[0].Discovered.Socket != m.Socket {
			t.Fatalf("targets %+v %+v", ts, ts[0].Discovered)
		}
		d = Read(context.Background(), ts, Options{})[0]
		if d.Error != "" || d.DataDirectory != m.Data {
			t.Fatalf("discovered: %+v", d)
		}
	}
	old := euid
	euid = func() int { return 65534 }
	defer func() { euid = old }()
	ts := Discover([]snapshot.Process{{PID: m.PID, Comm: "mariadbd", Engine: "mariadb", Role: "server", Instance: m.Data, User: "mysql", UID: uid}}, MySQL)
	if len(ts) != 1 || !strings.Contains(ts[0].notConnectable, "root") {
		t.Errorf("as nobody: %+v", ts)
	}
	_ = fmt.Sprint
}
