package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-wal-same-device: a live PostgreSQL server whose WAL (pg_wal,
// symlinks resolved) sits on the same physical device as its data
// directory: every commit's WAL flush queues behind checkpoint and data
// file I/O.
func init() {
	Register(Rule{
		ID:       "db.pg-wal-same-device",
		Area:     AreaDB,
		Severity: SevInfo,
		Title:    "Live PostgreSQL: the WAL is on the same device as the data",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: Seed003, Section: "I/O Tuning – Database Layout", Quote: "Separate files by I/O (data , logs, undo, temp)"},
			{Doc: Seed004, Section: "IO : Database Layout", Quote: "if possible separate redologs (+archivelogs)"},
			{Doc: "https://www.postgresql.org/docs/current/wal-internals.html",
				Section: "Reliability and the Write-Ahead Log — WAL Internals (the WAL on a different disk from the main database files, by moving pg_wal)"},
		},
		Scope:   Scope{DBVersions: "PostgreSQL 10+ (pg_wal; pg_xlog before)", Note: "physical devices below LVM/md compared; a multipath LUN counts as one device"},
		Pending: PendingManual,
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGWALSameDevice(in, d) })
		},
	})
}

func checkPGWALSameDevice(in *Input, d *snapshot.Database) Outcome {
	dir, why := serverDataDir(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	if d.WALDirectory == "" {
		return CannotCheck("the WAL directory: %s", d.WALResolved)
	}
	_, dataDevs, dataHow, why := in.dirDevice(dir)
	if why != "" {
		return CannotCheck("%s", why)
	}
	_, walDevs, walHow, why := in.dirDevice(d.WALDirectory)
	if why != "" {
		return CannotCheck("%s", why)
	}
	var shared []string
	for _, a := range dataDevs {
		for _, b := range walDevs {
			if a == b {
				shared = append(shared, a)
			}
		}
	}
	if len(shared) == 0 {
		return Passed("WAL and data on different devices: %s; %s", walHow, dataHow).Reading(serverName(d)+": "+walHow, dataHow)
	}
	return Found(Finding{
		Setting: "postgres:pg_wal", Current: "on " + strings.Join(shared, ", ") + ", with the data",
		Recommended: "the WAL on a device of its own (low latency), pg_wal a symlink to it",
		Evidence:    fmt.Sprintf("%s: %s; WAL: %s; data: %s", serverName(d), d.WALResolved, walHow, dataHow),
		Why: "003: separate files by I/O (data, logs); 004: separate the redo logs; PostgreSQL's docs: WAL on a different disk from the " +
			"main database files. Every commit waits for its WAL flush, which here queues behind checkpoints and data reads.",
		Fix: Fix{Runtime: []string{}, Persistent: []string{"stop the server; move " + sh(d.WALDirectory) + " to the new device; ln -s NEWDIR " +
			sh(strings.TrimSuffix(dir, "/")+"/pg_wal") + "; start the server (or initdb -X for a new cluster)"}},
		Risk: "Moving pg_wal needs the server stopped; a wrong symlink loses committed transactions. Back up first.",
	})
}
