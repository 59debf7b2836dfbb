package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-random-page-cost: random_page_cost against the device class that
// holds the server's data directory (mapped through the snapshot's mounts,
// dm/LVM and md to the physical devices): the default 4 models a rotating
// disk; on flash PostgreSQL's docs suggest about 1.1, and a value far below
// the sequential cost on a rotating disk makes the planner pick index
// scans it pays for in seeks.
func init() {
	Register(Rule{
		ID:       "db.pg-random-page-cost",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: random_page_cost does not match the device that holds the data directory",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: "https://www.postgresql.org/docs/current/runtime-config-query.html#GUC-RANDOM-PAGE-COST",
				Section: "Query Planning — Planner Cost Constants: random_page_cost (default 4.0; storage with a low random read cost, e.g. solid-state drives, modeled with a lower value such as 1.1)"},
		},
		Scope:      Scope{DBVersions: "PostgreSQL, any version", Note: "a multipath SAN LUN does not tell the host whether the array is flash: could not check"},
		Thresholds: []string{"flash (NVMe, SSD) with random_page_cost ≥ 2; a rotating disk with random_page_cost < 2"},
		Pending:    PendingRestart,
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGRandomPageCost(in, d) })
		},
	})
}

func checkPGRandomPageCost(in *Input, d *snapshot.Database) Outcome {
	rpc, why := dbFloat(d, "random_page_cost")
	if why != "" {
		return CannotCheck("%s", why)
	}
	class, how, why := in.dataDevice(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	ev := fmt.Sprintf("%s: random_page_cost = %g; %s", serverName(d), rpc, how)
	switch {
	case flashClass(class) && rpc >= 2:
		return Found(Finding{
			Setting: "postgres:random_page_cost", Current: fmt.Sprintf("%g on %s", rpc, class), Recommended: "1.1",
			Evidence: ev,
			Why: "PostgreSQL's docs: random_page_cost 4 models a rotating disk; on flash a random read costs about what a sequential one does, " +
				"and 1.1 lets the planner choose index scans it now rejects.",
			Fix:  Fix{Runtime: []string{"ALTER SYSTEM SET random_page_cost = 1.1; SELECT pg_reload_conf();"}, Persistent: []string{"postgresql.conf: random_page_cost = 1.1"}},
			Risk: "Plans change: test the heaviest queries. Per tablespace: ALTER TABLESPACE ... SET (random_page_cost = ...).",
		})
	case class == "rotational" && rpc < 2:
		return Found(Finding{
			Setting: "postgres:random_page_cost", Current: fmt.Sprintf("%g on a rotating disk", rpc), Recommended: "4 (the default)",
			Evidence: ev,
			Why:      "PostgreSQL's docs: the default 4 models a rotating disk's seeks; a value this low has the planner choose index scans that seek.",
			Fix:      Fix{Runtime: []string{"ALTER SYSTEM RESET random_page_cost; SELECT pg_reload_conf();"}, Persistent: []string{"postgresql.conf: random_page_cost = 4"}},
			Risk:     "Plans change: test the heaviest queries (a low value may be deliberate when the data fits in memory).",
		})
	case mediaUnknown(class):
		return CannotCheck("random_page_cost = %g; %s: whether that storage is flash is not visible to the host", rpc, how)
	}
	return Passed("random_page_cost = %g suits %s", rpc, how).Reading(ev)
}
