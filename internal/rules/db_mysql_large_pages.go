package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.mysql-large-pages: a live MySQL/MariaDB server whose buffer pool is
// not in hugepages: large_pages OFF with a buffer pool above 2 GiB, or ON
// with a pool that cannot hold it (InnoDB then falls back to normal pages,
// with only a warning in the error log).
func init() {
	Register(Rule{
		ID:       "db.mysql-large-pages",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live MySQL/MariaDB: the InnoDB buffer pool is not in hugepages (large_pages off, or on with too small a pool)",
		DBs:      []string{DBMySQL},
		Sources: []Source{
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages", Quote: "Most databases support Huge pages"},
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages", Quote: "TLB can map more physical pages, resulting in fewer misses"},
			{Doc: Seed000, Section: "Scenario 2: HugePages",
				Quote: "the chances of successfully finding the virtual-to-physical translation your process needs in the TLB cache increases"},
			{Doc: "https://dev.mysql.com/doc/refman/8.0/en/large-page-support.html", Section: "Optimization — Enabling Large Page Support (large_pages; InnoDB falls back to traditional memory when large pages cannot be allocated)"},
			{Doc: "https://mariadb.com/kb/en/server-system-variables/#large_pages", Section: "Server System Variables — large_pages, large_page_size"},
		},
		Scope:      Scope{DBVersions: "MySQL 5.5+, MariaDB 10.x+", Note: "the need is the buffer pool only (a lower bound)"},
		Thresholds: []string{"large_pages OFF is judged when innodb_buffer_pool_size is above 2 GiB"},
		Pending:    PendingRestart,
		Check: func(in *Input) Outcome {
			return in.eachServer(DBMySQL, func(d *snapshot.Database) Outcome { return checkMyLargePages(in, d) })
		},
	})
}

func checkMyLargePages(in *Input, d *snapshot.Database) Outcome {
	lp, why := dbSetting(d, "large_pages")
	if why != "" {
		return CannotCheck("%s", why)
	}
	h, why := in.myHugeNeed(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	bp, _ := dbBytes(d, "innodb_buffer_pool_size")
	on := dbOn(lp)
	if !on && bp <= pgHugeThreshold {
		return Passed("large_pages OFF with a buffer pool of %s (not above 2 GiB)", KB(bp/1024)).
			Reading(fmt.Sprintf("%s: large_pages = %s, innodb_buffer_pool_size %s", serverName(d), lp, KB(bp/1024)))
	}
	if on && h.inUse {
		return Passed("large_pages ON and %s %d has %s in hugepages (numa_maps)", h.main.Comm, h.main.PID, KB(h.usesKB)).
			Reading(fmt.Sprintf("%s: large_pages = %s; /proc/%d/numa_maps: %s in hugepages", serverName(d), lp, h.main.PID, KB(h.usesKB)))
	}
	if !d.Local {
		return CannotCheck("large_pages %s; the server is not on this host (%s)", lp, d.Connection)
	}
	r, why := in.room(d, h)
	if why != "" {
		return CannotCheck("large_pages %s, needs %s; %s", lp, h.how, why)
	}
	short, missing := r.short(h)
	ev := fmt.Sprintf("%s: large_pages = %s, innodb_buffer_pool_size %s, needs %s; %s", serverName(d), lp, KB(bp/1024), h.how, r.evidence)
	if on && !short {
		return Passed("large_pages ON and the pool has room for %s; %s", h.how, r.evidence).Reading(ev)
	}
	chg, runtime := in.poolChanges("db.mysql-large-pages", h, r, missing)
	if !short {
		chg, runtime = nil, nil
	}
	cur := "OFF with a buffer pool of " + KB(bp/1024)
	if on {
		cur = fmt.Sprintf("ON, but the pool cannot hold the buffer pool (%d pages short): InnoDB runs on normal pages, with a warning in the error log", missing)
	}
	return Found(Finding{
		Setting: "mysql:large_pages", Current: cur,
		Recommended: fmt.Sprintf("large_pages = ON with a pool of at least %d pages of %s (%s)", r.target, KB(h.sizeKB), h.how), Evidence: ev,
		Why: "003: most databases support huge pages, and with 2 MB pages the TLB maps more memory, with fewer misses (000 Scenario 2: the " +
			"translation a process needs is found in the TLB more often). mysqld is one process of many threads with one page table, so the gain " +
			"is the TLB's, not the per-process page tables 000 saved for Oracle's many processes. " +
			"MySQL's manual: when large pages cannot be allocated InnoDB falls back to traditional memory.",
		Fix:     persistLine(h, r, runtime, "my.cnf [mysqld]: large_pages = ON   (then restart; the mysql user needs memlock or CAP_IPC_LOCK: LimitMEMLOCK=infinity in the unit)"),
		Risk:    "Hugepages are reserved memory, unavailable to anything else; size the pool again after growing the buffer pool.",
		Changes: chg,
	})
}
