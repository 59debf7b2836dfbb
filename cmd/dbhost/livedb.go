package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/livedb"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

// liveDBFlags connect to live database servers (docs/livedb.md): collect,
// audit and plan share them.
type liveDBFlags struct {
	pg, mysql []string
	timeout   time.Duration
}

func (f *liveDBFlags) add(c *cobra.Command) {
	fl := c.Flags()
	fl.StringArrayVar(&f.pg, "pg", nil, "read a PostgreSQL server's settings over this connection (repeatable): 'postgres://monitor@host/postgres' or 'host=/run/postgresql user=monitor'; the password from PGPASSFILE or ~/.pgpass, never stored")
	fl.StringArrayVar(&f.mysql, "mysql", nil, "read a MySQL/MariaDB server's settings over this connection (repeatable): 'monitor@unix(/run/mysqld/mysqld.sock)/' or 'monitor@tcp(db1:3306)/'")
	fl.DurationVar(&f.timeout, "db-timeout", livedb.DefaultTimeout, "give up on a database server that has not answered within this time (connection and each query)")
}

// check refuses, before anything is collected (exit 2), --pg/--mysql with
// --root, --sosreport or --snapshot, a malformed connection string (its
// password not repeated) and a timeout that is not positive.
func (f *liveDBFlags) check(src *sourceFlags) error {
	if len(f.pg)+len(f.mysql) > 0 && !src.live() {
		return usageErr("--pg/--mysql read a server now, from this host: they cannot be joined to --root, --sosreport or --snapshot facts (collect a snapshot with them instead: dbhost collect --pg ... --format json)")
	}
	if f.timeout <= 0 {
		return usageErr("--db-timeout %v: expected a positive duration such as 10s", f.timeout)
	}
	for _, d := range f.pg {
		if err := livedb.CheckDSN(livedb.Postgres, d); err != nil {
			return usageErr("--pg: %v", err)
		}
	}
	for _, d := range f.mysql {
		if err := livedb.CheckDSN(livedb.MySQL, d); err != nil {
			return usageErr("--mysql: %v", err)
		}
	}
	return nil
}

// attach reads the servers named by --pg/--mysql and, with --db postgres or
// mysql on the live host, the local servers found among the snapshot's
// processes (as root over their unix socket as their OS user; otherwise
// each says what is needed), into the snapshot's Databases. db is the --db
// value ("" where the command has none). A server that cannot be read is
// an entry with its error, never a stop of the command: attach returns them
// (notRead), and the command exits 2 after its output. check ran first.
func (f *liveDBFlags) attach(c *cobra.Command, s *snapshot.Snapshot, src *sourceFlags, db string) (notRead []string) {
	if !src.live() {
		return nil
	}
	var targets []livedb.Target
	for _, d := range f.pg {
		targets = append(targets, livedb.NewTarget(livedb.Postgres, d))
	}
	for _, d := range f.mysql {
		targets = append(targets, livedb.NewTarget(livedb.MySQL, d))
	}
	// --db postgres|mysql finds the local servers, unless connection
	// strings for that engine were given.
	switch {
	case db == "postgres" && len(f.pg) == 0:
		targets = append(targets, f.discover(c, s, livedb.Postgres)...)
	case db == "mysql" && len(f.mysql) == 0:
		targets = append(targets, f.discover(c, s, livedb.MySQL)...)
	}
	if len(targets) > 0 {
		s.Databases = livedb.Read(context.Background(), targets, livedb.Options{Timeout: f.timeout})
	}
	for _, d := range s.Databases {
		if d.Error != "" {
			notRead = append(notRead, fmt.Sprintf("%s %s: %s", d.Engine, d.Connection, d.Error))
		}
	}
	return notRead
}

// notReadErr is the exit-2 error after the output of a command some of
// whose database servers could not be read ("the rest" is what it did).
func notReadErr(notRead []string, rest string) error {
	if len(notRead) == 0 {
		return nil
	}
	return usageErr("%d database server(s) could not be read, their rules could not check (%s); %s",
		len(notRead), strings.Join(notRead, "; "), rest)
}

func (f *liveDBFlags) discover(c *cobra.Command, s *snapshot.Snapshot, engine string) []livedb.Target {
	ts := livedb.Discover(s.Processes, engine)
	if len(ts) == 0 {
		fmt.Fprintf(c.ErrOrStderr(), "dbhost: --db %s: no %s server process on this host (give --%s with a connection string for a remote one)\n",
			engine, engine, map[string]string{livedb.Postgres: "pg", livedb.MySQL: "mysql"}[engine])
	}
	for _, t := range ts {
		if why := t.NotConnectable(); why != "" {
			fmt.Fprintf(c.ErrOrStderr(), "dbhost: --db %s: %s: not connected: %s\n", engine, t.DSN, why)
		}
	}
	return ts
}
