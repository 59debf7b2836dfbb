package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.mysql-io-capacity: innodb_io_capacity against the device class of the
// datadir: the default 200 suits a rotating disk; on flash InnoDB flushes
// too slowly (checkpoint age, stalls), and a high value on a rotating disk
// floods it with background writes.
func init() {
	Register(Rule{
		ID:       "db.mysql-io-capacity",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live MySQL/MariaDB: innodb_io_capacity does not match the device that holds the datadir",
		DBs:      []string{DBMySQL},
		Sources: []Source{
			{Doc: "https://dev.mysql.com/doc/refman/8.0/en/innodb-configuring-io-capacity.html", Section: "InnoDB Configuration — Configuring InnoDB I/O Capacity (default 200; higher values for SSDs and arrays)"},
		},
		Scope:      Scope{DBVersions: "MySQL 5.5+, MariaDB 10.x"},
		Thresholds: []string{"flash (NVMe, SSD) with innodb_io_capacity ≤ 200 (1000 recommended); a rotating disk with innodb_io_capacity above 1000"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBMySQL, func(d *snapshot.Database) Outcome { return checkMyIOCapacity(in, d) })
		},
	})
}

func checkMyIOCapacity(in *Input, d *snapshot.Database) Outcome {
	ioc, why := dbInt(d, "innodb_io_capacity")
	if why != "" {
		return CannotCheck("%s", why)
	}
	class, how, why := in.dataDevice(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	ev := fmt.Sprintf("%s: innodb_io_capacity = %d; %s", serverName(d), ioc, how)
	switch {
	case flashClass(class) && ioc <= 200:
		return Found(Finding{
			Setting: "mysql:innodb_io_capacity", Current: fmt.Sprintf("%d on %s", ioc, class), Recommended: "1000 (and innodb_io_capacity_max 2000 or more)",
			Evidence: ev,
			Why: "MySQL's manual: the default 200 suits a rotating disk; flash serves thousands of writes per second, and at 200 InnoDB's " +
				"background flushing falls behind, the checkpoint age grows and foreground threads stall on synchronous flushes.",
			Fix:  Fix{Runtime: []string{"SET GLOBAL innodb_io_capacity = 1000;"}, Persistent: []string{"my.cnf [mysqld]: innodb_io_capacity = 1000"}},
			Risk: "More background writes: on a shared array watch the other hosts' latency.",
		})
	case class == "rotational" && ioc > 1000:
		return Found(Finding{
			Setting: "mysql:innodb_io_capacity", Current: fmt.Sprintf("%d on a rotating disk", ioc), Recommended: "200 (the default)",
			Evidence: ev,
			Why:      "MySQL's manual: set io_capacity to what the device sustains; a rotating disk does a few hundred writes per second, and more background flushing than that queues the foreground reads behind it.",
			Fix:      Fix{Runtime: []string{"SET GLOBAL innodb_io_capacity = 200;"}, Persistent: []string{"my.cnf [mysqld]: innodb_io_capacity = 200"}},
			Risk:     "Less background flushing: watch the checkpoint age under load.",
		})
	case mediaUnknown(class) && (ioc <= 200 || ioc > 1000):
		return CannotCheck("innodb_io_capacity = %d; %s: whether that storage is flash is not visible to the host", ioc, how)
	}
	return Passed("innodb_io_capacity = %d: no finding for %s (flash wants more than 200, a rotating disk at most 1000)", ioc, how).Reading(ev)
}
