package rules

import (
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-autovacuum-off: autovacuum = off (or track_counts = off, without
// which the launcher has nothing to act on) on a live PostgreSQL server.
// PostgreSQL's docs: disabling the daemon completely is unwise unless the
// workload is extremely predictable; tables bloat until VACUUM FULL.
func init() {
	Register(Rule{
		ID:       "db.pg-autovacuum-off",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: autovacuum turned off (or track_counts, which it needs)",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			pgDoc("runtime-config-autovacuum.html — autovacuum (boolean)", "This is on by default; however, track_counts must also be enabled for autovacuum to work."),
			pgDoc("routine-vacuuming.html — Recovering Disk Space", "It is unwise to disable the daemon completely unless you have an extremely predictable workload."),
		},
		Scope: Scope{DBVersions: "PostgreSQL 8.3+ (autovacuum on by default; the docs of 15 quoted)",
			Note: "a site that vacuums on its own schedule may turn it off on purpose; autovacuum off for single tables (storage parameters) is not judged"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGAutovacuum(d) })
		},
	})
}

func checkPGAutovacuum(d *snapshot.Database) Outcome {
	var fs []Finding
	var unknown []string
	for _, name := range []string{"autovacuum", "track_counts"} {
		on, why := pgBool(d, name)
		if why != "" {
			unknown = append(unknown, why)
			continue
		}
		if on {
			continue
		}
		w := "PostgreSQL's docs: without the autovacuum daemon dead rows are reclaimed only by VACUUMs someone schedules; a table whose update rate rises bloats until VACUUM FULL (an exclusive lock) is needed, and statistics age. Disabling it is unwise unless the workload is extremely predictable. (Vacuums against transaction ID wraparound still run.)"
		if name == "track_counts" {
			w = "PostgreSQL's docs: track_counts must be on for autovacuum to work: without the counters the launcher does not know which tables changed, so nothing is vacuumed or analyzed automatically."
		}
		fs = append(fs, Finding{Setting: name, Current: "off", Recommended: "on",
			Evidence: serverName(d) + "; " + pgSettingText(d, name),
			Why:      w,
			Fix:      pgAlterSystem(name, "on", false),
			Risk:     "Autovacuum workers add I/O while they run (bounded by autovacuum_vacuum_cost_limit); the first runs on long-unvacuumed tables take longest.",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(unknown) > 0:
		return CannotCheck("%s", strings.Join(unknown, "; "))
	}
	return Passed("autovacuum and track_counts on").
		Reading(serverName(d) + " pg_settings: autovacuum on, track_counts on")
}
