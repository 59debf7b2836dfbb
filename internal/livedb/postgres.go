package livedb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgSetting is one setting dbhost reads from pg_settings, and the release
// that brought it (for the reason when a server lacks it).
type pgSetting struct{ name, since string }

// PGSettings are the PostgreSQL settings read (docs/livedb.md).
var pgSettings = []pgSetting{
	{"server_version", ""}, {"server_version_num", ""},
	{"shared_buffers", ""}, {"huge_pages", "9.4"}, {"huge_page_size", "14"},
	{"shared_memory_size", "15"}, {"shared_memory_size_in_huge_pages", "15"}, {"shared_memory_type", "12"},
	{"max_connections", ""}, {"max_worker_processes", "9.4"}, {"max_wal_senders", ""},
	{"autovacuum_max_workers", ""}, {"max_prepared_transactions", ""}, {"max_locks_per_transaction", ""},
	{"effective_io_concurrency", ""}, {"maintenance_io_concurrency", "13"},
	{"random_page_cost", ""}, {"seq_page_cost", ""}, {"effective_cache_size", ""},
	{"wal_buffers", ""}, {"wal_segment_size", ""}, {"wal_level", ""},
	{"checkpoint_timeout", ""}, {"checkpoint_completion_target", ""}, {"max_wal_size", "9.5"},
	{"min_wal_size", "9.5"}, {"checkpoint_flush_after", "9.6"},
	{"bgwriter_delay", ""}, {"bgwriter_lru_maxpages", ""}, {"bgwriter_lru_multiplier", ""},
	{"bgwriter_flush_after", "9.6"}, {"backend_flush_after", "9.6"},
	{"data_directory", ""},
	{"fsync", ""}, {"full_page_writes", ""}, {"synchronous_commit", ""},
	{"autovacuum", ""}, {"track_counts", ""}, {"work_mem", ""}, {"checkpoint_warning", ""},
}

// pgTarget is a parsed PostgreSQL connection string.
type pgTarget struct {
	cfg      *pgx.ConnConfig
	password string
}

func parsePG(dsn string) (*pgTarget, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	return &pgTarget{cfg: cfg, password: cfg.Password}, nil
}

// pgConnection is the connection string without its password.
func pgConnection(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("user=%s host=%s port=%d dbname=%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}

func readPG(ctx context.Context, t Target, o Options) snapshot.Database {
	d := snapshot.Database{Engine: Postgres}
	if t.notConnectable != "" {
		d.Connection, d.Local, d.Error = t.DSN, true, t.notConnectable
		return d
	}
	pt, err := parsePG(t.DSN)
	if err != nil {
		d.Error = scrub(err.Error(), "", dsnPasswords(t.DSN)...)
		return d
	}
	cfg := pt.cfg
	d.Connection = pgConnection(cfg)
	d.Local = localHost(cfg.Host)
	for _, fb := range cfg.Fallbacks {
		d.Local = d.Local && localHost(fb.Host)
	}
	cfg.ConnectTimeout = o.timeout()
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.RuntimeParams["application_name"] = "dbhost"
	if t.dialUID >= 0 {
		uid, gid := t.dialUID, t.dialGID
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if network != "unix" {
				return nil, fmt.Errorf("peer authentication needs a unix socket, not %s %s", network, addr)
			}
			return dialUnixAs(ctx, addr, uid, gid)
		}
	}
	secrets := append([]string{pt.password}, dsnPasswords(t.DSN)...)
	start := time.Now()
	fail := func(err error) snapshot.Database {
		d.Error = scrub(timeoutText(err, o.timeout(), start), "", secrets...)
		return d
	}
	cctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return fail(err)
	}
	defer conn.Close(context.Background())
	q := func(f func(ctx context.Context) error) error {
		qctx, cancel := context.WithTimeout(ctx, o.timeout())
		defer cancel()
		return f(qctx)
	}
	if err := q(func(ctx context.Context) error {
		return conn.QueryRow(ctx, "SELECT current_user").Scan(&d.User)
	}); err != nil {
		return fail(err)
	}
	names := make([]string, len(pgSettings))
	for i, s := range pgSettings {
		names[i] = s.name
	}
	got := map[string]snapshot.DBSetting{}
	if err := q(func(ctx context.Context) error {
		rows, err := conn.Query(ctx, "SELECT name, setting, unit, source FROM pg_catalog.pg_settings WHERE name = ANY($1)", names)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var setting, unit, source *string
			if err := rows.Scan(&name, &setting, &unit, &source); err != nil {
				return err
			}
			s := snapshot.DBSetting{Name: name, Value: setting}
			if unit != nil {
				s.Unit = *unit
			}
			if source != nil {
				s.Source = *source
			}
			got[name] = s
		}
		return rows.Err()
	}); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" {
			// pg_settings itself refused: every setting is unread, for one reason.
			for _, s := range pgSettings {
				d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name, Reason: PermissionReason + ": " + pe.Message})
			}
			return d
		}
		return fail(err)
	}
	for _, s := range pgSettings {
		if v, ok := got[s.name]; ok {
			d.Settings = append(d.Settings, v)
			continue
		}
		// Not in pg_settings: either this server has no such setting, or
		// the role may not see it (GUC_SUPERUSER_ONLY ones such as
		// data_directory). SHOW tells the two apart by its error.
		var shown string
		err := q(func(ctx context.Context) error {
			return conn.QueryRow(ctx, "SHOW "+pgx.Identifier{s.name}.Sanitize()).Scan(&shown)
		})
		var pe *pgconn.PgError
		switch {
		case err == nil:
			d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name, Value: &shown, Source: "SHOW"})
		case errors.As(err, &pe) && pe.Code == "42704":
			why := "not present on this server"
			if s.since != "" {
				why += " (PostgreSQL " + s.since + "+)"
			}
			d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name, Reason: why})
		case errors.As(err, &pe) && pe.Code == "42501":
			d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name,
				Reason: fmt.Sprintf("%s: %s (role %s; grant it pg_read_all_settings or pg_monitor)", PermissionReason, pe.Message, d.User)})
		default:
			d.Settings = append(d.Settings, snapshot.DBSetting{Name: s.name, Reason: "not read: " + scrub(err.Error(), "", secrets...)})
		}
	}
	find := func(name string) string {
		for _, s := range d.Settings {
			if s.Name == name && s.Value != nil {
				return *s.Value
			}
		}
		return ""
	}
	d.Version = find("server_version")
	d.VersionNum, _ = strconv.Atoi(find("server_version_num"))
	d.Checkpoints, d.CheckpointsReason = pgCheckpoints(ctx, conn, d.VersionNum, q, secrets)
	d.DataDirectory = find("data_directory")
	resolveData(&d)
	pgWAL(&d)
	return d
}

// pgWAL resolves the WAL directory: pg_wal (pg_xlog before 10) in the data
// directory, usually a symlink when the WAL has a device of its own
// (initdb -X).
func pgWAL(d *snapshot.Database) {
	wal := "pg_wal"
	if d.VersionNum > 0 && d.VersionNum < 100000 {
		wal = "pg_xlog"
	}
	switch {
	case d.DataDirectory == "":
		if s := d.Setting("data_directory"); s != nil && s.Reason != "" {
			d.WALResolved = "not resolved: data_directory: " + s.Reason
		} else {
			d.WALResolved = "not resolved: data_directory unknown"
		}
	case !d.Local:
		d.WALResolved = "not resolved: the server is not on this host; its paths are the server's"
	default:
		d.WALDirectory, d.WALResolved = resolveDir(filepath.Join(d.DataDirectory, wal), wal)
	}
}

// pgCheckpoints reads the checkpoint counters: pg_stat_checkpointer
// (num_timed, num_requested) on PostgreSQL 17+, pg_stat_bgwriter
// (checkpoints_timed, checkpoints_req) before; with the time since their
// reset, so that a rate can be told from a total.
func pgCheckpoints(ctx context.Context, conn *pgx.Conn, version int, q func(func(context.Context) error) error, secrets []string) (*snapshot.DBCheckpoints, string) {
	c := &snapshot.DBCheckpoints{View: "pg_stat_bgwriter"}
	sql := "SELECT checkpoints_timed, checkpoints_req, stats_reset, extract(epoch FROM now() - stats_reset) FROM pg_catalog.pg_stat_bgwriter"
	if version >= 170000 {
		c.View = "pg_stat_checkpointer"
		sql = "SELECT num_timed, num_requested, stats_reset, extract(epoch FROM now() - stats_reset) FROM pg_catalog.pg_stat_checkpointer"
	}
	var reset *time.Time
	var secs *float64
	err := q(func(ctx context.Context) error {
		return conn.QueryRow(ctx, sql).Scan(&c.Timed, &c.Requested, &reset, &secs)
	})
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" {
			return nil, fmt.Sprintf("%s: %s: %s (grant it pg_monitor)", PermissionReason, c.View, pe.Message)
		}
		return nil, "not read: " + c.View + ": " + scrub(err.Error(), "", secrets...)
	}
	if reset != nil {
		c.StatsReset = reset.UTC().Format(time.RFC3339)
	}
	if secs != nil {
		c.Seconds = *secs
	}
	return c, ""
}
