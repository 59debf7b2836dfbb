package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-effective-io-concurrency: effective_io_concurrency against the
// device class that holds the data directory. PostgreSQL's docs: flash
// and arrays serve many requests at once, and the best value may be in the
// hundreds; 1 (the default before 18) issues one prefetch at a time. The
// seeds say nothing of read prefetch (000's libaio jobs are writers,
// Oracle's DBWR): PostgreSQL's docs are the source, the thresholds
// dbhost's own.
func init() {
	Register(Rule{
		ID:       "db.pg-effective-io-concurrency",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: effective_io_concurrency too low for the device that holds the data directory",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: "https://www.postgresql.org/docs/current/runtime-config-resource.html#GUC-EFFECTIVE-IO-CONCURRENCY",
				Section: "Resource Consumption — Asynchronous Behavior: effective_io_concurrency (SSDs and other memory-based storage: often in the hundreds)"},
		},
		Scope:      Scope{DBVersions: "PostgreSQL 9.x+ (prefetch for bitmap heap scans; more uses from 17, default 16 from 18)"},
		Thresholds: []string{"flash (NVMe, SSD) or a multipath array with effective_io_concurrency ≤ 2; 200 recommended for flash (the docs' 'hundreds')"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGEIO(in, d) })
		},
	})
}

func checkPGEIO(in *Input, d *snapshot.Database) Outcome {
	eio, why := dbInt(d, "effective_io_concurrency")
	if why != "" {
		return CannotCheck("%s", why)
	}
	class, how, why := in.dataDevice(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	ev := fmt.Sprintf("%s: effective_io_concurrency = %d; %s", serverName(d), eio, how)
	switch {
	case eio > 2:
		return Passed("effective_io_concurrency = %d (above 2: no device class asks for more here); %s", eio, how).Reading(ev)
	case class == "multipath":
		// an array of drives behind the LUN, flash or not: many requests at once
	case mediaUnknown(class):
		return CannotCheck("effective_io_concurrency = %d; %s: whether that storage is flash is not visible to the host", eio, how)
	case !flashClass(class):
		return Passed("effective_io_concurrency = %d suits %s", eio, how).Reading(ev)
	}
	rec := "200"
	if class == "multipath" {
		rec = "the number of drives behind the LUN, or 200 on an all-flash array"
	}
	return Found(Finding{
		Setting: "postgres:effective_io_concurrency", Current: fmt.Sprintf("%d on %s", eio, class), Recommended: rec,
		Evidence: ev,
		Why: "PostgreSQL's docs: storage that serves many requests at once (flash, arrays of drives) wants many prefetches in flight, " +
			"often in the hundreds; at 1 each bitmap heap scan waits for one read at a time.",
		Fix:  Fix{Runtime: []string{"ALTER SYSTEM SET effective_io_concurrency = 200; SELECT pg_reload_conf();"}, Persistent: []string{"postgresql.conf: effective_io_concurrency = 200"}},
		Risk: "More reads in flight per scan: on a shared array watch other hosts' latency.",
	})
}
