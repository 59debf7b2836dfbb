// Package livedb reads a running database server's settings over a real
// connection (PostgreSQL with pgx, MySQL/MariaDB with go-sql-driver/mysql)
// into snapshot.Database. It only ever runs SHOW and SELECT (from
// pg_settings and the server's variables), on a read-only session, with a
// timeout for the connection and for every query.
//
// Nothing secret leaves this package: a Database's Connection is rebuilt
// from the parsed connection string without its password, and every error
// text is scrubbed of the password before it is kept (see scrub).
package livedb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Engines a Target names.
const (
	Postgres = "postgres"
	MySQL    = "mysql"
)

// DefaultTimeout bounds the connection and each query when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// Target is one server to read: its engine and connection string, or a
// local cluster found from its processes (Discovered, with the socket to
// dial as the cluster's OS user).
type Target struct {
	Engine string // Postgres or MySQL
	DSN    string // as the user gave it (may hold a password: never printed)
	// Discovered is set for a local cluster found by Discover.
	Discovered *snapshot.DBDiscovery
	// dialUID/dialGID: connect the unix socket with these credentials
	// (peer authentication as the cluster's OS user); -1 for the process's own.
	dialUID, dialGID int
	// notConnectable is why a discovered cluster is not connected to.
	notConnectable string
}

// Options bound a read.
type Options struct {
	Timeout time.Duration // connection and each query; DefaultTimeout when 0
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// CheckDSN parses a connection string the way Read will, so that a
// malformed one is refused before anything is collected. The error never
// holds the password.
func CheckDSN(engine, dsn string) error {
	var err error
	var secret string
	switch engine {
	case Postgres:
		var c *pgTarget
		c, err = parsePG(dsn)
		if c != nil {
			secret = c.password
		}
	case MySQL:
		var c *myTarget
		c, err = parseMySQL(dsn)
		if c != nil {
			secret = c.password
		}
	default:
		return fmt.Errorf("unknown engine %q", engine)
	}
	if err != nil {
		return errors.New(scrub(err.Error(), secret, dsnPasswords(dsn)...))
	}
	return nil
}

// Read connects to each target and reads its settings; a server that cannot
// be reached gives a Database with Error set, never an error of the whole.
// The result is in the order of the targets.
func Read(ctx context.Context, targets []Target, o Options) []snapshot.Database {
	out := make([]snapshot.Database, 0, len(targets))
	for _, t := range targets {
		var d snapshot.Database
		switch t.Engine {
		case Postgres:
			d = readPG(ctx, t, o)
		case MySQL:
			d = readMySQL(ctx, t, o)
		default:
			d = snapshot.Database{Engine: t.Engine, Error: "unknown engine"}
		}
		if d.Settings == nil {
			d.Settings = []snapshot.DBSetting{}
		}
		sort.Slice(d.Settings, func(i, j int) bool { return d.Settings[i].Name < d.Settings[j].Name })
		d.Discovered = t.Discovered
		out = append(out, d)
	}
	return out
}

// PermissionReason is how a setting the role may not read is marked.
const PermissionReason = "could not check (permission)"

// scrub removes every non-empty secret from a message (an error text of a
// driver or of the network), so that it can be printed and stored.
func scrub(msg string, secret string, more ...string) string {
	for _, s := range append([]string{secret}, more...) {
		if len(s) >= 1 {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return msg
}

// dsnPasswords finds what looks like a password in a connection string
// that could not be parsed ("password=..." or "user:pw@"), so that scrub
// removes it from the parser's error as well.
func dsnPasswords(dsn string) []string {
	var out []string
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "password="); ok {
			out = append(out, strings.Trim(v, `'"`))
		}
	}
	rest := dsn
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if at := strings.LastIndex(rest, "@"); at > 0 {
		if _, pw, ok := strings.Cut(rest[:at], ":"); ok && pw != "" {
			out = append(out, pw)
		}
	}
	return out
}

// localHost says whether a host a connection string names is this machine:
// a unix socket (a path), localhost or a loopback address.
func localHost(host string) bool {
	switch {
	case host == "" || strings.HasPrefix(host, "/") || strings.HasPrefix(host, "@"):
		return true
	case strings.EqualFold(host, "localhost"):
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// resolveDir resolves a directory the server names on this host, symlinks
// and all, and says how: "pg_wal is a symlink to /wal/pg_wal". A directory
// dbhost may not look into is "could not check (permission): ...".
func resolveDir(path, label string) (resolved, how string) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", notResolved(err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", notResolved(err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		return real, fmt.Sprintf("%s (%s) is a symlink to %s", label, path, target)
	}
	if real != path {
		return real, fmt.Sprintf("%s (%s) resolves to %s", label, path, real)
	}
	return real, fmt.Sprintf("%s (%s) is a directory, not a symlink", label, path)
}

func notResolved(err error) string {
	if errors.Is(err, os.ErrPermission) {
		return PermissionReason + ": " + err.Error() + " (run as root or as the server's OS user)"
	}
	return "not resolved: " + err.Error()
}

// timeoutText makes a timeout readable: a driver may say only "invalid
// connection" when its read deadline passed.
func timeoutText(err error, d time.Duration, start time.Time) string {
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "i/o timeout") || time.Since(start) >= d {
		return fmt.Sprintf("%v (no answer within the timeout of %s)", err, d)
	}
	return err.Error()
}

// NotConnectable is why a discovered server is not connected to ("" when it is).
func (t Target) NotConnectable() string { return t.notConnectable }

// NewTarget is a server named by a connection string, dialled as dbhost itself.
func NewTarget(engine, dsn string) Target {
	return Target{Engine: engine, DSN: dsn, dialUID: -1, dialGID: -1}
}

// resolveData sets a local server's DataDirectoryReal (symlinks resolved);
// left empty when it cannot be looked up (the WAL's reason says why).
func resolveData(d *snapshot.Database) {
	if !d.Local || d.DataDirectory == "" {
		return
	}
	if real, err := filepath.EvalSymlinks(d.DataDirectory); err == nil {
		d.DataDirectoryReal = real
	}
}
