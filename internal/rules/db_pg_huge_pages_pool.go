package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-huge-pages-pool: a live PostgreSQL server whose shared memory is
// not in hugepages — huge_pages off, or try with a pool that cannot hold
// it (try then falls back to 4 kB pages without a word) — sized from the
// server's own shared_memory_size_in_huge_pages (15+), per node when the
// postmaster is bound to some nodes. Whether huge_pages off (or a try that
// fell back) is worth a finding is judged by what 4 kB pages cost: every
// backend maps the shared memory with page tables of its own (000: page
// table entries are a per-user construct; 5.5 GB of page tables became
// 175 MB with HugePages), up to max_connections × shared memory / 512.
func init() {
	Register(Rule{
		ID:       "db.pg-huge-pages-pool",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: shared memory not in hugepages (huge_pages off, or try with a pool that cannot hold it)",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages", Quote: "Most databases support Huge pages"},
			{Doc: Seed000, Section: "Scenario 2: HugePages", Quote: "page table entries are a per-user construct"},
			{Doc: "https://www.postgresql.org/docs/current/kernel-resources.html#LINUX-HUGE-PAGES",
				Section: "Managing Kernel Resources — Linux Huge Pages (shared_memory_size_in_huge_pages; huge_pages = try falls back to normal pages)"},
			{Doc: "https://www.postgresql.org/docs/current/runtime-config-resource.html#GUC-HUGE-PAGES",
				Section: "Resource Consumption — Memory: huge_pages, huge_page_size"},
		},
		Scope: Scope{
			DBVersions: "PostgreSQL 12+ read live; the exact page count from 15 (shared_memory_size_in_huge_pages), computed and said so before",
			Note:       "read over a connection (--pg, --db postgres); the page-table cost counts every allowed connection mapping all of the shared memory, an upper bound",
		},
		Thresholds: []string{"huge_pages = off is judged when the page tables could reach 128 MiB (max_connections × the server's shared memory in huge pages × page size / 512), and try below it is info"},
		Pending:    PendingRestart,
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGHugePagesPool(in, d) })
		},
	})
}

func checkPGHugePagesPool(in *Input, d *snapshot.Database) Outcome {
	hp, why := dbSetting(d, "huge_pages")
	if why != "" {
		return CannotCheck("%s", why)
	}
	if hp == "on" {
		return NotApplicable("huge_pages = on (db.pg-huge-pages-on-short judges its pool)")
	}
	h, why := in.pgHugeNeed(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	sb, _ := dbBytes(d, "shared_buffers")
	if hp == "try" && h.inUse {
		return Passed("huge_pages = try and postmaster %d has %s in hugepages (numa_maps)", h.main.PID, KB(h.usesKB)).
			Reading(fmt.Sprintf("%s: huge_pages = try; /proc/%d/numa_maps: %s in hugepages", serverName(d), h.main.PID, KB(h.usesKB)))
	}
	pt, ptHow, why := pgPageTableCost(d, h)
	if why != "" && hp == "off" {
		return CannotCheck("huge_pages = off; %s", why)
	}
	if hp == "off" && pt < pgPageTableThreshold {
		return Passed("huge_pages = off; %s, below 128 MiB", ptHow).
			Reading(fmt.Sprintf("%s: huge_pages = off, shared_buffers %s; %s", serverName(d), KB(sb/1024), ptHow))
	}
	if !d.Local {
		return CannotCheck("huge_pages = %s; the server is not on this host (%s): its host's hugepage pool is not in this snapshot", hp, d.Connection)
	}
	r, why := in.room(d, h)
	if why != "" {
		return CannotCheck("huge_pages = %s, needs %s; %s", hp, h.how, why)
	}
	short, missing := r.short(h)
	ev := fmt.Sprintf("%s: huge_pages = %s, shared_buffers %s, needs %s; %s; %s", serverName(d), hp, KB(sb/1024), h.how, r.evidence, ptHow)
	if hp == "try" && h.main == nil {
		ev += "; its postmaster is not in the snapshot's processes, so whether it holds hugepages now is unknown"
	}
	if hp == "try" && !short {
		return Passed("huge_pages = try and the pool has room for %s (set on to make a shortfall an error); %s", h.how, r.evidence).Reading(ev)
	}
	chg, runtime := in.poolChanges("db.pg-huge-pages-pool", h, r, max(missing, 0))
	if !short {
		chg, runtime = nil, nil // off with a pool that holds it: only the setting changes
	}
	cur := fmt.Sprintf("off with shared_buffers %s: page tables up to %s", KB(sb/1024), pgSize(pt))
	sev := ""
	if hp == "try" && (why != "" || pt < pgPageTableThreshold) {
		sev = SevInfo // the default try on a small server: little to gain, but the pool it asks for is named
	}
	if hp == "try" {
		cur = fmt.Sprintf("try, and the pool cannot hold its %d pages (%d short): PostgreSQL runs on 4 kB pages without a word", h.pages, missing)
	}
	return Found(Finding{
		Severity: sev, Setting: "postgres:huge_pages", Current: cur,
		Recommended: fmt.Sprintf("huge_pages = on with a pool of at least %d pages of %s (%s)", r.target, KB(h.sizeKB), h.how),
		Evidence:    ev,
		Why: "003: configure hugepages for the database's shared memory; 000: the shared memory in 2 MB pages gave +13 % TPM and " +
			"page tables of 175 MB instead of 5.5 GB — a per-process cost PostgreSQL's process-per-connection model pays in full. " +
			"PostgreSQL's docs: with try, a pool that cannot hold the segment means normal pages, silently.",
		Fix: persistLine(h, r, runtime,
			"postgresql.conf: huge_pages = on   (then restart PostgreSQL; it refuses to start when the pool is short, which is the point)"),
		Then: pgHugeThen(hp, h),
		Risk: "Hugepages are reserved memory, unavailable to anything else and to the page cache PostgreSQL relies on. " +
			"Size the pool first, and again after raising shared_buffers or max_connections.",
		Changes: chg,
	})
}

// pgPageTableThreshold is dbhost's own line for huge_pages off: the page
// tables the backends could need to map the shared memory with 4 kB pages.
const pgPageTableThreshold = 128 << 20

// pgPageTableCost is what mapping the shared memory with 4 kB pages could
// cost in page tables: every allowed connection's backend maps all of it,
// 8 bytes per 4 kB page (shared / 512 each); the shared memory is the
// server's own count of huge pages (hugeNeed) times their size.
func pgPageTableCost(d *snapshot.Database, h hugeNeed) (cost int64, how, why string) {
	conns, why := dbInt(d, "max_connections")
	if why != "" {
		return 0, "", why
	}
	shared := h.pages * h.sizeKB << 10
	cost = conns * shared / 512
	return cost, fmt.Sprintf("page tables up to max_connections %d × %s / 512 = %s (8 bytes per 4 kB page, per backend)", conns, pgSize(shared), pgSize(cost)), ""
}

// pgHugeThen are the steps that pair the pool with the server: huge_pages
// on (or left at try) and a restart, since PostgreSQL maps its shared
// memory, and so takes huge pages, only when it starts.
func pgHugeThen(hp string, h hugeNeed) []string {
	set := "psql -c \"ALTER SYSTEM SET huge_pages = 'on'\"   (was " + hp + "; on makes a short pool an error at start instead of a silent fallback; try also takes the pages)"
	return []string{set,
		fmt.Sprintf("restart PostgreSQL: it maps huge pages only at start; until then the %d pages (%s) sit reserved and unused", h.pages, KB(h.pages*h.sizeKB))}
}
