package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.mysql-flush-method: a live MySQL/MariaDB server whose InnoDB data
// files go through the page cache (innodb_flush_method fsync, O_DSYNC,
// littlesync, nosync): every page is cached twice, in the buffer pool and
// in the kernel, and the kernel's write-back competes with InnoDB's own.
func init() {
	Register(Rule{
		ID:       "db.mysql-flush-method",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live MySQL/MariaDB: InnoDB data files without O_DIRECT (double caching)",
		DBs:      []string{DBMySQL},
		Sources: []Source{
			{Doc: Seed003, Section: "I/O Tuning – File Systems", Quote: "Avoid double caching"},
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters", Quote: "SETALL : enables both asynchronous and direct I/O on file system files"},
			{Doc: "https://dev.mysql.com/doc/refman/8.0/en/innodb-parameters.html#sysvar_innodb_flush_method", Section: "InnoDB Startup Options and System Variables — innodb_flush_method (O_DIRECT, O_DIRECT_NO_FSYNC; fsync the default on Unix before 8.4)"},
			{Doc: "https://mariadb.com/kb/en/innodb-system-variables/#innodb_flush_method", Section: "InnoDB System Variables — innodb_flush_method (O_DIRECT the default from MariaDB 10.6)"},
		},
		Scope:   Scope{DBVersions: "MySQL 5.x–8.x, MariaDB 10.x (MariaDB 11 replaced the variable: not judged there)"},
		Pending: PendingRestart,
		Check: func(in *Input) Outcome {
			return in.eachServer(DBMySQL, func(d *snapshot.Database) Outcome { return checkMyFlushMethod(d) })
		},
	})
}

func checkMyFlushMethod(d *snapshot.Database) Outcome {
	v, why := dbSetting(d, "innodb_flush_method")
	if why != "" {
		if s := d.Setting("innodb_flush_method"); s != nil && strings.HasPrefix(s.Reason, "not present") {
			return NotApplicable("this server has no innodb_flush_method (%s)", d.Version)
		}
		return CannotCheck("%s", why)
	}
	switch strings.ToUpper(v) {
	case "O_DIRECT", "O_DIRECT_NO_FSYNC", "ALL_O_DIRECT":
		return Passed("innodb_flush_method = %s", v).Reading(fmt.Sprintf("%s: innodb_flush_method = %s", serverName(d), v))
	}
	return Found(Finding{
		Setting: "mysql:innodb_flush_method", Current: v, Recommended: "O_DIRECT",
		Evidence: fmt.Sprintf("%s: innodb_flush_method = %s", serverName(d), v),
		Why: "003: direct I/O avoids double caching, gives predictable performance and less CPU; 004: direct I/O for database files. " +
			"With fsync every InnoDB page is cached in the buffer pool and again in the page cache, and the kernel's write-back competes with InnoDB's flushing.",
		Fix:  Fix{Runtime: []string{}, Persistent: []string{"my.cnf [mysqld]: innodb_flush_method = O_DIRECT   (restart)"}},
		Risk: "Reads the buffer pool misses go to the device: a buffer pool sized on the page cache's help must grow.",
	})
}
