package livedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/go-sql-driver/mysql"
)

// mySettings are the MySQL/MariaDB variables read (docs/livedb.md), with
// where a server may lack them.
var mySettings = []pgSetting{
	{"version", ""}, {"version_comment", ""},
	{"innodb_buffer_pool_size", ""}, {"innodb_buffer_pool_instances", ""},
	{"large_pages", ""}, {"large_page_size", "MariaDB"},
	{"innodb_numa_interleave", "MySQL 5.6.27+/MariaDB 10.2.4+ built with NUMA support"},
	{"innodb_flush_method", ""}, {"innodb_flush_neighbors", ""}, {"innodb_use_native_aio", ""},
	{"innodb_io_capacity", ""}, {"innodb_io_capacity_max", ""},
	{"innodb_log_file_size", ""}, {"innodb_log_files_in_group", "MySQL before 8.0.30, MariaDB before 10.5"},
	{"innodb_redo_log_capacity", "MySQL 8.0.30+"}, {"innodb_log_group_home_dir", ""},
	{"innodb_data_home_dir", ""}, {"datadir", ""}, {"max_connections", ""},
}

// myTarget is a parsed MySQL connection string.
type myTarget struct {
	cfg      *mysql.Config
	password string
}

func parseMySQL(dsn string) (*myTarget, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return &myTarget{cfg: cfg, password: cfg.Passwd}, nil
}

// myConnection is the DSN without its password.
func myConnection(cfg *mysql.Config) string {
	return fmt.Sprintf("%s@%s(%s)/%s", cfg.User, cfg.Net, cfg.Addr, cfg.DBName)
}

// quietLogger drops the driver's own log lines (it logs to stderr by default).
type quietLogger struct{}

func (quietLogger) Print(...any) {}

func readMySQL(ctx context.Context, t Target, o Options) snapshot.Database {
	d := snapshot.Database{Engine: MySQL}
	if t.notConnectable != "" {
		d.Connection, d.Local, d.Error = t.DSN, true, t.notConnectable
		return d
	}
	mt, err := parseMySQL(t.DSN)
	if err != nil {
		d.Error = scrub(err.Error(), "", dsnPasswords(t.DSN)...)
		return d
	}
	cfg := mt.cfg
	d.Connection = myConnection(cfg)
	host := cfg.Addr
	if cfg.Net == "tcp" {
		host, _, _ = net.SplitHostPort(cfg.Addr)
	}
	d.Local = cfg.Net == "unix" || localHost(host)
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = o.timeout(), o.timeout(), o.timeout()
	cfg.Logger = quietLogger{}
	if t.dialUID >= 0 {
		uid, gid := t.dialUID, t.dialGID
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if network != "unix" {
				return nil, fmt.Errorf("socket authentication needs a unix socket, not %s %s", network, addr)
			}
			return dialUnixAs(ctx, addr, uid, gid)
		}
	}
	secrets := append([]string{mt.password}, dsnPasswords(t.DSN)...)
	start := time.Now()
	fail := func(err error) snapshot.Database {
		d.Error = scrub(timeoutText(err, o.timeout(), start), "", secrets...)
		return d
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return fail(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1)
	cctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	conn, err := db.Conn(cctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(cctx, "SELECT CURRENT_USER()").Scan(&d.User); err != nil {
		return fail(err)
	}
	quoted := make([]string, len(mySettings))
	for i, s := range mySettings {
		quoted[i] = "'" + s.name + "'" // dbhost's own constants: nothing to escape
	}
	got := map[string]string{}
	qctx, cancel2 := context.WithTimeout(ctx, o.timeout())
	defer cancel2()
	rows, err := conn.QueryContext(qctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+strings.Join(quoted, ",")+")")
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && (me.Number == 1227 || me.Number == 1142 || me.Number == 1044) {
			for _, s := range mySettings {
				d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name, Reason: PermissionReason + ": " + me.Message})
			}
			return d
		}
		return fail(err)
	}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			rows.Close()
			return fail(err)
		}
		got[strings.ToLower(name)] = value
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fail(err)
	}
	rows.Close()
	for _, s := range mySettings {
		if v, ok := got[s.name]; ok {
			d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name, Value: &v})
			continue
		}
		why := "not present on this server"
		if s.since != "" {
			why += " (" + s.since + ")"
		}
		d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name, Reason: why})
	}
	d.Version = got["version"]
	if strings.Contains(strings.ToLower(d.Version), "mariadb") {
		d.Engine = "mariadb"
	}
	d.VersionNum = myVersionNum(d.Version)
	d.DataDirectory = strings.TrimSuffix(got["datadir"], "/")
	resolveData(&d)
	myRedo(&d, got)
	return d
}

var myVersionRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)`)

// myVersionNum turns "10.11.19-MariaDB-0+deb12u1" or "8.0.36" into 101119 / 80036.
func myVersionNum(v string) int {
	m := myVersionRE.FindStringSubmatch(v)
	if m == nil {
		return 0
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	c, _ := strconv.Atoi(m[3])
	if b > 99 || c > 99 {
		return 0
	}
	return a*10000 + b*100 + c
}

// myRedo resolves the InnoDB redo log's directory: innodb_log_group_home_dir
// (relative to the data directory; "./" by default), MySQL 8.0.30+'s
// #innodb_redo below it.
func myRedo(d *snapshot.Database, got map[string]string) {
	if d.DataDirectory == "" {
		d.WALResolved = "not resolved: datadir unknown"
		return
	}
	if !d.Local {
		d.WALResolved = "not resolved: the server is not on this host; its paths are the server's"
		return
	}
	dir := got["innodb_log_group_home_dir"]
	label := "innodb_log_group_home_dir"
	switch {
	case dir == "" || dir == "./" || dir == ".":
		dir, label = d.DataDirectory, "innodb_log_group_home_dir (the data directory)"
	case !filepath.IsAbs(dir):
		dir = filepath.Join(d.DataDirectory, dir)
	}
	if _, ok := got["innodb_redo_log_capacity"]; ok {
		dir, label = filepath.Join(dir, "#innodb_redo"), "#innodb_redo"
	}
	d.WALDirectory, d.WALResolved = resolveDir(dir, label)
}
