package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-wal-buffers: wal_buffers set below what the server's own
// auto-tuning (-1) would choose: 1/32 of shared_buffers, at least 64 kB and
// at most one WAL segment. PostgreSQL's docs: the auto-tuning gives
// reasonable results, and a few megabytes help a busy server where many
// clients commit at once.
func init() {
	Register(Rule{
		ID:       "db.pg-wal-buffers",
		Area:     AreaDB,
		Severity: SevInfo,
		Title:    "Live PostgreSQL: wal_buffers set below the server's own auto-tuning",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			pgDoc("runtime-config-wal.html — wal_buffers (integer)", "The default setting of -1 selects a size equal to 1/32nd (about 3%) of shared_buffers, but not less than 64kB nor more than the size of one WAL segment, typically 16MB."),
			pgDoc("runtime-config-wal.html — wal_buffers (integer)", "The auto-tuning selected by the default setting of -1 should give reasonable results in most cases."),
		},
		Scope: Scope{DBVersions: "PostgreSQL 9.1+ (wal_buffers -1)"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGWALBuffers(d) })
		},
	})
}

func checkPGWALBuffers(d *snapshot.Database) Outcome {
	wb, why := dbBytes(d, "wal_buffers")
	if why != "" {
		return CannotCheck("%s", why)
	}
	sb, why := dbBytes(d, "shared_buffers")
	if why != "" {
		return CannotCheck("%s", why)
	}
	seg, why := dbBytes(d, "wal_segment_size")
	if why != "" {
		return CannotCheck("%s", why)
	}
	auto := min(max(sb/32, 64<<10), seg)
	if wb >= auto {
		return Passed("wal_buffers %s, auto-tuning would choose %s", pgSize(wb), pgSize(auto)).
			Reading(fmt.Sprintf("%s pg_settings: wal_buffers %s, shared_buffers (auto-tuning: %s)", serverName(d), pgSize(wb), pgSize(auto)))
	}
	return Found(Finding{Setting: "wal_buffers", Current: pgSize(wb),
		Recommended: fmt.Sprintf("-1 (auto-tuning: %s here, 1/32 of shared_buffers %s capped at the WAL segment %s)", pgSize(auto), pgSize(sb), pgSize(seg)),
		Evidence:    serverName(d) + "; " + pgSettingText(d, "wal_buffers") + "; " + pgSettingText(d, "shared_buffers") + "; " + pgSettingText(d, "wal_segment_size"),
		Why:         "PostgreSQL's docs: the default -1 sizes wal_buffers at 1/32 of shared_buffers (64 kB to one WAL segment) and gives reasonable results in most cases; a few megabytes improve writes on a busy server where many clients commit at once. Set below that, WAL inserts wait for buffer writes.",
		Fix:         pgAlterSystem("wal_buffers", "-1", true),
		Risk:        "Read only at start: a restart. The buffers come out of shared memory (a few MB at most).",
	})
}
