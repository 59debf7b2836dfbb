package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-checkpoints: checkpoints forced by WAL volume rather than by time
// (requested ahead of timed in pg_stat_checkpointer / pg_stat_bgwriter:
// max_wal_size too small for the write rate, the docs' "checkpoints are
// occurring too frequently"), and a checkpoint_completion_target below
// the docs' 0.9 (the checkpoint's writes in a burst).
func init() {
	Register(Rule{
		ID:       "db.pg-checkpoints",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: checkpoints forced by WAL volume (max_wal_size) or not spread (checkpoint_completion_target)",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			pgDoc("wal-configuration.html — Checkpoints", "It is therefore wise to set the checkpointing parameters high enough so that checkpoints don't happen too often."),
			pgDoc("wal-configuration.html — Checkpoints", "A checkpoint is begun every checkpoint_timeout seconds, or if max_wal_size is about to be exceeded, whichever comes first."),
			pgDoc("runtime-config-wal.html — checkpoint_warning (integer)", "(which suggests that max_wal_size ought to be raised)"),
			pgDoc("runtime-config-wal.html — checkpoint_completion_target (floating point)", "Reducing this parameter is not recommended because it causes the checkpoint to complete faster."),
		},
		Scope: Scope{DBVersions: "PostgreSQL 9.5+ (max_wal_size); the counters in pg_stat_checkpointer on 17+, pg_stat_bgwriter before",
			Note: "CHECKPOINT commands and base backups count as requested checkpoints too; the counters run since stats_reset"},
		Thresholds: []string{"requested checkpoints more than timed ones, and at least 10 of them since the counters' reset"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGCheckpoints(d) })
		},
	})
}

func checkPGCheckpoints(d *snapshot.Database) Outcome {
	var fs []Finding
	var unknown, ok []string
	if c := d.Checkpoints; c == nil {
		why := d.CheckpointsReason
		if why == "" {
			why = "not read (a snapshot of an older dbhost)"
		}
		unknown = append(unknown, "checkpoint counters: "+why)
	} else {
		mw, why := dbBytes(d, "max_wal_size")
		cover := ""
		if c.Seconds > 0 {
			cover = fmt.Sprintf(" over %.0f s since stats_reset %s", c.Seconds, c.StatsReset)
		}
		counts := fmt.Sprintf("%s: %d requested, %d timed checkpoints%s", c.View, c.Requested, c.Timed, cover)
		switch {
		case c.Requested > c.Timed && c.Requested >= 10:
			if why != "" {
				unknown = append(unknown, why)
				break
			}
			to, _ := dbSetting(d, "checkpoint_timeout")
			fs = append(fs, Finding{Setting: "max_wal_size", Current: pgSize(mw),
				Recommended: fmt.Sprintf("larger, so that checkpoints are begun by checkpoint_timeout (%ss), not by WAL volume: e.g. %s (4 ×), then compare the counters again", to, pgSize(mw*4)),
				Evidence:    serverName(d) + "; " + counts + "; " + pgSettingText(d, "max_wal_size") + "; " + pgSettingText(d, "checkpoint_timeout"),
				Why: "PostgreSQL's docs: a checkpoint begins every checkpoint_timeout or when max_wal_size is about to be exceeded; checkpoints are expensive (every dirty buffer written, and full-page images in the WAL after each), so they should not happen too often. " +
					"More requested than timed checkpoints means the WAL fills max_wal_size first: the server logs \"checkpoints are occurring too frequently\", which suggests max_wal_size ought to be raised.",
				Fix:  pgCheckpointFix(c.View, mw*4),
				Risk: "More WAL kept in pg_wal (up to about max_wal_size, more under load): check the WAL file system's free space; crash recovery may take longer.",
			})
		default:
			ok = append(ok, counts)
		}
	}
	if f, why := dbFloat(d, "checkpoint_completion_target"); why != "" {
		unknown = append(unknown, why)
	} else if f < 0.9 {
		fs = append(fs, Finding{Severity: SevInfo, Setting: "checkpoint_completion_target", Current: fmt.Sprint(f), Recommended: "0.9 (the default since PostgreSQL 14)",
			Evidence: serverName(d) + "; " + pgSettingText(d, "checkpoint_completion_target"),
			Why:      "PostgreSQL's docs: reducing checkpoint_completion_target is not recommended: the checkpoint completes faster, with a higher rate of I/O during it and less after; 0.9 spreads the writes over almost the whole interval.",
			Fix:      pgAlterSystem("checkpoint_completion_target", "0.9", false),
			Risk:     "Checkpoints take longer to complete, so more WAL is kept for recovery.",
		})
	} else {
		ok = append(ok, fmt.Sprintf("checkpoint_completion_target %v", f))
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(unknown) > 0:
		return CannotCheck("%s", strings.Join(unknown, "; "))
	}
	return Passed("%s", strings.Join(ok, "; ")).Reading(serverName(d) + ": " + strings.Join(ok, "; "))
}

// pgCheckpointFix raises max_wal_size and resets the counters, which
// otherwise keep the storm's numbers: the next audit judges the new size.
func pgCheckpointFix(view string, size int64) Fix {
	f := pgAlterSystem("max_wal_size", fmt.Sprintf("%dMB", size>>20), false)
	target := "bgwriter"
	if view == "pg_stat_checkpointer" {
		target = "checkpointer"
	}
	f.Runtime = append(f.Runtime, fmt.Sprintf("psql -c \"SELECT pg_stat_reset_shared('%s')\"   # the counters start again: the next audit judges the new size", target))
	return f
}
