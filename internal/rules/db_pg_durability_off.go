package rules

import (
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-durability-off: fsync = off or full_page_writes = off on a live
// PostgreSQL server. PostgreSQL's docs: either can leave the cluster
// corrupted after a power failure or an OS crash, and is advisable only for
// a database that can be recreated from elsewhere (critical).
// synchronous_commit = off loses at most the last commits, never
// consistency: the docs call it a useful alternative, so it is said as a
// trade-off (info).
func init() {
	Register(Rule{
		ID:       "db.pg-durability-off",
		Area:     AreaDB,
		Severity: SevCritical,
		Title:    "Live PostgreSQL: durability turned off (fsync, full_page_writes; synchronous_commit as a trade-off)",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			pgDoc("runtime-config-wal.html — fsync (boolean)", "While turning off fsync is often a performance benefit, this can result in unrecoverable data corruption in the event of a power failure or system crash. Thus it is only advisable to turn off fsync if you can easily recreate your entire database from external data."),
			pgDoc("runtime-config-wal.html — full_page_writes (boolean)", "Turning this parameter off speeds normal operation, but might lead to either unrecoverable data corruption, or silent data corruption, after a system failure."),
			pgDoc("runtime-config-wal.html — synchronous_commit (enum)", "So, turning synchronous_commit off can be a useful alternative when performance is more important than exact certainty about the durability of a transaction."),
		},
		Scope: Scope{DBVersions: "PostgreSQL, any version (the docs of 15 quoted)",
			Note: "a cluster that is recreated from elsewhere (a bulk load, a throw-away clone) may run with fsync off on purpose, as the docs say: the finding then is the reminder"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGDurability(d) })
		},
	})
}

func checkPGDurability(d *snapshot.Database) Outcome {
	var fs []Finding
	var unknown []string
	for _, c := range []struct{ name, why string }{
		{"fsync", "PostgreSQL's docs: with fsync off a power failure or an OS crash can leave unrecoverable data corruption; it is advisable only when the whole database can be recreated from external data (an initial load, a throw-away clone). synchronous_commit = off gives much of the speed without that risk."},
		{"full_page_writes", "PostgreSQL's docs: with full_page_writes off a page torn by an OS crash cannot be restored from WAL: unrecoverable or silent data corruption after a system failure; the risks are similar to fsync off, and it should be off only where fsync may be."},
	} {
		on, why := pgBool(d, c.name)
		if why != "" {
			unknown = append(unknown, why)
			continue
		}
		if !on {
			fs = append(fs, Finding{Setting: c.name, Current: "off", Recommended: "on",
				Evidence: serverName(d) + "; " + pgSettingText(d, c.name),
				Why:      c.why,
				Fix:      pgAlterSystem(c.name, "on", false),
				Risk:     "Writes become durable again, at their cost: commits wait for the WAL flush; after turning fsync on, run sync (or initdb --sync-only) so what was written before is on disk too.",
			})
		}
	}
	if v, why := dbSetting(d, "synchronous_commit"); why != "" {
		unknown = append(unknown, why)
	} else if strings.EqualFold(strings.TrimSpace(v), "off") {
		fs = append(fs, Finding{Severity: SevInfo, Setting: "synchronous_commit", Current: "off",
			Recommended: "off only where losing the last commits after a crash is acceptable (a trade-off, not a fault); on for the transactions that must survive one",
			Evidence:    serverName(d) + "; " + pgSettingText(d, "synchronous_commit"),
			Why:         "PostgreSQL's docs: with synchronous_commit off a crash may lose the most recent commits (up to three times wal_writer_delay), but never consistency, unlike fsync off: a useful alternative when performance matters more than certainty about each transaction's durability. It can be set per transaction (SET LOCAL synchronous_commit TO OFF).",
			Fix:         Fix{Runtime: []string{}, Persistent: []string{}},
			Risk:        "None to keep it; setting it on makes every commit wait for its WAL flush.",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(unknown) > 0:
		return CannotCheck("%s", strings.Join(unknown, "; "))
	}
	return Passed("fsync, full_page_writes and synchronous_commit on").
		Reading(serverName(d) + " pg_settings: fsync on, full_page_writes on, synchronous_commit on")
}
